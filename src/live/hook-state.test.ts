import { describe, expect, it } from 'vitest';
import { HOOK_EVENT_VERSION, type HookEvent } from '../hooks/types.js';
import type { SessionLiveFields } from '../model/document.js';
import { WORKING_TTL_MS } from '../model/state.js';
import { settleStates } from './annotate.js';
import {
  type Claimed,
  decide,
  HookStates,
  MAX_EVENTS_PER_SESSION,
  MAX_HOOK_SESSIONS,
  PERMISSION_HOLD_MS,
  registryIndex,
} from './hook-state.js';

const NOW = Date.parse('2026-12-02T05:00:00Z');
const ID = '5b0f6f0e-3c1d-4a57-9a57-1f4f2b8f2c11';

function ev(event: string, at: number, over: Partial<HookEvent> = {}): HookEvent {
  return {
    v: HOOK_EVENT_VERSION,
    at,
    agent: 'claude',
    event,
    session: ID,
    cwd: '/work/app',
    notification: null,
    tool: null,
    permissionMode: 'default',
    transcript: null,
    input: null,
    ppid: null,
    ...over,
  };
}

function hooksOf(...events: HookEvent[]): HookStates {
  const h = new HookStates();
  for (const e of events) h.add(e);
  return h;
}

const stateAt = (h: HookStates, nowMs: number, running: boolean | null = true) =>
  h.claim('claude', ID, running, nowMs)?.state ?? null;

describe('the state the hooks give a session', () => {
  it('goes working, waiting on a permission request, working again, then idle when the turn ends', () => {
    const t = NOW - 60_000;
    const h = hooksOf(ev('UserPromptSubmit', t), ev('PreToolUse', t + 1000, { tool: 'Bash' }));
    expect(stateAt(h, t + 2000)).toBe('working');
    h.add(ev('PermissionRequest', t + 3000, { tool: 'Bash' }));
    const asked = h.claim('claude', ID, true, t + 3000 + PERMISSION_HOLD_MS + 1);
    expect(asked).toMatchObject({ state: 'waiting', source: 'hook' });
    expect(asked?.detail).toContain('Bash');
    h.add(ev('PostToolUse', t + 20_000, { tool: 'Bash' }));
    expect(stateAt(h, t + 21_000)).toBe('working');
    h.add(ev('Stop', t + 30_000));
    expect(stateAt(h, t + 31_000)).toBe('idle');
  });

  it('never shows a permission request answered within the hold as waiting', () => {
    const h = hooksOf(
      ev('PreToolUse', NOW - 500, { tool: 'Edit' }),
      ev('PermissionRequest', NOW - 400, { tool: 'Edit' }),
    );
    expect(stateAt(h, NOW)).toBe('working');
    h.add(ev('PostToolUse', NOW - 300, { tool: 'Edit' }));
    expect(stateAt(h, NOW + PERMISSION_HOLD_MS * 2)).toBe('working');
  });

  it('says when a held request will show, so a view can look again then', () => {
    const h = hooksOf(ev('PermissionRequest', NOW, { tool: 'Bash' }));
    expect(h.nextChange(NOW)).toBe(NOW + PERMISSION_HOLD_MS);
    expect(h.nextChange(NOW + PERMISSION_HOLD_MS)).toBeNull();
  });

  it('tells a wait by what it asks to run, even after a notification that names no tool', () => {
    const h = hooksOf(
      ev('PreToolUse', NOW - 9000, { tool: 'Bash', input: 'rm -rf build' }),
      ev('PermissionRequest', NOW - 8900, { tool: 'Bash', input: 'rm -rf build' }),
    );
    expect(h.claim('claude', ID, true, NOW)?.detail).toBe('Bash: rm -rf build');
    h.add(ev('Notification', NOW - 3000, { notification: 'permission_prompt' }));
    expect(h.claim('claude', ID, true, NOW)).toMatchObject({
      state: 'waiting',
      detail: 'Bash: rm -rf build',
    });
  });

  it('reads a notification by its type: a permission prompt waits, a login notice says nothing', () => {
    const h = hooksOf(ev('UserPromptSubmit', NOW - 90_000));
    h.add(ev('Notification', NOW - 60_000, { notification: 'auth_success' }));
    expect(stateAt(h, NOW)).toBe('working');
    h.add(ev('Notification', NOW - 30_000, { notification: 'permission_prompt' }));
    expect(h.claim('claude', ID, true, NOW)).toMatchObject({ state: 'waiting', detail: 'permission_prompt' });
  });

  it('gives error when the turn failed, and idle when the session ended', () => {
    expect(stateAt(hooksOf(ev('UserPromptSubmit', NOW - 5000), ev('StopFailure', NOW - 4000)), NOW)).toBe(
      'error',
    );
    expect(stateAt(hooksOf(ev('UserPromptSubmit', NOW - 5000), ev('SessionEnd', NOW - 4000)), NOW)).toBe(
      'idle',
    );
  });

  it('holds while the process runs, and lapses after the working lapse when none does', () => {
    const h = hooksOf(ev('PermissionRequest', NOW - WORKING_TTL_MS - 60_000, { tool: 'Bash' }));
    expect(stateAt(h, NOW, true)).toBe('waiting');
    expect(stateAt(h, NOW, false)).toBeNull();
    expect(stateAt(h, NOW, null)).toBeNull();
    expect(stateAt(hooksOf(ev('PermissionRequest', NOW - 60_000, { tool: 'Bash' })), NOW, false)).toBe(
      'waiting',
    );
  });

  it('keeps events in time order when two hook processes land out of order', () => {
    const h = hooksOf(ev('Stop', NOW - 1000), ev('PostToolUse', NOW - 1001, { tool: 'Bash' }));
    expect(stateAt(h, NOW)).toBe('idle');
  });

  it('keeps a bounded trail per session and forgets the session heard from longest ago', () => {
    const h = new HookStates();
    for (let i = 0; i < MAX_EVENTS_PER_SESSION + 10; i++)
      h.add(ev('PostToolUse', NOW - 100_000 + i, { tool: 'Bash' }));
    expect(h.trail('claude', ID)).toHaveLength(MAX_EVENTS_PER_SESSION);
    for (let i = 0; i < MAX_HOOK_SESSIONS; i++) h.add(ev('Stop', NOW, { session: `other-${i}` }));
    expect(h.size).toBe(MAX_HOOK_SESSIONS);
    expect(h.trail('claude', ID)).toHaveLength(0);
    expect(h.trail('claude', `other-${MAX_HOOK_SESSIONS - 1}`)).toHaveLength(1);
  });

  it('ignores an event that names no session', () => {
    const h = new HookStates();
    expect(h.add(ev('Stop', NOW, { session: null }))).toBe(false);
    expect(h.size).toBe(0);
  });
});

