/**
 * Finding fields in the bytes of a JSON line without parsing all of it.
 *
 * A transcript line is mostly one or two enormous strings (a file the agent read, a tool's output,
 * encrypted reasoning) around a handful of small fields that session facts need. `JSON.parse` of
 * every line costs about ten times a walk that only follows the structure: strings are skipped with a
 * native `indexOf` once they turn out long, brackets are counted, and only the small values asked for
 * are decoded.
 *
 * What the skim does not do: validate every nested token. An object's envelope is checked (it starts
 * and ends where it should, keys are strings followed by `:`, members are separated by commas, brackets
 * balance), which is what a truncated or garbage line breaks; a malformed number deep inside a value
 * is not noticed. The extractors built on this are proved equal to a full parse on the whole corpus.
 *
 * The walk also holds the depth bound (`MAX_JSON_DEPTH`) that a full parse checks before
 * `JSON.parse`: it already counts brackets, so a line nested too deep is refused here for nothing
 * more than a comparison, and refused at exactly the depth the full parse refuses it.
 */
import { type BadLineReason, type JsonObject, MAX_JSON_DEPTH, readObjectAt } from '../model/json.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** Bytes scanned one at a time before a string is treated as long and skipped with `indexOf`. */
const SHORT_STRING = 24;

/** Thrown when the bytes are not the JSON they claim to be; callers turn it into a bad line. */
export class SkimError extends Error {
  constructor(
    what: string,
    /** What `cctop doctor` says of the line. */
    readonly reason: BadLineReason = 'not-json-object',
  ) {
    super(what);
  }
}

const fail = (what: string): never => {
  throw new SkimError(what);
};

/**
 * Objects and arrays the walk is inside of (`members` and `elements` entered and not yet left), so
 * that `skipContainer` can tell the depth of what it skips in the whole line, not only in the value.
 * `lineObject` starts it at zero; a walk abandoned by a throw leaves it for the next `lineObject`.
 */
let level = 0;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index just past the closing quote of the string whose opening quote is at `i - 1`. */
export function skipString(b: Uint8Array, i: number, end: number): number {
  const short = Math.min(end, i + SHORT_STRING);
  for (; i < short; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i++;
  }
  if (i >= end) return fail('unterminated string');
  // A long string: jump from quote to quote, checking whether each is escaped.
  for (;;) {
    const q = (b as Buffer).indexOf(QUOTE, i);
    if (q === -1 || q >= end) return fail('unterminated string');
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q + 1;
    i = q + 1;
  }
}

/** Index just past the object or array that opens at `i`. */
export function skipContainer(b: Uint8Array, i: number, end: number): number {
  let depth = 0;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) {
      i = skipString(b, i + 1, end);
      continue;
    }
    if (c === LBRACE || c === LBRACKET) {
      depth++;
      if (level + depth > MAX_JSON_DEPTH) throw new SkimError('nested too deep', 'too-deep');
    } else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) fail('unbalanced brackets');
    }
    i++;
  }
  return fail('unterminated container');
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(b[i]!)) i++;
  return i;
}

/** Index just past the value starting at `i` (after whitespace). */
export function skipValue(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i + 1, end);
  if (c === LBRACE || c === LBRACKET) return skipContainer(b, i, end);
  // A number or a literal: up to the next delimiter.
  const start = i;
  while (i < end) {
    const d = b[i]!;
    if (d === COMMA || d === RBRACE || d === RBRACKET || isSpace(d)) break;
    if (d === QUOTE || d === LBRACE || d === LBRACKET || d === COLON) fail('bad scalar');
    i++;
  }
  if (i === start) fail('missing value');
  return i;
}

/** Keys longer than this are never among the wanted ones (they are skipped, not compared). */
const MAX_KEY_BYTES = 63;

/**
 * Keys of interest, compiled once: `slot(b, s, e)` says which one the key bytes `b[s..e)` are, or -1.
 * Looked up by length and first byte in a flat table, then confirmed byte by byte: this runs for
 * every member of every object walked, a few million times a scan.
 */
export class Keys {
  readonly names: readonly string[];
  private readonly bytes: Uint8Array[];
  /** (length, first byte & 127) → slot + 1 of the only candidate, or -(n) for a list index. */
  private readonly table = new Int16Array((MAX_KEY_BYTES + 1) * 128);
  private readonly clashes: number[][] = [];

