/**
 * Small readers that narrow `unknown` JSON without casts: every transcript field is untrusted.
 *
 * Parsing goes through here too, so that one rule bounds how deep a value may nest: `JSON.parse`
 * itself copes with any depth, but everything that walks the result afterwards (`JSON.stringify`, a
 * worker's `postMessage`, our own readers of tool results) recurses, and a line nested a hundred
 * thousand levels overflows the stack in whichever of them meets it first, taking the whole file
 * (or the whole run) with it. What this does not do: repair or partly read a value that is too
 * deep. It is refused whole, and the caller counts it as a bad line.
 */

export type JsonObject = Record<string, unknown>;

export const obj = (v: unknown): JsonObject | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null;

export const arr = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A non-empty string, or null. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** A finite number, or null (strings, NaN and infinities are not numbers here). */
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A finite, non-negative count, or null. */
export const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;

export const bool = (v: unknown): boolean => v === true;

/** Milliseconds since the epoch for an ISO timestamp, or null when it is not one. */
export function isoMs(v: unknown): number | null {
  if (typeof v !== 'string' || v.length < 10 || v.length > 40) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The deepest nesting of arrays and objects read. The deepest record in the shared corpus and the
 * lab fixtures nests 12 levels (a tool's input schema inside a message); 256 is twenty times that.
 * What it protects: V8's own recursive walks (`JSON.stringify`, `structuredClone`, `postMessage`)
 * overflow the stack at about 3,000 levels on the main thread, and our readers recurse too, with
 * larger frames; an order of magnitude below that leaves them room. Past it, the line is a bad line.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Why a line was not read. Only the reason is kept, never the bytes: a transcript may be a link to
 * any file, and its first line may be a password hash.
 */
export type BadLineReason =
  | 'not-json-object'
  | 'too-deep'
  | 'not-protobuf'
  | 'not-sqlite'
  | 'zstd-unsupported'
  | 'zstd-damaged'
  | 'zstd-too-large'
  | 'zstd-stalled';

/** The words `cctop doctor` uses for a reason. */
export const BAD_LINE_REASON: Record<BadLineReason, string> = {
  'not-json-object': 'is not a JSON object',
  'too-deep': `nests deeper than ${MAX_JSON_DEPTH} levels`,
  /** A database row whose blob should be a protobuf message (Antigravity's) and is not. */
  'not-protobuf': 'is not a protobuf message',
  /** A database file (Antigravity's conversation) whose bytes SQLite refuses as damaged; its line is 1. */
  'not-sqlite': 'is not a sound SQLite database',
  /**
   * A row OpenClaw stored compressed with zstd, on a Node older than 22.15 (which has no zstd of its
   * own) whose install lacks the fzstd package cctop depends on.
   */
  'zstd-unsupported':
    'is compressed with zstd, which this Node cannot read (Node 22.15 or newer can) and the fzstd package cctop depends on is missing: reinstall cctop',
  /** A compressed row whose bytes are not zstd frames, are cut short, or make another size than it gives. */
  'zstd-damaged': 'is compressed with zstd, but its bytes are damaged or cut short',
  /** A compressed row that claims or makes more than OpenClaw's cap on an event (`MAX_EVENT_BYTES`). */
  'zstd-too-large': 'decompresses to more than 4 MiB, more than OpenClaw stores in one event',
  /** A compressed row that fzstd (on Node before 22.15) could not finish within `INFLATE_BUDGET_MS`. */
  'zstd-stalled': 'took longer than 2 s to decompress, the budget for one event',
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text in `b[s..e)` opens more than `max` arrays or objects inside one another,
 * counting brackets outside strings. Strings are jumped over with a native `indexOf`, so a line of
 * mostly one long string costs a few calls. A valid value that deep needs `2 * (max + 1)` bytes of
 * brackets, so a shorter line is never scanned (a shorter line that deep is not valid JSON, and
 * `JSON.parse` refuses it without recursing).
 */
export function nestsDeeper(b: Uint8Array, s: number, e: number, max = MAX_JSON_DEPTH): boolean {
  if (e - s < 2 * (max + 1)) return false;
  let depth = 0;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      // Find the closing quote: one preceded by an even number of backslashes.
      for (;;) {
        const q = (b as Buffer).indexOf(QUOTE, i + 1);
        if (q === -1 || q >= e) return false; // unterminated: not JSON, and refused as such
        let k = q - 1;
        while (k > i && b[k] === BACKSLASH) k--;
        i = q;
        if (((q - 1 - k) & 1) === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** A JSON value read under the depth bound, or why it could not be. */
export type Reading<T> = { kind: 'read'; value: T } | { kind: 'bad'; reason: BadLineReason };

/** Parse untrusted JSON text (a whole file, or a JSON string nested in a record) under the depth bound. */
export function readJson(text: string): Reading<unknown> {
  if (text.length >= 2 * (MAX_JSON_DEPTH + 1)) {
    const b = Buffer.from(text, 'utf8');
    if (nestsDeeper(b, 0, b.length)) return { kind: 'bad', reason: 'too-deep' };
  }
  try {
    return { kind: 'read', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'bad', reason: 'not-json-object' };
  }
}

/** `readJson` for callers that only need the value: undefined when it is not JSON or too deep. */
export function parseJson(text: string): unknown {
  const r = readJson(text);
  return r.kind === 'read' ? r.value : undefined;
}

/** One line of a transcript, `b[s..e)`, as a JSON object, or why it is not one. */
export function readObjectAt(b: Buffer, s: number, e: number): Reading<JsonObject> {
  if (nestsDeeper(b, s, e)) return { kind: 'bad', reason: 'too-deep' };
  try {
    const o = obj(JSON.parse(b.toString('utf8', s, e)));
    return o === null ? { kind: 'bad', reason: 'not-json-object' } : { kind: 'read', value: o };
  } catch {
    return { kind: 'bad', reason: 'not-json-object' };
  }
}

/** Parse one JSON line; null when it is not a JSON object (or nests too deep). */
export function parseObject(line: string): JsonObject | null {
  const r = readJson(line);
  return r.kind === 'read' ? obj(r.value) : null;
}

/** `parseObject` over the bytes of a line, without decoding a line that is refused. */
export function parseObjectAt(b: Buffer, s: number, e: number): JsonObject | null {
  const r = readObjectAt(b, s, e);
  return r.kind === 'read' ? r.value : null;
}
