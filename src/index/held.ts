/**
 * A session as the index holds it between refreshes: a kept row's head (its facts still as text,
 * decoded on first use) or a record just built. Both answer the same questions, so the index never
 * asks where a session came from.
 *
 * Not here: the clock or the process table (`shownOf` joins them at a moment, `render.ts` prints).
 */
import type { SpendBuckets } from '../model/cost.js';
import type { SessionDoc, SessionLiveFields } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { stateNow } from '../model/state.js';
import { type Tally, tallyOf } from '../model/totals.js';
import { docOf, type ShowClock } from './render.js';
import {
  decodeFacts,
  type FactsText,
  factsText,
  type KeptHead,
  type LiveInputs,
  type SessionRecord,
} from './session-record.js';

export interface Held {
  key: string;
  /** The inputs it was built from: two with the same key and signature have the same facts. */
  signature: string;
  provider: ProviderId;
  id: string;
  file: string;
  project: string | null;
  lastActiveAt: string | null;
  deleted: boolean;
  live: LiveInputs;
  spend: SpendBuckets;
  unpriced: [string, number][];
  tally: Tally;
  /** The whole record, decoded on first use. */
  record(): SessionRecord;
  /** Its facts as the index keeps them and the printer joins them (`FactsText`), made once. */
  text(): FactsText;
}

/** A record just built (or reused from the last build) as held. */
export function heldOfRecord(r: SessionRecord): Held {
  let text: FactsText | null = null;
  return {
    key: r.key,
    signature: r.signature,
    provider: r.facts.provider,
    id: r.facts.id,
    file: r.facts.file,
    project: r.facts.project,
    lastActiveAt: r.facts.lastActiveAt,
    deleted: r.facts.deleted,
    live: r.live,
    spend: r.spend,
    unpriced: r.unpriced,
    tally: tallyOf(r.facts),
    record: () => r,
    text: () => {
      text ??= factsText(r.facts);
      return text;
    },
  };
}

/** A kept row's head as held; its facts are parsed the first time a view asks for the session. */
export function heldOfHead(h: KeptHead): Held {
  let record: SessionRecord | null = null;
  return {
    key: h.key,
    signature: h.signature,
    provider: h.provider,
    id: h.id,
    file: h.file,
    project: h.project,
    lastActiveAt: h.lastActiveAt,
    deleted: h.deleted,
    live: h.live,
    spend: h.spend,
    unpriced: h.unpriced,
    tally: h.tally,
    record: () => {
      if (record === null) {
        const facts = decodeFacts(h);
        // The row passed its checksum when read: facts that do not decode are this code's own bug.
        if (facts === null)
          throw new Error(`the kept session ${h.key} passed its checksum but does not decode`);
        record = {
          key: h.key,
          signature: h.signature,
          facts,
          spend: h.spend,
          live: h.live,
          unpriced: h.unpriced,
        };
      }
      return record;
    },
    text: () => h.facts,
  };
}

/** A session's live fields at a moment, before processes are looked up: what an annotator settles. */
export interface Shown extends SessionLiveFields {
  stateDetail: string | null;
}

export function shownOf(h: Held, nowMs: number): Shown {
  const signal = h.live.signal;
  return {
    provider: h.provider,
    id: h.id,
    file: h.file,
    project: h.project,
    lastActiveAt: h.lastActiveAt,
    deleted: h.deleted,
    state: stateNow(signal, h.live.mtime, h.live.lastMs, nowMs),
    stateDetail: signal?.detail ?? null,
    pendingTool: signal?.pendingTool ?? null,
    running: null,
    inferred: null,
    process: null,
  };
}

/** The session's document at `clock`, with the live fields as shown (annotated). */
export function docOfHeld(h: Held, s: Shown, clock: ShowClock): SessionDoc {
  const doc = docOf(h.record(), clock);
  doc.state = s.state;
  doc.stateDetail = s.stateDetail;
  doc.running = s.running;
  doc.process = s.process;
  doc.pendingTool = s.pendingTool;
  doc.inferred = s.inferred;
  return doc;
}

/** What a view would redraw for in a session's live fields. */
export function liveStamp(s: Shown): string {
  const p = s.process;
  return `${s.state}|${s.stateDetail}|${s.pendingTool}|${s.running}|${s.inferred}|${
    p === null ? '' : `${p.pids.join(',')}:${p.cpu}:${p.memory}:${p.command}`
  }`;
}
