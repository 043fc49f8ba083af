/**
 * A Codex thread's running total and this run's share, over the rollout and exec lines codex-cli
 * 0.169.0 wrote for one thread run three times in the conformance lab (`test-support/codex-thread.ts`).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { MAX_ROLLOUT_TAIL_BYTES } from '../bounds.js';
import type { Plan, SessionPlan } from '../request.js';
import { ROLLOUT_BEFORE_THIRD_RUN, THREAD, writeRollout } from '../test-support/codex-thread.js';
import { codexBaseline, codexTokens, findRollout, lastRolloutTotal, runShare } from './codex-thread.js';

let home: { dir: string; cleanup: () => void };
beforeEach(() => {
  home = tempDir('cctop-codex-home-');
});
afterEach(() => home.cleanup());

const planIn = (session: SessionPlan): Plan => ({
  agent: 'codex',
  prompt: '[lab:text] and again',
  system: null,
  model: null,
  effort: null,
  permission: 'read-only',
  format: 'stream',
  cwd: '/w',
  addDirs: [],
  schema: null,
  session,
  approvals: false,
  interactive: false,
  thinking: null,
});

/** The thread's total after the second run, in cctop's terms (input uncached, cache apart). */
const AFTER_SECOND = { input: 40088 - 20043, output: 72, cacheRead: 20043, cacheWrite: null, reasoning: 22 };

describe("the thread's total before a run", () => {
  it("is the last token_count in the thread's rollout, found by the thread id", () => {
    const path = writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    expect(findRollout(home.dir, THREAD)).toBe(path);
    expect(lastRolloutTotal(path)).toEqual(AFTER_SECOND);
  });

  it('is found in the newest date folder first, and in the archive last', () => {
    writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN.slice(0, 2), '2026/11/30');
    const newer = writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN, '2026/12/01');
    expect(findRollout(home.dir, THREAD)).toBe(newer);
    const archive = join(home.dir, 'archived_sessions');
    mkdirSync(archive);
    const archived = join(archive, 'rollout-2026-12-01T21-14-33-01a23375-0000-7602-8370-ca44962e5488.jsonl');
    writeFileSync(archived, '');
    expect(findRollout(home.dir, '01a23375-0000-7602-8370-ca44962e5488')).toBe(archived);
    expect(findRollout(home.dir, '01a23375-ffff-7602-8370-ca44962e5488')).toBeNull();
  });

  it('is not hidden by a line longer than one read written after it', () => {
    const path = writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    // A tool's output written after the last count: 200 KiB of multi-byte characters.
    const output = 'é'.repeat(100 * 1024);
    appendFileSync(
      path,
      `${JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output } })}\n`,
    );
    expect(lastRolloutTotal(path)).toEqual(AFTER_SECOND);
  });

  it('is unknown, not guessed, when it lies further back than MAX_ROLLOUT_TAIL_BYTES', () => {
    const path = writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    appendFileSync(path, `${'x'.repeat(MAX_ROLLOUT_TAIL_BYTES)}\n`);
    expect(lastRolloutTotal(path)).toBeNull();
  });

  it('is read only for a resumed run, from the Codex home the agent will get', () => {
    writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    const resumed = planIn({ kind: 'resume', id: THREAD, fork: false });
    expect(codexBaseline(resumed, { CODEX_HOME: home.dir })).toEqual({ kind: 'known', tokens: AFTER_SECOND });
    expect(codexBaseline(resumed, { HOME: home.dir }), 'no ~/.codex there').toEqual({ kind: 'unknown' });
    expect(codexBaseline(planIn({ kind: 'new' }), {})).toEqual({ kind: 'fresh' });
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
