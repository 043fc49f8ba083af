/**
 * A kept session's head as its sealed record holds it (`session-record.ts`): binary, not JSON. Every
 * run through the index reads every kept session's head (3,781 on the 1.2 GiB bench history), and as
 * JSON that was 2.3 MB of text cut out of the pack, joined and parsed. Here the numbers are
 * fixed-width doubles read in place, the strings are length-prefixed and cut from their bytes, and
 * nothing is joined or parsed: the heads take 1.2 MB, the pack 9.7 MB instead of 10.8, and reading
 * them (the copy out of SQLite and the CRCs included) costs a one-shot about 56 ms of CPU instead of
 * 61 (in-process CPU time, 25 runs each; 1.2 GiB bench history). Known limit: a one-shot runs this
 * reader cold, so most of what is left is the interpreter and the optimising compiler, not the bytes.
 *
 *   [version u8][state u8][flags u32][11 doubles][7 strings][unpriced count u32]([string][double])*
 *
 * A string is a u32 (its byte length times 4, plus its kind: null, ASCII or UTF-16) and its bytes:
 * ASCII (what nearly every id, path and time is) reads as Latin-1, one byte a character; anything
 * else is kept as UTF-16 code units, so every string comes back as it went in, lone surrogates too.
 * A double keeps every number as it is (JSON made `-0` a `0`, and a non-finite number `null`).
 *
 * A head that does not read to its last byte, or names a version, provider or state this code does
 * not write, is null: its session is built again, never guessed at. The record's CRC-32 is checked
 * before a head is read (`decodeHeads`).
 *
 * Not here: the record's other parts (`session-record.ts`), the head's fields (`session-head.ts`).
 */
import type { ProviderId } from '../model/facts.js';
import type { LiveSignal, SessionState } from '../model/state.js';
import { KNOWN_PROVIDERS } from './record-shape.js';
import type { HeadFields } from './session-head.js';
import type { KeptHead, SealedRow } from './session-record.js';

/**
 * Each state a signal holds, by its number in a head: a state added to `SessionState` does not
 * compile until it has one (and a new number is a new record version).
 */
const STATE_CODES: Record<SessionState, number> = { working: 0, waiting: 1, error: 2, idle: 3 };
const isState = (s: string): s is SessionState => Object.hasOwn(STATE_CODES, s);
/** The states by their numbers, for reading. */
const STATES: readonly SessionState[] = Object.keys(STATE_CODES)
  .filter(isState)
  .sort((a, b) => STATE_CODES[a] - STATE_CODES[b]);
/** A head without a signal. */
const NO_SIGNAL = 0xff;

// The flags: what is true, and which nullable numbers are null.
const DELETED = 1 << 0;
const INCLUDED = 1 << 1;
const LAST_MS_NULL = 1 << 2;
const AT_MS_NULL = 1 << 3;
const USD_NULL = 1 << 4;
/** A signal's `pendingTool` is absent (its string slot then reads null, as it does when it is null). */
const NO_PENDING_TOOL = 1 << 5;
/** Then one bit per token count that is null, in `TOKENS` order. */
const TOKEN_NULL = 6;
const TOKENS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

const isProvider = (s: string): s is ProviderId => KNOWN_PROVIDERS.has(s);

const FIXED_BYTES = 1 + 1 + 4 + 11 * 8;

// A string's kind, in the low two bits of its length word.
const NULL = 0;
const ASCII = 1;
const UTF16 = 2;

/** How a string is stored: its kind and byte length. */
function kindOf(s: string | null): number {
  if (s === null) return NULL;
  // UTF-8 takes one byte a character only when every character is ASCII.
  return Buffer.byteLength(s, 'utf8') === s.length ? ASCII : UTF16;
}

const stringBytes = (s: string | null, kind: number): number =>
  s === null ? 0 : kind === ASCII ? s.length : 2 * s.length;

