import { describe, expect, it } from 'vitest';
import { agentHooks } from './agents.js';
import { HOOK_AGENTS, type HookAgent } from './types.js';

const meaning = (agent: HookAgent, event: string, notification: string | null = null) =>
  agentHooks(agent).meaning({ event, notification });

describe("what each agent's events say", () => {
  it('reads a Claude Code notification by its type: a dialog waits, a notice says nothing', () => {
    // Types from 2.1.328's own list.
    expect(meaning('claude', 'Notification', 'permission_prompt')).toBe('waiting');
    expect(meaning('claude', 'Notification', 'idle_prompt')).toBe('waiting');
    expect(meaning('claude', 'Notification', 'elicitation_dialog')).toBe('waiting');
    expect(meaning('claude', 'Notification', 'auth_success')).toBe('none');
    expect(meaning('claude', 'Notification', null)).toBe('none');
    expect(meaning('claude', 'PermissionRequest')).toBe('waiting');
    expect(meaning('claude', 'StopFailure')).toBe('error');
  });

  it("takes a refused permission's PostToolBatch as the turn going on", () => {
    expect(meaning('claude', 'PostToolBatch')).toBe('working');
    expect(meaning('qwen', 'PostToolBatch')).toBe('working');
  });

  it("reads Codex's notify as the end of a turn, whether recorded by its type or as notify", () => {
    expect(meaning('codex', 'agent-turn-complete')).toBe('idle');
    expect(meaning('codex', 'notify', 'agent-turn-complete')).toBe('idle');
    expect(meaning('codex', 'notify', 'something-new')).toBe('none');
    expect(meaning('codex', 'PermissionRequest')).toBe('waiting');
  });

  it("reads Gemini CLI's tool permission notification as waiting", () => {
    expect(meaning('gemini', 'Notification', 'ToolPermission')).toBe('waiting');
    expect(meaning('gemini', 'AfterAgent')).toBe('idle');
  });

  it("reads OpenCode's status by its type, and an aborted turn as idle rather than an error", () => {
    expect(meaning('opencode', 'session.status', 'busy')).toBe('working');
    expect(meaning('opencode', 'session.status', 'idle')).toBe('idle');
    expect(meaning('opencode', 'session.status', null)).toBe('none');
    expect(meaning('opencode', 'session.error', 'MessageAbortedError')).toBe('idle');
    expect(meaning('opencode', 'session.error', 'ProviderAuthError')).toBe('error');
    expect(meaning('opencode', 'question.asked')).toBe('waiting');
  });

  it("reads Cursor's stop by how the loop ended", () => {
    expect(meaning('cursor', 'stop', 'completed')).toBe('idle');
    expect(meaning('cursor', 'stop', 'error')).toBe('error');
  });

  it('says nothing of an event it does not know', () => {
    for (const agent of HOOK_AGENTS) expect(meaning(agent, 'SomethingNew')).toBe('none');
  });
});

describe('what cctop answers an agent', () => {
  it('lets a Cursor prompt through and adds nothing to its other events, so Cursor decides as without cctop', () => {
    expect(agentHooks('cursor').answer('beforeSubmitPrompt')).toBe('{"continue":true}');
    for (const event of agentHooks('cursor').events.filter((e) => e !== 'beforeSubmitPrompt'))
      expect(JSON.parse(agentHooks('cursor').answer(event)!)).toEqual({});
    // No event that decides a permission is installed.
    expect(agentHooks('cursor').events).not.toContain('beforeShellExecution');
  });

  it('answers nothing to the other agents', () => {
    for (const agent of HOOK_AGENTS.filter((a) => a !== 'cursor'))
      for (const event of agentHooks(agent).events) expect(agentHooks(agent).answer(event)).toBeNull();
  });
});
