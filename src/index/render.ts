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
 * Where a document is printed: text (ASCII, one byte per character) and ranges of the buffers that
 * hold the sessions' facts. `ByteWriter` copies everything into one buffer; `PartsWriter` keeps the
 * ranges where they lie, for a writer that hands them to the kernel as they are.
 */
export interface JsonWriter {
  text(s: string): void;
  char(code: number): void;
  shared(s: string): void;
  bytes(from: Uint8Array, start: number, end: number): void;
}

/** `s`'s bytes, encoded once (`JsonWriter.shared`), or null once the cache is full. */
function sharedOf(s: string): Buffer | null {
  let b = sharedBytes.get(s);
  if (b === undefined) {
    if (sharedBytes.size >= MAX_SHARED_BYTES) return null;
    b = Buffer.from(s, 'latin1');
    sharedBytes.set(s, b);
  }
  return b;
}

/**
 * What both writers share: text, characters and shared texts go into `buf` at `at`, after `room` has
 * made space for them (`ByteWriter` grows its one buffer, `PartsWriter` starts a new piece).
 */
abstract class ScratchWriter implements JsonWriter {
  protected abstract buf: Buffer;
  protected at = 0;

  /** Space for `n` more bytes in `buf` at `at`. */
  protected abstract room(n: number): void;

  abstract bytes(from: Uint8Array, start: number, end: number): void;

  text(s: string): void {
    this.room(s.length);
    this.at += this.buf.write(s, this.at, 'latin1');
  }

  /** One ASCII character (`{`, `,`), by its code: no string is encoded for it. */
  char(code: number): void {
    this.room(1);
    this.buf[this.at++] = code;
  }

  /**
   * A text many sessions share (the live members of an idle session, the windows of a quiet one),
   * its bytes encoded once and copied after: a document of 4,000 sessions wrote 15,000 such texts,
   * and `Buffer#write` checks its encoding and offsets each time.
   */
  shared(s: string): void {
    const b = sharedOf(s);
    if (b === null) this.text(s);
    else this.copy(b);
  }

  /**
   * `view`'s bytes copied in. Through `set`: `Buffer#copy` checks and converts its four arguments on
   * every call, which, for two ranges a session, cost half the time of printing 4,000 (code that runs
   * once is not compiled).
   */
  protected copy(view: Uint8Array): void {
    this.room(view.length);
    this.buf.set(view, this.at);
    this.at += view.length;
  }
}

/**
 * A document written straight into one buffer, for a printer that holds its sessions' facts as
 * ranges of larger buffers (a kept pack, the warm snapshot): no chunk list, no view per range, one
 * copy of each byte. Text here is ASCII, one byte per character. It grows by doubling.
 */
export class ByteWriter extends ScratchWriter {
  protected buf: Buffer;

  constructor(sizeHint: number) {
    super();
    this.buf = Buffer.allocUnsafe(Math.max(sizeHint, 1024));
  }

  protected room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  /** `from`'s bytes `start` to `end`, through a plain view. */
  bytes(from: Uint8Array, start: number, end: number): void {
    this.copy(new Uint8Array(from.buffer, from.byteOffset + start, end - start));
  }

  /** How many bytes were written so far. */
  get size(): number {
    return this.at;
  }

  /** What was written (a view: the writer is done with). */
  done(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

/**
 * Room for the text written between two ranges kept where they lie (a session's opening brace, its
 * live members, its windows): a few hundred bytes a session, so one piece serves a hundred sessions
 * or so, and a document of 4,000 sessions makes about 40 of them.
 */
const SCRATCH_BYTES = 64 * 1024;

/**
 * A range shorter than this is copied beside the text around it rather than kept as a part of its
 * own: a part costs a view object and a slot in the kernel's list of ranges, which pays only when it
 * spares a copy of more bytes than a few cache lines. A session's facts are about 1.5 KB, its cost
 * about 500 bytes.
 */
const MIN_PART_BYTES = 256;

/**
 * A document as a list of parts, for `writev`: each range of a buffer that holds the sessions' facts
 * (a kept pack, a built record's text) a view of it where it lies, the text between them gathered in
 * pieces of `SCRATCH_BYTES`. Printing through the index copied 7 MB of kept facts into a new 9 MB
 * buffer first (the copy and the pages it touched were about a tenth of the run, on the 1.2 GiB bench
 * history); here nothing of them is copied before the kernel copies it out. The parts are views: the
 * buffers they see must not change until they are written.
 */
export class PartsWriter extends ScratchWriter {
  private readonly parts: Uint8Array[] = [];
  protected buf = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** Where the text not yet made a part starts in `buf` (it ends at `at`). */
  private from = 0;

  /** Room for `n` more bytes of text: a new piece when this one is full. */
  protected room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    this.cut();
    this.buf = Buffer.allocUnsafe(Math.max(SCRATCH_BYTES, n));
    this.from = 0;
    this.at = 0;
  }

  /** The text gathered since the last part, as a part. */
  private cut(): void {
    // A plain view: `Buffer#subarray` checks and converts its arguments, at a cost that shows here.
    const p = this.buf;
    if (this.at > this.from)
      this.parts.push(new Uint8Array(p.buffer, p.byteOffset + this.from, this.at - this.from));
    this.from = this.at;
  }

  bytes(from: Uint8Array, start: number, end: number): void {
    const view = new Uint8Array(from.buffer, from.byteOffset + start, end - start);
    if (view.length < MIN_PART_BYTES) {
      this.copy(view);
      return;
    }
    this.cut();
    this.parts.push(view);
  }

  /** Every part, in order. */
  done(): Uint8Array[] {
    this.cut();
    return this.parts;
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
  w: JsonWriter,
  from: Uint8Array,
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
export function writeSessionText(w: JsonWriter, p: FactsText, l: SessionLive, windows: string): void {
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
  session: (i: number, w: JsonWriter) => void,
  /** Text after the document (a newline for a terminal or a file). */
  after = '',
): Buffer {
  const w = new ByteWriter(sizeHint);
  writeDocument(w, frame, count, session, after);
  return w.done();
}

/** As `documentBytes`, as parts for one `writev` (`PartsWriter`): the sessions' facts stay where they lie. */
export function documentParts(
  frame: Omit<SessionDocument, 'sessions'>,
  count: number,
  session: (i: number, w: JsonWriter) => void,
  after = '',
): Uint8Array[] {
  const w = new PartsWriter();
  writeDocument(w, frame, count, session, after);
  return w.done();
}

function writeDocument(
  w: JsonWriter,
  frame: Omit<SessionDocument, 'sessions'>,
  count: number,
  session: (i: number, w: JsonWriter) => void,
  after: string,
): void {
  w.text(documentHead(frame));
  for (let i = 0; i < count; i++) {
    if (i > 0) w.char(COMMA);
    session(i, w);
  }
  w.text(documentTail(frame));
  w.text(after);
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
