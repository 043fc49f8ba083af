import { describe, expect, it } from 'vitest';
import { isPlanTool, isShellTool, MAX_PLAN_STEPS, planOf } from './tool-kinds.js';
import { toolDetail } from './tools.js';

describe('plans and commands across harnesses', () => {
  it("a Claude Code TodoWrite reads as its steps and their status (2.0.14's input)", () => {
    const input = {
      todos: [
        {
          content: 'Explore codebase structure and understand project layout',
          status: 'in_progress',
          activeForm: 'Exploring codebase structure and understanding project layout',
        },
        { content: 'Review package.json and dependencies', status: 'pending', activeForm: 'Reviewing' },
      ],
    };
    expect(isPlanTool('TodoWrite')).toBe(true);
    expect(planOf(input)).toEqual({
      steps: [
        { text: 'Explore codebase structure and understand project layout', status: 'in_progress' },
        { text: 'Review package.json and dependencies', status: 'pending' },
      ],
      more: 0,
    });
  });

  it("a Codex update_plan reads as its steps (codex-cli 0.39's arguments)", () => {
    const input = { plan: [{ step: 'Add backend support for fetching a single team.', status: 'pending' }] };
    expect(isPlanTool('update_plan')).toBe(true);
    expect(planOf(input)?.steps).toEqual([
      { text: 'Add backend support for fetching a single team.', status: 'pending' },
    ]);
  });

  it("Gemini CLI's write_todos and Qwen Code's todo_write are plans too", () => {
    expect(isPlanTool('write_todos') && isPlanTool('todo_write') && isPlanTool('todowrite')).toBe(true);
    expect(planOf({ todos: [{ description: 'Write the test', status: 'completed' }] })?.steps[0]).toEqual({
      text: 'Write the test',
      status: 'completed',
    });
  });

  it('a plan longer than the bound keeps its first steps and counts the rest', () => {
    const todos = Array.from({ length: MAX_PLAN_STEPS + 5 }, (_, i) => ({
      content: `step ${i}`,
      status: 'pending',
    }));
    const p = planOf({ todos })!;
    expect(p.steps).toHaveLength(MAX_PLAN_STEPS);
    expect(p.more).toBe(5);
  });

  it('an argument without a list is no plan', () => {
    expect(planOf({ todos: 'none' })).toBeNull();
    expect(planOf('text')).toBeNull();
  });

  it('shell tools are known by their names in every harness, and other tools are not', () => {
    for (const name of ['Bash', 'exec_command', 'shell', 'run_shell_command', 'bash', 'local_shell', 'exec']) // 'exec': OpenClaw 2026.9
      expect(isShellTool(name), name).toBe(true);
    for (const name of ['Read', 'BashOutput', 'apply_patch', 'TodoWrite'])
      expect(isShellTool(name), name).toBe(false);
  });

  it('a todo list keeps its steps as the call’s full argument, so they can be read back', () => {
    const d = toolDetail('TodoWrite', { todos: [{ content: 'a', status: 'pending' }] });
    expect(d.detail).toBe('1 todos');
    expect(planOf(JSON.parse(d.full!))?.steps).toEqual([{ text: 'a', status: 'pending' }]);
  });
});
