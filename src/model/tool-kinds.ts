/**
 * What a tool call is, across harnesses, from its tool's name and argument: a shell command, or an
 * update of the agent's plan (its todo list). A handoff brief lists the commands a session ran and
 * where its plan stood; each harness names these tools its own way, so the names are gathered here,
 * beside `tools.ts` (which already reads a todo list as "3 todos"), rather than in every reader.
 *
 * Not here: what the command printed or whether it failed (the call's result says), or any other
 * kind of tool. A name not listed is simply not a command or a plan; nothing is guessed from it.
 */
import { arr, obj, str } from './json.js';

/**
 * Shell tools, lower-cased: Claude Code's `Bash`; Codex's `exec_command`, `shell`, `shell_command`
 * and `local_shell`; Gemini CLI's and Qwen Code's `run_shell_command`; `bash` in OpenCode, Pi and
 * Copilot CLI (with `powershell` on Windows); OpenClaw's `exec`.
 */
const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'exec_command',
  'shell_command',
  'local_shell',
  'run_shell_command',
  'powershell',
  'exec',
]);

/**
 * Plan and todo tools, lower-cased: Claude Code's and OpenCode's `TodoWrite`/`todowrite`, Qwen
 * Code's `todo_write`, Gemini CLI's `write_todos`, Codex's `update_plan`. Each writes the whole list
 * every time, so the newest call is the plan as it stands.
 */
const PLAN_TOOLS = new Set(['todowrite', 'todo_write', 'write_todos', 'update_plan']);

/** Steps read from one plan: a real plan has a dozen; past this the rest are counted, not kept. */
export const MAX_PLAN_STEPS = 64;

/** Characters of one step: a step is a line; a longer one is cut. */
const STEP_CHARS = 300;

export const isShellTool = (name: string): boolean => SHELL_TOOLS.has(name.toLowerCase());

export const isPlanTool = (name: string): boolean => PLAN_TOOLS.has(name.toLowerCase());

/** One step of a plan, with its status as the harness wrote it (`pending`, `in_progress`, …). */
export interface PlanStep {
  text: string;
  status: string | null;
}

export interface Plan {
  steps: PlanStep[];
  /** Steps past `MAX_PLAN_STEPS`, counted. */
  more: number;
}

/**
 * The steps of a plan tool's argument: its `todos` (or Codex's `plan`), each item's text from
 * `content`, `step`, `description` or `title`. Null when the argument holds no such list.
 */
export function planOf(input: unknown): Plan | null {
  const o = obj(input);
  const items = arr(o?.todos) ?? arr(o?.plan);
  if (items === null) return null;
  const steps: PlanStep[] = [];
  for (const item of items.slice(0, MAX_PLAN_STEPS)) {
    const i = obj(item);
    const text = str(i?.content) ?? str(i?.step) ?? str(i?.description) ?? str(i?.title) ?? str(item);
    if (text === null) continue;
    steps.push({ text: text.replace(/\s+/g, ' ').trim().slice(0, STEP_CHARS), status: str(i?.status) });
  }
  return { steps, more: Math.max(0, items.length - MAX_PLAN_STEPS) };
}
