/**
 * Showing a kept session: its record joined with what moves (the state read against the clock, the
 * spend windows ending this hour and today, the process fields an annotator fills in), and the
 * session document as the JSON `cctop --json` prints.
 *
 * Printing is the last step and happens here only. A warm `cctop --json` prints 7 MB for 4,000
 * sessions; parsing and serialising every record again would double its time, so the index keeps a
 * record's facts as JSON member lists (`FactsText`) and the printer joins them, as they are, with the
 * members it writes itself (the live fields, the spend windows), in an order decided here. Nothing
 * searches printed text for a key.
 *
 * Not here: building records (`sessions.ts`) or storing them (`store.ts`).
 */
import { spendWindows } from '../model/cost.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { stateNow } from '../model/state.js';
import type { LocalTime } from '../model/time.js';
import { asciiJson, membersOf } from './ascii.js';
import { liveMembers, windowsTail } from './live-text.js';
import type { FactsText, LiveKey, SessionRecord } from './session-record.js';

export { asciiJson } from './ascii.js';
export { windowsMembers } from './live-text.js';

/** The moment a session is shown at. */
export interface ShowClock {
  time: LocalTime;
  nowMs: number;
}

/** The session's document at `clock`, with no process looked up yet (`running` null). */
export function docOf(r: SessionRecord, clock: ShowClock): SessionDoc {
  const { cost, ...facts } = r.facts;
  const signal = r.live.signal;
  const windows = cost.usd === null ? null : spendWindows(r.spend, clock.time, clock.nowMs);
  return {
    ...facts,
    state: stateNow(signal, r.live.mtime, r.live.lastMs, clock.nowMs),
    stateDetail: signal?.detail ?? null,
    stateSource: 'inferred',
    running: null,
    process: null,
    pendingTool: signal?.pendingTool ?? null,
    inferred: null,
    cost: { ...cost, byHour: windows?.byHour ?? null, byDay: windows?.byDay ?? null },
  };
}

/** What is shown of a session besides its facts and its spend windows. */
export type SessionLive = Pick<SessionDoc, LiveKey>;

/**
 * Shared texts kept encoded (`ByteWriter.shared`). The texts that repeat are the live members and
 * windows `live-text.ts` makes once each, a few dozen at most; the bound keeps a long-running view
 * from keeping every text it printed, one that names a process for instance.
 */
const MAX_SHARED_BYTES = 128;
const sharedBytes = new Map<string, Buffer>();

/**
 * A document written straight into one buffer, for a printer that holds its sessions' facts as
 * ranges of larger buffers (a kept pack, the warm snapshot): no chunk list, no view per range, one
 * copy of each byte. Text here is ASCII, one byte per character. It grows by doubling.
 */
export class ByteWriter {
  private out: Buffer;
  private at = 0;

  constructor(sizeHint: number) {
    this.out = Buffer.allocUnsafe(Math.max(sizeHint, 1024));
  }

  private room(n: number): void {
    if (this.at + n <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + n));
    this.out.copy(grown, 0, 0, this.at);
    this.out = grown;
  }

  text(s: string): void {
    this.room(s.length);
    this.at += this.out.write(s, this.at, 'latin1');
  }

  /** One ASCII character (`{`, `,`), by its code: no string is encoded for it. */
  char(code: number): void {
    this.room(1);
    this.out[this.at++] = code;
  }

  /**
   * A text many sessions share (the live members of an idle session, the windows of a quiet one),
   * its bytes encoded once and copied after: a document of 4,000 sessions wrote 15,000 such texts,
   * and `Buffer#write` checks its encoding and offsets each time.
   */
  shared(s: string): void {
    let b = sharedBytes.get(s);
    if (b === undefined) {
      if (sharedBytes.size >= MAX_SHARED_BYTES) {
        this.text(s);
        return;
      }
      b = Buffer.from(s, 'latin1');
      sharedBytes.set(s, b);
    }
    this.room(b.length);
    this.out.set(b, this.at);
    this.at += b.length;
  }

  /**
   * `from`'s bytes `start` to `end`. Through a plain view and `set`: `Buffer#copy` checks and
   * converts its four arguments on every call, which, for two ranges a session, cost half the time
   * of printing 4,000 (code that runs once is not compiled).
   */
  bytes(from: Buffer, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    this.out.set(new Uint8Array(from.buffer, from.byteOffset + start, n), this.at);
    this.at += n;
  }

  /** How many bytes were written so far. */
  get size(): number {
    return this.at;
  }

  /** What was written (a view: the writer is done with). */
  done(): Buffer {
    return this.out.subarray(0, this.at);
  }
}

