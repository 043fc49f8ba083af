/**
 * A Codex thread's running total and this run's share, over the rollout and exec lines codex-cli
 * 0.169.0 wrote for one thread run three times in the conformance lab (`test-support/codex-thread.ts`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexTokens } from '../../providers/codex/thread.js';
import { ROLLOUT_BEFORE_THIRD_RUN, THREAD, writeRollout } from '../../test-support/codex-thread.js';
import { tempDir } from '../../test-support/corpus.js';
import { planRequest } from '../request.js';
import { codex } from './codex.js';
import { codexBaseline, runShare } from './codex-thread.js';

let home: { dir: string; cleanup: () => void };
beforeEach(() => {
  home = tempDir('cctop-codex-home-');
});
afterEach(() => home.cleanup());

/** A run as drive plans it for Codex, new or resuming the recorded thread. */
const planIn = (resume?: string) =>
  planRequest(
    { agent: 'codex', prompt: '[lab:text] and again', cwd: home.dir, ...(resume ? { resume } : {}) },
    codex.caps,
  );

/** The thread's total after the second run, in cctop's terms (input uncached, cache apart). */
const AFTER_SECOND = { input: 40088 - 20043, output: 72, cacheRead: 20043, cacheWrite: null, reasoning: 22 };

describe("the thread's total before a run", () => {
  it('is read only for a resumed run, from the Codex home the agent will get', () => {
    writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    const resumed = planIn(THREAD);
    expect(codexBaseline(resumed, { CODEX_HOME: home.dir })).toEqual({ kind: 'known', tokens: AFTER_SECOND });
    expect(codexBaseline(resumed, { HOME: home.dir }), 'no ~/.codex there').toEqual({ kind: 'unknown' });
    expect(codexBaseline(planIn(), {})).toEqual({ kind: 'fresh' });
  });
});

describe("this run's share", () => {
  const third = codexTokens({
    input_tokens: 50338,
    cached_input_tokens: 25168,
    cache_write_input_tokens: 0,
    output_tokens: 95,
    reasoning_output_tokens: 30,
  });

  it('is the final total minus the one before, which is what the model was asked for', () => {
    expect(runShare(third, { kind: 'known', tokens: AFTER_SECOND })).toEqual({
      input: 5125,
      cacheRead: 5125,
      output: 23,
      reasoning: 8,
      cacheWrite: null,
    });
  });

  it('is unknown, never negative, when the total went down (the counter restarted)', () => {
    const restarted = { ...AFTER_SECOND, output: 1000 };
    expect(runShare(third, { kind: 'known', tokens: restarted })).toEqual({
      input: null,
      output: null,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
  });
});
