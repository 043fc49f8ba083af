/**
 * What a one-shot command's refresh leaves for the next one: its answer kept as the warm snapshot of
 * its scope (`warm.ts`, which `--list` and the reports print from) and as the warm document
 * (`warm-doc.ts`, which a bare `cctop --json` prints from before the command line loads). Kept only
 * when the answer is provably what they would print again: its problems are all ones a build keeps
 * (no notice, no file that could not be read), and the reader will find it under the same scope.
 *
 * It exists apart from `session-index.ts` because deciding that an answer may be kept is a job of its
 * own, done once per one-shot after the index has its answer; the index only hands the answer over.
 * Not here: the refresh that made the answer (`session-index.ts`, `strategies.ts`), how the snapshot
 * and the document are laid out or written (`warm.ts`, `warm-doc.ts`), or how they are read back.
 */
import { ProblemLog } from '../model/problems.js';
import type { LocalTime } from '../model/time.js';
import type { ProviderPlace } from '../providers/types.js';
import { addProblem } from './build-problems.js';
import type { IndexOptions } from './options.js';
import type { Discovery } from './scan.js';
import { rootPaths, scopeOf } from './scope.js';
import type { Answer } from './strategies.js';
import { GROWING_MS } from './warm-doc-layout.js';

/**
 * A patched answer is kept warm only once no transcript has been written for this long. An agent at
 * work writes its transcript every few seconds (each streamed message, each tool result), so a warm
 * answer made while one is written is stale by the next run, and making it (the snapshot and the
 * document, about 18 MB for 4,000 sessions) costs more than the patch that answered. Such a patch is
 * written back to the index instead (`strategies.ts` `byPatch`), so the first run after the writing
 * stops answers from the index as kept, and keeps that warm. A build's answer is always kept.
 */
export const KEEP_AFTER_QUIET_MS = 15_000;

/** A refresh's answer, trusted (the index was sound while giving it), and what it was made from. */
export interface OneShotAnswer {
  answer: Answer & { kind: 'answered' };
  log: ProblemLog;
  scope: string | null;
  nowMs: number;
  /**
   * When the last full look at the transcripts behind this answer was (`look-memory.ts`): the warm
   * files are marked as looked at then, so they are trusted no longer than the look they came from.
   */
  sweptAt: number;
  discovery: Discovery;
  /** Its digest (`kept.ts` `discoveryDigest`), as the pass worked it out: not worked out again here. */
  digest: string;
  /** Every directory discovery asked to list, with its time before the listing (one-shots only). */
  looked: Map<string, number> | null;
}

/** What the index was opened with: the kept answers are keyed by it. */
export interface OpenedWith {
  options: IndexOptions;
  places: readonly ProviderPlace[];
  /** The price catalogue's digest. */
  catalogue: string;
  time: LocalTime;
}

/**
 * Keep a one-shot's answer as the warm snapshot and the warm document, when it may be kept. Their
 * writers (and the `--list` layout and quota readers the document's list part needs) are loaded
 * only then: an answer not kept does not pay for them.
 */
export async function keepOneShot(t: OneShotAnswer, w: OpenedWith): Promise<void> {
  const { answer, log, scope, nowMs, sweptAt, looked, discovery, digest } = t;
  const o = w.options;
  if (looked === null || scope === null || answer.problems === null || o.needFiles === true) return;
  if (answer.strategy === 'patched' && stillWritten(discovery, nowMs)) return;
  const again = new ProblemLog();
  for (const k of answer.problems) addProblem(k.problem, k.after, nowMs, again, undefined);
  if (again.dropped !== log.dropped || JSON.stringify(again.list) !== JSON.stringify(log.list)) return;
  if (scopeOf(o, w.places, rootPaths(o.env, w.places), w.catalogue, w.time, nowMs) !== scope) return;
  const { keepWarm } = await import('./warm.js');
  const { keepWarmDoc } = await import('./warm-doc.js');
  // What both warm files are written from: the snapshot behind the usage views and the document.
  const kept = {
    env: o.env,
    scope,
    digest,
    nowMs,
    sweptAt,
    unchanged: answer.strategy === 'kept',
    looked,
    files: discovery.files,
    held: answer.held,
    problems: answer.problems,
  };
  keepWarm(kept);
  keepWarmDoc({
    ...kept,
    options: o,
    places: w.places,
    catalogue: w.catalogue,
    time: w.time,
    growingMs: GROWING_MS,
  });
}

/** Whether a transcript was written in the last `KEEP_AFTER_QUIET_MS` (a time ahead of the clock is not counted). */
export function stillWritten(discovery: Discovery, nowMs: number): boolean {
  for (const f of discovery.files) {
    const age = nowMs - f.mtimeMs;
    if (age >= 0 && age < KEEP_AFTER_QUIET_MS) return true;
  }
  return false;
}