describe('deciding between the hooks, the registry and the inference', () => {
  const session: Claimed = {
    provider: 'claude',
    id: ID,
    running: true,
    inferred: 'working',
    pendingTool: null,
  };

  it('takes the hooks over the registry, and the registry over the inference', () => {
    const registry = registryIndex([
      { provider: 'claude', sessionId: ID, state: 'idle', detail: null, atMs: NOW - 1000 },
    ]);
    expect(decide(session, hooksOf(ev('UserPromptSubmit', NOW - 2000)), registry, NOW)).toMatchObject({
      state: 'working',
      source: 'hook',
    });
    expect(decide(session, new HookStates(), registry, NOW)).toMatchObject({
      state: 'idle',
      source: 'registry',
    });
    expect(decide(session, new HookStates(), null, NOW)).toBeNull();
  });

  it('shows a question to the user as waiting when the files say the tool the hooks saw start is pending', () => {
    const h = hooksOf(ev('PreToolUse', NOW - 10_000, { tool: 'AskUserQuestion' }));
    const claim = decide({ ...session, inferred: 'waiting', pendingTool: 'AskUserQuestion' }, h, null, NOW);
    expect(claim).toMatchObject({ state: 'waiting', source: 'hook', detail: 'AskUserQuestion' });
    // Another tool pending: the hooks' word stands.
    expect(decide({ ...session, inferred: 'waiting', pendingTool: 'Bash' }, h, null, NOW)?.state).toBe(
      'working',
    );
  });
});

describe('settling states with the agents’ word', () => {
  function shown(over: Partial<SessionLiveFields> = {}): SessionLiveFields {
    return {
      provider: 'claude',
      id: ID,
      file: `/home/u/.claude/projects/-work-app/${ID}.jsonl`,
      project: '/work/app',
      lastActiveAt: new Date(NOW - 40_000).toISOString(),
      deleted: false,
      state: 'working',
      stateDetail: null,
      stateSource: 'inferred',
      pendingTool: 'Bash',
      running: true,
      inferred: 'probably-waiting',
      process: null,
      ...over,
    };
  }

  it('marks a state the hooks gave as theirs, with what is asked, and drops the guess', () => {
    const h = hooksOf(ev('PermissionRequest', NOW - 30_000, { tool: 'Bash' }));
    const s = shown();
    expect(settleStates([s], NOW, (c, t) => decide(c, h, null, t))).toBe(true);
    expect(s).toMatchObject({ state: 'waiting', stateSource: 'hook', inferred: null });
    expect(s.stateDetail).toContain('Bash');
  });

  it('leaves the inferred state, marked so, when the agents say nothing', () => {
    const s = shown({ inferred: null });
    settleStates([s], NOW, () => null);
    expect(s).toMatchObject({ state: 'working', stateSource: 'inferred' });
  });

  it('never lets a hook speak for a deleted session', () => {
    const h = hooksOf(ev('PermissionRequest', NOW - 30_000, { tool: 'Bash' }));
    const s = shown({ deleted: true, inferred: null, state: 'idle', pendingTool: null });
    settleStates([s], NOW, (c, t) => decide(c, h, null, t));
    expect(s).toMatchObject({ state: 'idle', stateSource: 'inferred' });
  });
});