  constructor(names: readonly string[]) {
    this.names = names;
    this.bytes = names.map((n) => Buffer.from(n, 'utf8'));
    this.bytes.forEach((k, slot) => {
      if (k.length > MAX_KEY_BYTES || k.length === 0)
        throw new Error(`key ${names[slot]} is not a short key`);
      const at = k.length * 128 + (k[0]! & 127);
      const was = this.table[at]!;
      if (was === 0) this.table[at] = slot + 1;
      else if (was > 0) {
        this.clashes.push([was - 1, slot]);
        this.table[at] = -this.clashes.length;
      } else this.clashes[-was - 1]!.push(slot);
    });
  }

  slot(b: Uint8Array, s: number, e: number): number {
    const len = e - s;
    if (len > MAX_KEY_BYTES || len === 0) return -1;
    const t = this.table[len * 128 + (b[s]! & 127)]!;
    if (t === 0) return -1;
    if (t > 0) return this.matches(b, s, t - 1) ? t - 1 : -1;
    for (const slot of this.clashes[-t - 1]!) if (this.matches(b, s, slot)) return slot;
    return -1;
  }

  private matches(b: Uint8Array, s: number, slot: number): boolean {
    const k = this.bytes[slot]!;
    for (let i = 0; i < k.length; i++) if (b[s + i] !== k[i]) return false;
    return true;
  }
}

/**
 * Walk the object at `b[start]` (which must be `{`), recording into `out` the value span of every
 * member whose key is in `keys`: `out[2*slot]` and `out[2*slot+1]` are the value's start and end, or
 * -1 when absent. A repeated key keeps its last value, as `JSON.parse` does. Returns the index just
 * past the closing brace.
 *
 * `visit`, when given, is offered each wanted value first: it may walk the value itself (collecting
 * what it needs from inside) and return where the value ends, or return -1 to have it skipped. That
 * way a large value is walked once, not once to skip it and again to look inside.
 */
export function members(
  b: Uint8Array,
  start: number,
  end: number,
  keys: Keys,
  out: Int32Array,
  visit?: (slot: number, valueStart: number) => number,
): number {
  out.fill(-1);
  let i = skipSpace(b, start, end);
  if (b[i] !== LBRACE) fail('not an object');
  i = skipSpace(b, i + 1, end);
  if (b[i] === RBRACE) return i + 1;
  level++;
  for (;;) {
    if (b[i] !== QUOTE) fail('key is not a string');
    const ks = i + 1;
    i = skipString(b, ks, end);
    const slot = keys.slot(b, ks, i - 1);
    i = skipSpace(b, i, end);
    if (b[i] !== COLON) fail('missing colon');
    i = skipSpace(b, i + 1, end);
    const vs = i;
    const walked = slot >= 0 && visit !== undefined ? visit(slot, vs) : -1;
    i = walked >= 0 ? walked : skipValue(b, i, end);
    if (slot >= 0) {
      out[2 * slot] = vs;
      out[2 * slot + 1] = i;
    }
    i = skipSpace(b, i, end);
    const c = b[i];
    if (c === COMMA) {
      i = skipSpace(b, i + 1, end);
      continue;
    }
    if (c === RBRACE) {
      level--;
      return i + 1;
    }
    return fail('expected , or }');
  }
}

/** Call `each(start, end)` for every element of the array at `b[start]` (which must be `[`). */
export function elements(
  b: Uint8Array,
  start: number,
  end: number,
  each: (s: number, e: number) => void,
): number {
  let i = skipSpace(b, start, end);
  if (b[i] !== LBRACKET) fail('not an array');
  i = skipSpace(b, i + 1, end);
  if (b[i] === RBRACKET) return i + 1;
  level++;
  for (;;) {
    const vs = i;
    i = skipValue(b, i, end);
    each(vs, i);
    i = skipSpace(b, i, end);
    const c = b[i];
    if (c === COMMA) {
      i = skipSpace(b, i + 1, end);
      continue;
    }
    if (c === RBRACKET) {
      level--;
      return i + 1;
    }
    return fail('expected , or ]');
  }
}

