import { describe, expect, it } from 'vitest';
import {
  countStates,
  type ShownStateInputs,
  shownState,
  UNSEEN_WAITING_TTL_MS,
  WORKING_TTL_MS,
} from './state.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A session whose files say `state`, last active `quietMs` ago. */
const quiet = (quietMs: number, running: boolean | null, state: ShownStateInputs['state'] = 'waiting') => ({
  state,
  running,
  lastActiveAt: new Date(NOW - quietMs).toISOString(),
});

describe('the waiting rule', () => {
  it('a question whose process runs stays open however long it waits', () => {
    expect(shownState(quiet(70 * DAY, true), NOW)).toBe('waiting');
  });

  it('a question whose process cctop looked for and did not find lapses after the working lapse', () => {
    expect(shownState(quiet(WORKING_TTL_MS - MINUTE, false), NOW)).toBe('waiting');
    expect(shownState(quiet(WORKING_TTL_MS + MINUTE, false), NOW)).toBe('idle');
  });

  it('a question whose process cctop cannot look for lapses after a day of quiet', () => {
    expect(shownState(quiet(2 * 60 * MINUTE, null), NOW)).toBe('waiting');
    expect(shownState(quiet(UNSEEN_WAITING_TTL_MS + MINUTE, null), NOW)).toBe('idle');
  });

  it('the 65-to-79-day-old questions of the report read as idle with no process, whoever asked them', () => {
    for (const days of [65, 79]) {
      expect(shownState(quiet(days * DAY, false), NOW)).toBe('idle');
      expect(shownState(quiet(days * DAY, null), NOW)).toBe('idle');
    }
  });

  it('a question with no time on it is not shown as open unless its process runs', () => {
    expect(shownState({ state: 'waiting', running: null, lastActiveAt: null }, NOW)).toBe('idle');
    expect(shownState({ state: 'waiting', running: true, lastActiveAt: null }, NOW)).toBe('waiting');
  });

  it('other states pass through unchanged', () => {
    for (const state of ['error', 'idle'] as const)
      expect(shownState(quiet(70 * DAY, false, state), NOW)).toBe(state);
    for (const running of [true, null])
      expect(shownState(quiet(70 * DAY, running, 'working'), NOW)).toBe('working');
  });

  it('applying the rule to what it returned changes nothing', () => {
    for (const running of [true, false, null])
      for (const ago of [MINUTE, 2 * 60 * MINUTE, 2 * DAY]) {
        const once = shownState(quiet(ago, running), NOW);
        expect(shownState({ ...quiet(ago, running), state: once }, NOW)).toBe(once);
      }
  });

  it('counts each session in the state the rule shows it in, the probable waits beside', () => {
    const counts = countStates(
      [
        { ...quiet(MINUTE, false), inferred: null },
        { ...quiet(70 * DAY, false), inferred: null },
        { ...quiet(70 * DAY, null), inferred: null },
        { ...quiet(70 * DAY, true), inferred: null },
        { ...quiet(MINUTE, true, 'working'), inferred: 'probably-waiting' as const },
      ],
      NOW,
    );
    expect(counts).toEqual({ working: 1, waiting: 2, error: 0, idle: 2, probablyWaiting: 1 });
  });
});
