/**
 * cctop as a library: the same session index the terminal table, `serve` and `cctop --json` read,
 * for scripts and tools of your own. See docs/library.md.
 *
 * ```js
 * import { openIndex } from 'cctop';
 * const index = openIndex();
 * await index.refresh();
 * for (const s of index.sessions()) console.log(s.provider, s.id, s.cost.usd);
 * ```
 *
 * What is exported here is promised (semver); anything imported from deeper paths is not. Running
 * agents headlessly is the other half, `cctop/drive`.
 */

import { type IndexOptions, SessionIndex } from './index/session-index.js';
import type { Annotator, Plan } from './model/document.js';
import type { ProviderId } from './model/facts.js';
import type { Env } from './providers/types.js';

export type { IndexOptions, Refreshed } from './index/session-index.js';
export { SessionIndex } from './index/session-index.js';
/** An annotator that matches running agent processes to sessions (what the live table uses). */
export { processAnnotator } from './live/annotate.js';
export type { Collision, CollisionLevel, CollisionWriter } from './model/collision.js';
export type {
  DaySeries,
  HourSeries,
  ModelCost,
  Plan,
  SessionChanges,
  SessionCost,
  SessionDoc,
  SessionDocument,
  SessionRef,
} from './model/document.js';
export type { ProviderId } from './model/facts.js';
export type { Problem } from './model/problems.js';
export type { SessionState } from './model/state.js';
export type { DocumentTotals, SpendTotals } from './model/totals.js';
export type { TokenCounts } from './model/usage.js';

export interface OpenOptions {
  /** Where to look (HOME, CODEX_HOME, …); `process.env` when left out. */
  env?: Env;
  /** How spend is shown: `retail` (default), `max` or `included` (as `--plan`). */
  plan?: Plan;
  /** Only these harnesses; all when left out. */
  providers?: readonly ProviderId[];
  /** Days and hours in this IANA zone; the system's when left out. */
  timeZone?: string;
  /** Only what happened in [since, until). */
  since?: Date;
  until?: Date;
  /** Fills in the process fields (`running`, `process`); left out, `running` stays null. */
  annotate?: Annotator;
  /** false: read every transcript and leave the index alone (as `--no-cache`). */
  useIndex?: boolean;
}

/**
 * The session index for these options. Opening reads nothing: `refresh()` reads what changed since
 * the last run (of this or any other cctop), `peek()` shows what the index kept without reading any
 * transcript.
 */
export function openIndex(o: OpenOptions = {}): SessionIndex {
  const options: IndexOptions = {
    env: o.env ?? process.env,
    plan: o.plan ?? 'retail',
    providers: o.providers ?? null,
    sinceMs: o.since?.getTime() ?? null,
    untilMs: o.until?.getTime() ?? null,
    ...(o.timeZone ? { timeZone: o.timeZone } : {}),
    ...(o.annotate ? { annotate: o.annotate } : {}),
    ...(o.useIndex === false ? { useIndex: false } : {}),
  };
  return SessionIndex.open(options);
}