/** A whole line: one object and nothing after it but whitespace. */
export function lineObject(
  b: Uint8Array,
  start: number,
  end: number,
  keys: Keys,
  out: Int32Array,
  visit?: (slot: number, valueStart: number) => number,
): void {
  level = 0;
  const after = members(b, start, end, keys, out, visit);
  if (skipSpace(b, after, end) !== end) fail('trailing bytes');
}

/**
 * A line read by full parse, for the harnesses whose records are small enough that the skim would
 * not pay: the object, or a `SkimError` saying why the line is bad (the depth bound included).
 */
export function objectLine(b: Buffer, s: number, e: number): JsonObject {
  const r = readObjectAt(b, s, e);
  if (r.kind === 'bad') throw new SkimError(r.reason, r.reason);
  return r.value;
}

// ---- Decoding small values -------------------------------------------------------------------

export const has = (out: Int32Array, slot: number): boolean => out[2 * slot]! >= 0;

/** The JSON text of a value, decoded as JavaScript would (`JSON.parse` of the span). */
export function value(b: Buffer, s: number, e: number): unknown {
  return JSON.parse(b.toString('utf8', s, e));
}

/** A string value, or null when the value is not a string. */
export function stringAt(b: Buffer, s: number, e: number): string | null {
  if (b[s] !== QUOTE) return null;
  for (let i = s + 1; i < e - 1; i++) {
    if (b[i] === BACKSLASH) return JSON.parse(b.toString('utf8', s, e)) as string;
  }
  return b.toString('utf8', s + 1, e - 1);
}

/** The first `maxChars` characters of a string value without decoding all of a huge one. */
export function stringPrefixAt(b: Buffer, s: number, e: number, maxChars: number): string | null {
  if (b[s] !== QUOTE) return null;
  // Six bytes per character (a `\uXXXX` escape) is the most a JSON string spends.
  const budget = maxChars * 6;
  if (e - s <= budget + 2) return stringAt(b, s, e)?.slice(0, maxChars) ?? null;
  let i = s + 1;
  const stop = s + 1 + budget;
  while (i < stop) {
    const c = b[i]!;
    if (c === BACKSLASH) i += b[i + 1] === 0x75 ? 6 : 2;
    else i++;
  }
  // Do not end inside a UTF-8 sequence.
  while ((b[i]! & 0xc0) === 0x80) i--;
  return (JSON.parse(`"${b.toString('utf8', s + 1, i)}"`) as string).slice(0, maxChars);
}

/** A number value as `JSON.parse` reads it, or null when the value is not a number. */
export function numberAt(b: Buffer, s: number, e: number): number | null {
  const c = b[s]!;
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2d)) return null;
  let n = 0;
  let i = s;
  // Plain integers (every token count) without allocating a string.
  if (e - s <= 15) {
    for (; i < e; i++) {
      const d = b[i]! - 0x30;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (i === e) return n;
  }
  const v = Number(b.toString('latin1', s, e));
  return Number.isFinite(v) ? v : null;
}

/** Whether the string value at `b[s..e)` is exactly the (escape-free, ASCII) `quoted`, quotes included. */
export function bytesEqual(b: Uint8Array, s: number, e: number, quoted: Uint8Array): boolean {
  if (e - s !== quoted.length) return false;
  for (let i = 0; i < quoted.length; i++) if (b[s + i] !== quoted[i]) return false;
  return true;
}

/**
 * A string decoder that recognises values it has decoded before: a line's type, the cwd, session id,
 * branch and model repeat on nearly every line, and comparing a few dozen bytes is cheaper than
 * decoding (and later collecting) the same string again. Holds at most `INTERNED` values per field,
 * replaced round-robin, each at most `INTERN_BYTES` long.
 */
const INTERNED = 16;
const INTERN_BYTES = 256;

export class Interner {
  private readonly bytes: Uint8Array[] = [];
  private readonly values: string[] = [];
  private next = 0;
  /** The entry found last time: nearly always the one asked for next (one file, one session). */
  private last = 0;