/** The head of `h`, sealed as its record's first part. */
export function encodeHead(version: number, h: HeadFields): Buffer {
  const signal = h.live.signal;
  const pendingTool = signal?.pendingTool;
  const strings: (string | null)[] = [
    h.provider,
    h.id,
    h.file,
    h.project,
    h.lastActiveAt,
    signal?.detail ?? null,
    pendingTool ?? null,
  ];
  for (const [model] of h.unpriced) strings.push(model);
  const kinds = strings.map(kindOf);
  let size = FIXED_BYTES + 4 + 8 * h.unpriced.length;
  for (let i = 0; i < strings.length; i++) size += 4 + stringBytes(strings[i]!, kinds[i]!);
  const b = Buffer.alloc(size);
  const t = h.tally;
  let flags = 0;
  if (h.deleted) flags |= DELETED;
  if (t.included) flags |= INCLUDED;
  if (h.live.lastMs === null) flags |= LAST_MS_NULL;
  if (signal?.atMs === null || signal === null) flags |= AT_MS_NULL;
  if (t.usd === null) flags |= USD_NULL;
  if (pendingTool === undefined) flags |= NO_PENDING_TOOL;
  for (const [i, k] of TOKENS.entries()) if (t.tokens[k] === null) flags |= 1 << (TOKEN_NULL + i);
  b[0] = version;
  b[1] = signal === null ? NO_SIGNAL : STATE_CODES[signal.state];
  b.writeUInt32LE(flags >>> 0, 2);
  const numbers = [
    h.live.mtime,
    h.live.lastMs ?? 0,
    signal?.atMs ?? 0,
    t.requests,
    ...TOKENS.map((k) => t.tokens[k] ?? 0),
    t.usd ?? 0,
    t.unpricedTokens,
  ];
  let at = 6;
  for (const n of numbers) at = b.writeDoubleLE(n, at);
  const put = (i: number) => {
    const s = strings[i]!;
    const kind = kinds[i]!;
    at = b.writeUInt32LE(stringBytes(s, kind) * 4 + kind, at);
    if (s !== null) at += b.write(s, at, kind === ASCII ? 'latin1' : 'utf16le');
  };
  for (let i = 0; i < 7; i++) put(i);
  at = b.writeUInt32LE(h.unpriced.length, at);
  for (const [i, [, tokens]] of h.unpriced.entries()) {
    put(7 + i);
    at = b.writeDoubleLE(tokens, at);
  }
  return b;
}

/** The `i`th token count (`TOKENS` order) of the head whose numbers start at `n`. */
const tokenAt = (view: DataView, n: number, flags: number, i: number): number | null =>
  flags & (1 << (TOKEN_NULL + i)) ? null : view.getFloat64(n + 32 + 8 * i, true);

/** The header of five part lengths a sealed record opens with (`session-record.ts`). */
const HEADER_BYTES = 20;

/**
 * Reads kept sessions' heads out of their sealed records. Records that share an `ArrayBuffer` (a
 * pack's rows) are read through one `DataView`, made again only when a record lies in another. A
 * head's strings are cut from one Latin-1 text of its string part: one string made from bytes per
 * head, not one per field (3,781 heads, 19,000 fields on the 1.2 GiB bench history). Each head is
 * made as one object, with the row it was read from as its `sealed`: a run holds every one of them.
 */
export class HeadReader {
  private view: DataView | null = null;
  private record: Buffer = Buffer.alloc(0);
  /** The head's string part, as Latin-1, and where the next string's length word is in it. */
  private text = '';
  private at = 0;
  /** Where the string part begins in the `ArrayBuffer`. */
  private base = 0;
  /** Whether a string ran past the head's end or was not one this code writes. */
  private bad = false;

  constructor(
    private readonly version: number,
    private readonly keyOf: (provider: ProviderId, id: string) => string,
  ) {}

