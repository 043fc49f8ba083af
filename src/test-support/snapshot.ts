/**
 * A one-shot answer (`takeSnapshot`) as tests ask for it, with the options nearly all of them share
 * said once: retail prices, every harness, no `--since` and no `--until`. A test names only what it
 * is about (a harness, a clock, `--no-cache`, a plan). Two ways in: through the index as a bare
 * `cctop --json` answers, or every file read afresh on the test's own thread, as a harness's tests
 * compare its sessions.
 *
 * Not here: what a test checks of the answer, or homes and transcripts (`corpus.ts`, `owned.ts`).
 */
import { type Snapshot, type SnapshotOptions, takeSnapshot } from '../index/snapshot.js';

/** A bare one-shot's options in `env`, with `more` set over them. */
export function oneShotOptions(
  env: SnapshotOptions['env'],
  more: Partial<SnapshotOptions> = {},
): SnapshotOptions {
  return { env, plan: 'retail', providers: null, sinceMs: null, untilMs: null, ...more };
}

/** The answer a one-shot in `env` gives, through the index unless `more` says `useIndex: false`. */
export const snapshotIn = (
  env: SnapshotOptions['env'],
  more: Partial<SnapshotOptions> = {},
): Promise<Snapshot> => takeSnapshot(oneShotOptions(env, more));

/**
 * Every file read afresh, without the index (`--no-cache`), on this thread: a worker would load the
 * providers anew, where a test's spy or injected failure would not reach them.
 */
export const readCold = (
  env: SnapshotOptions['env'],
  more: Partial<SnapshotOptions> = {},
): Promise<Snapshot> => takeSnapshot(oneShotOptions(env, { useIndex: false, threads: 1, ...more }));
