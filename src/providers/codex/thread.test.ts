/**
 * A Codex thread's last running total, read from its rollout: over the rollout codex-cli 0.169.0
 * wrote for one thread run three times in the conformance lab (`test-support/codex-thread.ts`).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROLLOUT_BEFORE_THIRD_RUN, THREAD, writeRollout } from '../../test-support/codex-thread.js';
import { tempDir } from '../../test-support/corpus.js';
import { findRollout, lastRolloutTotal, MAX_ROLLOUT_TAIL_BYTES, threadTotal } from './thread.js';

let home: { dir: string; cleanup: () => void };
beforeEach(() => {
  home = tempDir('cctop-codex-home-');
});
afterEach(() => home.cleanup());

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

  it('is looked up under the Codex home the environment names, and absent where there is none', () => {
    writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    expect(threadTotal({ CODEX_HOME: home.dir }, THREAD)).toEqual(AFTER_SECOND);
    expect(threadTotal({ HOME: home.dir }, THREAD), 'no ~/.codex there').toBeNull();
  });
});