  at(b: Buffer, s: number, e: number): string | null {
    const len = e - s;
    if (len > INTERN_BYTES) return stringAt(b, s, e);
    if (this.same(b, s, len, this.last)) return this.values[this.last]!;
    for (let k = 0; k < this.bytes.length; k++) {
      if (k !== this.last && this.same(b, s, len, k)) {
        this.last = k;
        return this.values[k]!;
      }
    }
    const v = stringAt(b, s, e);
    if (v === null) return null;
    const copy = new Uint8Array(len);
    copy.set(b.subarray(s, e));
    this.bytes[this.next] = copy;
    this.values[this.next] = v;
    this.last = this.next;
    this.next = (this.next + 1) % INTERNED;
    return v;
  }

  /**
   * Whether entry `k` holds exactly the bytes `b[s..s+len)`. Compared from the end: paths and ids
   * that differ mostly share their start.
   */
  private same(b: Uint8Array, s: number, len: number, k: number): boolean {
    const known = this.bytes[k];
    if (known === undefined || known.length !== len) return false;
    for (let i = len - 1; i >= 0; i--) if (b[s + i] !== known[i]) return false;
    return true;
  }
}

/** Whether a string value decodes to exactly `word` (comparing bytes unless it has escapes). */
export function stringIs(b: Buffer, s: number, e: number, word: Uint8Array): boolean {
  if (b[s] !== QUOTE) return false;
  let escaped = false;
  for (let i = s + 1; i < e - 1; i++) {
    if (b[i] === BACKSLASH) {
      escaped = true;
      break;
    }
  }
  if (!escaped) {
    if (e - s - 2 !== word.length) return false;
    for (let i = 0; i < word.length; i++) if (b[s + 1 + i] !== word[i]) return false;
    return true;
  }
  return stringAt(b, s, e) === Buffer.from(word).toString('utf8');
}

const two = (b: Uint8Array, i: number): number => (b[i]! - 0x30) * 10 + (b[i + 1]! - 0x30);

/**
 * Milliseconds of an ISO timestamp value, as `Date.parse` reads it: the canonical
 * `"YYYY-MM-DDTHH:MM:SS(.mmm)Z"` is read off the bytes; anything else is decoded and parsed.
 */
export function isoMsAt(b: Buffer, s: number, e: number, slow: (v: unknown) => number | null): number | null {
  const len = e - s;
  const canonical =
    b[s] === QUOTE &&
    (len === 22 || (len === 26 && b[s + 20] === 0x2e)) &&
    b[s + 5] === 0x2d &&
    b[s + 8] === 0x2d &&
    b[s + 11] === 0x54 &&
    b[s + 14] === COLON &&
    b[s + 17] === COLON &&
    b[e - 2] === 0x5a;
  if (canonical) {
    let digits = true;
    for (const at of DIGIT_OFFSETS) {
      if (at >= len - 2) break;
      const c = b[s + at]!;
      if (c < 0x30 || c > 0x39) digits = false;
    }
    const year = two(b, s + 1) * 100 + two(b, s + 3);
    const month = two(b, s + 6);
    const day = two(b, s + 9);
    const hour = two(b, s + 12);
    const minute = two(b, s + 15);
    const second = two(b, s + 18);
    const ms = len === 26 ? two(b, s + 21) * 10 + (b[s + 23]! - 0x30) : 0;
    // Date.UTC reads years below 100 as 19xx; leave those (and anything odd) to Date.parse.
    if (
      digits &&
      year >= 100 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= 31 &&
      hour <= 23 &&
      minute <= 59 &&
      second <= 59
    ) {
      return (
        daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
      );
    }
  }
  return slow(stringAt(b, s, e));
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). A day past the
 * month's end rolls over into the next month, as `Date.UTC` and `Date.parse` do.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Offsets of the digits in `"YYYY-MM-DDTHH:MM:SS.mmmZ"`, counted from the opening quote. */
const DIGIT_OFFSETS = [1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 23];

/** `true` only for the literal `true`, as the parsed-JSON readers treat it. */
export const isTrue = (b: Uint8Array, s: number, e: number): boolean =>
  e - s === 4 && b[s] === 0x74 && b[s + 1] === 0x72 && b[s + 2] === 0x75 && b[s + 3] === 0x65;

/** The first byte of a value: `"` string, `{` object, `[` array, `n` null, `t`/`f`, or a digit. */
export const kind = (b: Uint8Array, s: number): number => b[s]!;
export const IS = { STRING: QUOTE, OBJECT: LBRACE, ARRAY: LBRACKET } as const;
