/**
 * A session's head, declared once: what the index knows of a session without reading its record's
 * facts. Three holders share it: the sealed record's binary head (`record-head.ts`), the session the
 * index holds between refreshes (`held.ts`), and the warm snapshot's header (`warm-layout.ts`). Each
 * takes its fields from here, so a field added to a head is added to all three, or none compiles.
 *
 * Types only: it loads nothing, so every layer of the index (the codec below the build, the warm
 * snapshot that loads no SQLite) may import it without importing another's code.
 *
 * Not here: how a head is sealed and read (`record-head.ts`), how a warm file's header is narrowed
 * back into one (`warm-layout.ts`), the order of any encoding (each encoder names its own).
 */
import type { SessionDoc } from '../model/document.js';
import type { LiveSignal } from '../model/state.js';
import type { Tally } from '../model/totals.js';

/** What the live state is worked out from, at any moment (`stateNow`). */
export interface LiveInputs {
  signal: LiveSignal | null;
  /** Newest modification time of the session's files (ms). */
  mtime: number;
  /** Newest record time (ms), or null. */
  lastMs: number | null;
}

/**
 * Who a session is, where it lies and what its state is worked out from: all that joining its live
 * fields at a moment reads (`shownOf`). The named fields mean what the session document's do.
 */
export interface SessionHead
  extends Pick<SessionDoc, 'provider' | 'id' | 'file' | 'project' | 'lastActiveAt' | 'deleted'> {
  live: LiveInputs;
}

/** A head's fields: everything a run that changes nothing needs of a session to order, annotate, total and print it. */
export interface HeadFields extends SessionHead {
  tally: Tally;
  /** Tokens per model without a price, for the document's unpriced-model problems. */
  unpriced: [string, number][];
}
