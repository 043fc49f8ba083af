import { describe, expect, it } from 'vitest';
import { shownState, UNRUN_WORKING_GRACE_MS, WORKING_TTL_MS } from './state.js';

const NOW = Date.parse('2026-12-07T06:00:00Z');
const SECOND = 1_000;

const working = (quietMs: number, running: boolean | null) => ({
  state: 'working' as const,
  running,
  lastActiveAt: new Date(NOW - quietMs).toISOString(),
});

describe('a working session nothing runs', () => {
  it('a run killed mid-turn (a driven run that timed out) reads idle once past the grace, not for 15 minutes', () => {
    expect(UNRUN_WORKING_GRACE_MS).toBeLessThan(WORKING_TTL_MS);
    expect(shownState(working(UNRUN_WORKING_GRACE_MS + SECOND, false), NOW)).toBe('idle');
    expect(shownState(working(WORKING_TTL_MS - SECOND, false), NOW)).toBe('idle');
  });

  it('within the grace it stays working: a process paired late is not called idle', () => {
    expect(shownState(working(5 * SECOND, false), NOW)).toBe('working');
  });

  it('a working session whose process runs, or whose process cctop cannot look for, is left as it is', () => {
    expect(shownState(working(WORKING_TTL_MS - SECOND, true), NOW)).toBe('working');
    expect(shownState(working(WORKING_TTL_MS - SECOND, null), NOW)).toBe('working');
  });

  it('a working session with no time on it and no process is idle', () => {
    expect(shownState({ state: 'working', running: false, lastActiveAt: null }, NOW)).toBe('idle');
  });
});

describe("the hooks' word on a turn nothing runs", () => {
  it('a working claim from hooks lapses past the grace once no process runs the session', async () => {
    const { HookStates } = await import('../live/hook-state.js');
    const { HOOK_EVENT_VERSION } = await import('../hooks/types.js');
    const h = new HookStates();
    h.add({
      v: HOOK_EVENT_VERSION,
      at: NOW - 5 * 60 * SECOND,
      agent: 'claude',
      event: 'UserPromptSubmit',
      session: 's1',
      cwd: '/w',
      notification: null,
      tool: null,
      permissionMode: 'default',
      transcript: null,
      input: null,
      ppid: null,
    });
    expect(h.claim('claude', 's1', true, NOW)?.state).toBe('working');
    expect(h.claim('claude', 's1', false, NOW)).toBeNull();
  });
});
