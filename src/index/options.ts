/**
 * What opening the session index takes, and what a refresh says it did: the index's public face,
 * apart from the class itself (`session-index.ts`).
 */
import type { Annotator, Plan, SessionChanges, SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import type { Env } from '../providers/types.js';
import type { ScanStats, Strategy } from './strategies.js';

export interface IndexOptions {
  env: Env;
  plan: Plan;
  /** Only these harnesses; null for all. */
  providers: readonly ProviderId[] | null;
  timeZone?: string;
  sinceMs: number | null;
  untilMs: number | null;
  /** false for `--no-cache`: read every transcript and leave the index alone. */
  useIndex?: boolean;
  threads?: number;
  /** Fills in the process fields; left out, `running` stays null. */
  annotate?: Annotator;
  /**
   * The views that need every parsed file (`doctor`; a report the index cannot serve): answer only
   * by building, never from kept sessions.
   */
  needFiles?: boolean;
  /**
   * The index answers one refresh and is closed (a one-shot command): without an index, what the
   * refresh learned is never read again, so it takes no tail hashes (a long-running view does).
   */
  oneRefresh?: boolean;
  now?: () => number;
  /**
   * A one-shot that prints its answer before keeping it warm (`keep-one-shot.ts`) hands the keeping
   * here and runs it once the answer is out: writing the warm snapshot and document costs more than
   * printing the answer. Left out, the answer is kept as the refresh settles.
   */
  keepLater?: (keep: () => Promise<void>) => void;
  /**
   * Told while a refresh builds: before the first file is read and after each batch. A first build
   * of a large history takes seconds; a view shows how far it is and the sessions built so far.
   */
  onBuilding?: (b: BuildProgress) => void;
}

/** How far a build is. */
export interface BuildProgress {
  /** Files read so far, of how many this refresh reads. */
  files: number;
  filesTotal: number;
  /** Bytes read so far, of how many. */
  bytes: number;
  bytesTotal: number;
  /**
   * The document of the sessions built so far, newest first, as a view shows it; made when asked (not
   * free: ask when drawing). A session may still change once every file is read (a resumed session
   * whose parent replays into it); its problems are the build's, told with the answer.
   */
  document(): SessionDocument;
}

export interface Refreshed {
  strategy: Strategy;
  changes: SessionChanges;
  stats: ScanStats;
  /** Strategies that declined before the one that answered, and why. */
  declined: { strategy: Strategy; reason: string }[];
  /** Every directory discovery listed (a long-running view watches them). */
  listed: Set<string>;
}