  /**
   * The head of the record in `row`, whose CRC-32 the caller checked, or null when its parts do not
   * fit in it or its head is not one this code writes.
   */
  read(row: SealedRow): KeptHead | null {
    const record = row.record;
    if (record.length < HEADER_BYTES + FIXED_BYTES) return null;
    if (this.view?.buffer !== record.buffer) this.view = new DataView(record.buffer);
    const view = this.view;
    const start = record.byteOffset;
    const facts = HEADER_BYTES + view.getUint32(start, true);
    const cost = facts + view.getUint32(start + 4, true);
    const spend = cost + view.getUint32(start + 8, true);
    const usage = spend + view.getUint32(start + 12, true);
    const signature = usage + view.getUint32(start + 16, true);
    if (signature > record.length || facts < HEADER_BYTES + FIXED_BYTES) return null;
    const h = start + HEADER_BYTES;
    if (record[HEADER_BYTES] !== this.version) return null;
    const state = record[HEADER_BYTES + 1]!;
    if (state !== NO_SIGNAL && state >= STATES.length) return null;
    const flags = view.getUint32(h + 2, true);
    this.record = record;
    this.text = record.toString('latin1', HEADER_BYTES + FIXED_BYTES, facts);
    this.at = 0;
    this.base = h + FIXED_BYTES;
    this.bad = false;
    const provider = this.string();
    const id = this.string();
    const file = this.string();
    const project = this.string();
    const lastActiveAt = this.string();
    const detail = this.string();
    const pendingTool = this.string();
    const count = this.u32();
    // Each unpriced model takes at least 12 bytes: a count past that is not one this code wrote.
    if (this.bad || count > (this.text.length - this.at) / 12) return null;
    const unpriced: [string, number][] = [];
    for (let i = 0; i < count; i++) {
      const model = this.string();
      if (model === null || this.at + 8 > this.text.length) return null;
      unpriced.push([model, view.getFloat64(this.base + this.at, true)]);
      this.at += 8;
    }
    if (this.bad || this.at !== this.text.length) return null;
    if (provider === null || !isProvider(provider) || id === null || file === null) return null;
    // The numbers, in the order `encodeHead` writes them.
    const n = h + 6;
    let signal: LiveSignal | null = null;
    if (state !== NO_SIGNAL) {
      const atMs = flags & AT_MS_NULL ? null : view.getFloat64(n + 16, true);
      signal = { state: STATES[state]!, atMs, detail };
      if ((flags & NO_PENDING_TOOL) === 0) signal.pendingTool = pendingTool;
    }
    return {
      key: this.keyOf(provider, id),
      provider,
      id,
      file,
      project,
      lastActiveAt,
      deleted: (flags & DELETED) !== 0,
      live: {
        signal,
        mtime: view.getFloat64(n, true),
        lastMs: flags & LAST_MS_NULL ? null : view.getFloat64(n + 8, true),
      },
      tally: {
        provider,
        requests: view.getFloat64(n + 24, true),
        tokens: {
          input: tokenAt(view, n, flags, 0),
          output: tokenAt(view, n, flags, 1),
          cacheRead: tokenAt(view, n, flags, 2),
          cacheWrite: tokenAt(view, n, flags, 3),
          reasoning: tokenAt(view, n, flags, 4),
        },
        usd: flags & USD_NULL ? null : view.getFloat64(n + 72, true),
        included: (flags & INCLUDED) !== 0,
        unpricedTokens: view.getFloat64(n + 80, true),
      },
      unpriced,
      // Offsets into the row's blob: nothing is copied, or even viewed, until printed or parsed.
      at: { facts, cost, spend, usage, signature },
      sealed: row,
    };
  }

  /** The next length word of the string part, or 0 (and `bad`) past its end. */
  private u32(): number {
    if (this.at + 4 > this.text.length) {
      this.bad = true;
      return 0;
    }
    const word = this.view!.getUint32(this.base + this.at, true);
    this.at += 4;
    return word;
  }

  /** The next string of the string part; null when it is null (or `bad`). */
  private string(): string | null {
    const word = this.u32();
    const kind = word & 3;
    const bytes = (word - kind) / 4;
    const from = this.at;
    this.at += bytes;
    if (this.bad || this.at > this.text.length) {
      this.bad = true;
      return null;
    }
    switch (kind) {
      case NULL:
        if (bytes !== 0) this.bad = true;
        return null;
      case ASCII:
        return this.text.slice(from, from + bytes);
      case UTF16: {
        if (bytes % 2 !== 0) break;
        const start = this.base + from - this.record.byteOffset;
        return this.record.toString('utf16le', start, start + bytes);
      }
    }
    this.bad = true;
    return null;
  }
}
