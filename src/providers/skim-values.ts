/**
 * Decoding the small values the skim's walk located (`skim-walk.ts`): strings, numbers, `true`,
 * timestamps. The common plain case is read straight off the bytes; the rare escaped or odd one is
 * handed to `JSON.parse` or `Date.parse`, so the answer is always the one a full parse gives.
 *
 * Not here: finding a value, nor checking the line around it. A span given to these is taken to be
 * one whole JSON value, as the walk found it; a decoder checks only the first byte it needs to tell
 * the value's kind.
 */
import { BACKSLASH, COLON, QUOTE } from './skim-walk.js';

/** The JSON text of a value, decoded as JavaScript would (`JSON.parse` of the span). */
export function value(b: Buffer, s: number, e: number): unknown {
  return JSON.parse(b.toString('utf8', s, e));
}

/**
 * Whether `b[s..e)` holds a backslash: an escape somewhere in it, a key's included. A key is matched
 * by its bytes, so a value that holds one is read by `JSON.parse` instead wherever a spelling such
 * as `"\u0074ype"` must count as the key it decodes to.
 */
export function hasEscape(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (b[i] === BACKSLASH) return true;
  return false;
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

/** The two digits at `b[i]`, `b[i+1]` as a number; -1 when either is not a digit. */
function two(b: Uint8Array, i: number): number {
  const hi = b[i]! - 0x30;
  const lo = b[i + 1]! - 0x30;
  return hi >= 0 && hi <= 9 && lo >= 0 && lo <= 9 ? hi * 10 + lo : -1;
}

/**
 * Milliseconds of an ISO timestamp value, as `Date.parse` reads it: the canonical
 * `"YYYY-MM-DDTHH:MM:SS(.mmm)Z"` is read off the bytes; anything else is decoded and parsed.
 *
 * Every line of a transcript has one, so this runs as often as anything in the skim, in a one-shot
 * run mostly before V8 has optimised it: it is kept small and in small-integer arithmetic (no
 * iterator over a table of offsets, no division whose result the optimiser must check), so it costs
 * little in the interpreter and compiles small.
 */
export function isoMsAt(b: Buffer, s: number, e: number, slow: (v: unknown) => number | null): number | null {
  const len = e - s;
  if (
    b[s] === QUOTE &&
    (len === 22 || (len === 26 && b[s + 20] === 0x2e)) &&
    b[s + 5] === 0x2d &&
    b[s + 8] === 0x2d &&
    b[s + 11] === 0x54 &&
    b[s + 14] === COLON &&
    b[s + 17] === COLON &&
    b[e - 2] === 0x5a
  ) {
    const century = two(b, s + 1);
    const yy = two(b, s + 3);
    const month = two(b, s + 6);
    const day = two(b, s + 9);
    const hour = two(b, s + 12);
    const minute = two(b, s + 15);
    const second = two(b, s + 18);
    let ms = 0;
    if (len === 26) {
      const tens = two(b, s + 21);
      const unit = b[s + 23]! - 0x30;
      ms = tens >= 0 && unit >= 0 && unit <= 9 ? tens * 10 + unit : -1;
    }
    // Date.UTC reads years below 100 as 19xx; leave those (and anything odd) to Date.parse. A -1 is
    // a field that was not two digits.
    if (
      century >= 1 &&
      yy >= 0 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= 31 &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 59 &&
      ms >= 0
    ) {
      return (
        daysFromCivil(century * 100 + yy, month, day) * 86_400_000 +
        hour * 3_600_000 +
        minute * 60_000 +
        second * 1000 +
        ms
      );
    }
  }
  return slow(stringAt(b, s, e));
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm), for years 100 to
 * 9999 (all `isoMsAt` reads), where every quotient is of non-negative integers and `(x / n) | 0` is
 * the floor. A day past the month's end rolls over into the next month, as `Date.UTC` and
 * `Date.parse` do.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = (y / 400) | 0;
  const yoe = y - era * 400;
  const doy = (((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) | 0) + day - 1;
  const doe = yoe * 365 + ((yoe / 4) | 0) - ((yoe / 100) | 0) + doy;
  return era * 146_097 + doe - 719_468;
}

/** `true` only for the literal `true`, as the parsed-JSON readers treat it. */
export const isTrue = (b: Uint8Array, s: number, e: number): boolean =>
  e - s === 4 && b[s] === 0x74 && b[s + 1] === 0x72 && b[s + 2] === 0x75 && b[s + 3] === 0x65;