const OPEN_BRACE = 0x7b;
const COMMA = 0x2c;

/**
 * One session's JSON into `w`, in the order `JSON.stringify(docOf(…))` writes it: its facts' members
 * (`facts` to `cost` in `from`), its live members, its cost's members (`cost` to `spend`), its spend
 * windows. The facts and cost are the ranges a sealed record keeps them in (`session-record.ts`), so a
 * kept session is printed from its record's bytes as they are, with nothing made per session but the
 * few bytes of what moves.
 */
export function writeSession(
  w: ByteWriter,
  from: Buffer,
  facts: number,
  cost: number,
  spend: number,
  l: SessionLive,
  windows: string,
): void {
  w.char(OPEN_BRACE);
  w.bytes(from, facts, cost);
  w.shared(liveMembers(l));
  w.bytes(from, cost, spend);
  w.shared(windowsTail(windows));
}

/** As `writeSession`, from facts held as their own two texts (`FactsText`: a record just built). */
export function writeSessionText(w: ByteWriter, p: FactsText, l: SessionLive, windows: string): void {
  w.char(OPEN_BRACE);
  w.bytes(p.members, 0, p.members.length);
  w.shared(liveMembers(l));
  w.bytes(p.cost, 0, p.cost.length);
  w.shared(windowsTail(windows));
}

/**
 * The document around its sessions, into one buffer (`ByteWriter`): `session(i, w)` writes the i-th
 * session. One buffer, so an answer is one write.
 */
export function documentBytes(
  frame: Omit<SessionDocument, 'sessions'>,
  count: number,
  sizeHint: number,
  session: (i: number, w: ByteWriter) => void,
  /** Text after the document (a newline for a terminal or a file). */
  after = '',
): Buffer {
  const w = new ByteWriter(sizeHint);
  w.text(documentHead(frame));
  for (let i = 0; i < count; i++) {
    if (i > 0) w.char(COMMA);
    session(i, w);
  }
  w.text(documentTail(frame));
  w.text(after);
  return w.done();
}

/** The document up to its first session. */
export function documentHead(frame: Omit<SessionDocument, 'sessions'>): string {
  const head = membersOf({
    version: frame.version,
    generatedAt: frame.generatedAt,
    plan: frame.plan,
    timeZone: frame.timeZone,
  });
  return `{${head},"sessions":[`;
}

/** The document after its last session. */
export function documentTail(frame: Omit<SessionDocument, 'sessions'>): string {
  const tail = { problems: frame.problems, totals: frame.totals };
  return `],${membersOf(frame.collisions === undefined ? tail : { ...tail, collisions: frame.collisions })}}`;
}

/** A whole document of session objects, as `cctop --json` prints it. */
export const documentJson = (doc: SessionDocument): Buffer =>
  documentBytes(doc, doc.sessions.length, 0, (i, w) => w.text(asciiJson(JSON.stringify(doc.sessions[i]))));

/** Newest first, then by id and provider: plain comparisons, as ISO timestamps sort by code unit. */
export function sortSessions<T extends Pick<SessionDoc, 'lastActiveAt' | 'id' | 'provider'>>(
  sessions: T[],
): T[] {
  return sessions.sort((a, b) => {
    const p = a.lastActiveAt ?? '';
    const q = b.lastActiveAt ?? '';
    if (p !== q) return p < q ? 1 : -1;
    if (a.id !== b.id) return a.id < b.id ? -1 : 1;
    return a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0;
  });
}
