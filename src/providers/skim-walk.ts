/**
 * The skim's walk over a JSON line's structure: skipping values, finding the wanted members of an
 * object, stepping through an array, and refusing bytes that are not the JSON they claim to be.
 *
 * Not here: decoding a value once found (`skim-values.ts`), nor what any harness wants from its lines.
 * A value is only located, as a span `[start, end)` into the line.
 *
 * The walk also holds the depth bound (`MAX_JSON_DEPTH`) that a full parse checks before
 * `JSON.parse`: it already counts brackets, so a line nested too deep is refused here for nothing
 * more than a comparison, and refused at exactly the depth the full parse refuses it.
 */
import { type BadLineReason, type JsonObject, MAX_JSON_DEPTH, readObjectAt } from '../model/json.js';

// Exported for the value decoders; the skim's public face (`skim.ts`) does not pass them on.
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
export const COLON = 0x3a;
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

/**
 * Whether a key of an object `members` walked since the last `lineObject` was written with an escape
 * (`"\u0074ype"`). Keys are matched by their bytes, so such a key is never recognised, while
 * `JSON.parse` reads it as the key it spells: a reader that must agree with the full parse reads the
 * line that way instead (`keyEscaped`). No harness writes one; a hostile or hand-edited line may.
 */
let escapedKey = false;

/** Whether a key walked in the current line was written with an escape (see `escapedKey`). */
export const keyEscaped = (): boolean => escapedKey;

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

/** `skipString` for an object's key, which also notes a key written with an escape. */
function skipKey(b: Uint8Array, ks: number, end: number): number {
  const short = Math.min(end, ks + SHORT_STRING);
  for (let i = ks; i < short; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      escapedKey = true;
      i++;
    }
  }
  return skipLongKey(b, ks, end);
}

/** A long key: never a wanted one as written, but an escaped one may spell one. Rare: looked through once skipped. */
function skipLongKey(b: Uint8Array, ks: number, end: number): number {
  const after = skipString(b, ks, end);
  for (let i = ks; i < after - 1; i++) if (b[i] === BACKSLASH) escapedKey = true;
  return after;
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
 * Members a log keeps of one object: past this many it is given up (a line with thousands of keys
 * is not a harness's record), and whoever reads the log walks the object itself instead. Real lines
 * have a few dozen; this bounds the log's memory whatever a line holds.
 */
const MAX_LOGGED_MEMBERS = 4096;

/**
 * Every member of the last object `members` walked with this log, in the order written: the key's
 * bytes (between its quotes) and the value's span, so that a second reader of the same line (drift's
 * sample of its keys) need not walk it again. `holds` says whether the log is of exactly the object
 * at `b[start..end)`; a walk that throws, or an object with too many members, leaves it holding none.
 */
export class MemberLog {
  /** `[keyStart, keyEnd, valueStart, valueEnd]` per member. */
  spans = new Int32Array(64 * 4);
  count = 0;
  private buf: Uint8Array | null = null;
  private start = -1;
  private end = -1;

  holds(b: Uint8Array, start: number, end: number): boolean {
    return this.buf === b && this.start === start && this.end === end;
  }

  /** Forget what was logged (a walk is starting). */
  clear(): void {
    this.buf = null;
    this.count = 0;
  }

  /** The object at `b[start..end)` is whole and every member of it was logged. */
  seal(b: Uint8Array, start: number, end: number): void {
    if (this.count > MAX_LOGGED_MEMBERS) return;
    this.buf = b;
    this.start = start;
    this.end = end;
  }

  note(ks: number, ke: number, vs: number, ve: number): void {
    const at = this.count * 4;
    this.count++;
    if (this.count > MAX_LOGGED_MEMBERS) return;
    if (at + 4 > this.spans.length) {
      const grown = new Int32Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    this.spans[at] = ks;
    this.spans[at + 1] = ke;
    this.spans[at + 2] = vs;
    this.spans[at + 3] = ve;
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
 *
 * `log`, when given, notes every member, wanted or not (`MemberLog`), and holds the object once it
 * is walked whole.
 */
export function members(
  b: Uint8Array,
  start: number,
  end: number,
  keys: Keys,
  out: Int32Array,
  visit?: (slot: number, valueStart: number) => number,
  log?: MemberLog,
): number {
  out.fill(-1);
  log?.clear();
  let i = skipSpace(b, start, end);
  if (b[i] !== LBRACE) fail('not an object');
  i = skipSpace(b, i + 1, end);
  if (b[i] === RBRACE) {
    log?.seal(b, start, i + 1);
    return i + 1;
  }
  level++;
  for (;;) {
    if (b[i] !== QUOTE) fail('key is not a string');
    const ks = i + 1;
    i = skipKey(b, ks, end);
    const ke = i - 1;
    const slot = keys.slot(b, ks, ke);
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
    log?.note(ks, ke, vs, i);
    i = skipSpace(b, i, end);
    const c = b[i];
    if (c === COMMA) {
      i = skipSpace(b, i + 1, end);
      continue;
    }
    if (c === RBRACE) {
      level--;
      log?.seal(b, start, i + 1);
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

/**
 * A whole line: one object and nothing after it but whitespace. A `log` given holds the whole line,
 * `b[start..end)`, once it is walked.
 */
export function lineObject(
  b: Uint8Array,
  start: number,
  end: number,
  keys: Keys,
  out: Int32Array,
  visit?: (slot: number, valueStart: number) => number,
  log?: MemberLog,
): void {
  level = 0;
  escapedKey = false;
  const after = members(b, start, end, keys, out, visit, log);
  if (skipSpace(b, after, end) !== end) {
    log?.clear();
    fail('trailing bytes');
  }
  log?.seal(b, start, end);
}

/**
 * Every member of the whole line's object, in order: `each(keyStart, keyEnd, valueStart, valueEnd)`
 * with the key's bytes between its quotes and the value's span. The values are skipped, not looked
 * into; the envelope is checked as `lineObject` checks it (throws `SkimError`).
 */
export function eachMember(
  b: Uint8Array,
  start: number,
  end: number,
  each: (ks: number, ke: number, vs: number, ve: number) => void,
): void {
  level = 0;
  let i = skipSpace(b, start, end);
  if (b[i] !== LBRACE) fail('not an object');
  i = skipSpace(b, i + 1, end);
  if (b[i] !== RBRACE) {
    level++;
    for (;;) {
      if (b[i] !== QUOTE) fail('key is not a string');
      const ks = i + 1;
      i = skipString(b, ks, end);
      const ke = i - 1;
      i = skipSpace(b, i, end);
      if (b[i] !== COLON) fail('missing colon');
      const vs = skipSpace(b, i + 1, end);
      i = skipValue(b, vs, end);
      each(ks, ke, vs, i);
      i = skipSpace(b, i, end);
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
        continue;
      }
      if (b[i] === RBRACE) break;
      fail('expected , or }');
    }
    level--;
  }
  if (skipSpace(b, i + 1, end) !== end) fail('trailing bytes');
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

/** Whether `members` found a value for `slot`. */
export const has = (out: Int32Array, slot: number): boolean => out[2 * slot]! >= 0;

/** The first byte of a value: `"` string, `{` object, `[` array, `n` null, `t`/`f`, or a digit. */
export const kind = (b: Uint8Array, s: number): number => b[s]!;
export const IS = { STRING: QUOTE, OBJECT: LBRACE, ARRAY: LBRACKET } as const;
