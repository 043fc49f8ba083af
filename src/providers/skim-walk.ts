/**
 * The skim's walk over a JSON line's structure: skipping values, finding the wanted members of an
 * object, stepping through an array, and refusing bytes that are not the JSON they claim to be.
 *
 * Not here: decoding a value once found (`skim-values.ts`), nor what any harness wants from its lines.
 * A value is only located, as a span `[start, end)` into the line.
 *
 * A line the walk reads is a line `JSON.parse` reads: every value it skips is held to JSON's grammar
 * (numbers, the three literals, a container closed by its own kind, colons and commas where they
 * belong, only JSON's four whitespace bytes), and a line it refuses gets the reason the full parse
 * gives (`refused`). One gap is left, on purpose: a string is looked at byte by byte only for its
 * first `SHORT_STRING` bytes, where raw control bytes and escapes are checked; past that it is jumped
 * quote to quote, and a raw control byte or a bad escape there is not seen. Looking at every byte of
 * the long strings (most of a transcript's bytes) instead cost a cold build of the 1.2 GiB generated
 * history about 40% more CPU (10.6 s against 7.5 s); see `docs/limits.md`. Bytes that are not UTF-8
 * are no refusal, as `JSON.parse` of the decoded line reads them (as U+FFFD): the walk never looks
 * at them, as it never has.
 *
 * The walk also holds the depth bound (`MAX_JSON_DEPTH`) that a full parse checks before
 * `JSON.parse`: it already counts brackets, so a line nested too deep is refused here for nothing
 * more than a comparison, and refused at exactly the depth the full parse refuses it.
 */
import {
  type BadLineReason,
  type JsonObject,
  MAX_JSON_DEPTH,
  nestsDeeper,
  readObjectAt,
} from '../model/json.js';
import type { Keys, MemberLog } from './skim-keys.js';
import { hadEscape, SHORT_STRING, stringEnd } from './skim-strings.js';
import { literalEnd, numberEnd } from './skim-tokens.js';

// Exported for the value decoders; the skim's public face (`skim.ts`) does not pass them on.
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
export const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;

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

/**
 * A line refused: the reason a full parse gives it. That parse counts brackets first (`nestsDeeper`)
 * and calls a line that opens too many too deep whatever else is wrong with it; the walk stops at the
 * first fault, which may come before the depth does (or after: an unclosed string ends its count).
 */
function refused(b: Uint8Array, start: number, end: number, err: SkimError): SkimError {
  const reason: BadLineReason = nestsDeeper(b, start, end) ? 'too-deep' : 'not-json-object';
  return reason === err.reason ? err : new SkimError(err.message, reason);
}

/** Index just past the closing quote of the string whose opening quote is at `i - 1` (`stringEnd`). */
export function skipString(b: Uint8Array, i: number, end: number): number {
  const after = stringEnd(b, i, end);
  return after < 0 ? fail('not a string') : after;
}

/** `skipString` for an object's key, which also notes a key written with an escape. */
function skipKey(b: Uint8Array, ks: number, end: number): number {
  const after = stringEnd(b, ks, end);
  if (after < 0) return fail('not a string');
  if (hadEscape()) escapedKey = true;
  // A long key is never a wanted one as written, but an escape past its first bytes may spell one.
  else if (after - ks > SHORT_STRING)
    for (let i = ks; i < after - 1; i++) if (b[i] === BACKSLASH) escapedKey = true;
  return after;
}

/** The bracket that opened each container `skipContainer` is inside of, by `level`. */
const opened = new Uint8Array(MAX_JSON_DEPTH + 2);

// What `skipContainer` expects next inside the innermost container.
/** A first member or element, or the close of an empty container. */
const FIRST = 0;
/** A member's key (after a comma in an object). */
const KEY = 1;
/** The colon after a key. */
const AFTER_KEY = 2;
/** A value (after a colon, or a comma in an array). */
const VALUE = 3;
/** A comma, or the container's close. */
const NEXT = 4;

/**
 * Index just past the object or array that opens at `i`, held to JSON's grammar: keys are strings
 * followed by a colon, members and elements are separated by commas, and each container is closed by
 * its own kind of bracket. One flat loop over the tokens, with the containers it is inside of on a
 * stack (`opened`) bounded by `MAX_JSON_DEPTH`, and its tests written out rather than called: a
 * one-shot run walks most lines before V8 has compiled (and inlined) anything, where a call costs
 * more than the comparisons it holds.
 */
export function skipContainer(b: Uint8Array, i: number, end: number): number {
  const outer = level;
  if (++level > MAX_JSON_DEPTH) throw new SkimError('nested too deep', 'too-deep');
  opened[level] = b[i]!;
  i++;
  let expect = FIRST;
  for (;;) {
    if (i >= end) return fail('unterminated container');
    const c = b[i]!;
    if (c <= 0x20) {
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      return fail('control byte');
    }
    if (expect === VALUE) {
      if (c === QUOTE) {
        i = stringEnd(b, i + 1, end);
        if (i < 0) return fail('not a string');
      } else if (c === LBRACE || c === LBRACKET) {
        if (++level > MAX_JSON_DEPTH) throw new SkimError('nested too deep', 'too-deep');
        opened[level] = c;
        i++;
        expect = FIRST;
        continue;
      } else {
        const after = c === MINUS || (c >= 0x30 && c <= 0x39) ? numberEnd(b, i, end) : literalEnd(b, i, end);
        if (after < 0) return fail('not a value');
        i = after;
      }
      expect = NEXT;
    } else if (expect === NEXT || expect === FIRST) {
      // A close bracket is its open one plus two: `{` 0x7b and `}` 0x7d, `[` 0x5b and `]` 0x5d.
      if (c === opened[level]! + 2) {
        i++;
        if (--level === outer) return i;
        expect = NEXT;
      } else if (expect === FIRST) expect = opened[level] === LBRACE ? KEY : VALUE;
      else if (c === COMMA) {
        i++;
        expect = opened[level] === LBRACE ? KEY : VALUE;
      } else return fail('expected , or a close');
    } else if (expect === KEY) {
      if (c !== QUOTE) return fail('key is not a string');
      i = stringEnd(b, i + 1, end);
      if (i < 0) return fail('not a string');
      expect = AFTER_KEY;
    } else {
      if (c !== COLON) return fail('missing colon');
      i++;
      expect = VALUE;
    }
  }
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) {
    const c = b[i]!;
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) break;
  }
  return i;
}

/** Index just past the value starting at `i` (after whitespace), held to JSON's grammar. */
export function skipValue(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return fail('missing value');
  const c = b[i]!;
  if (c === QUOTE) return skipString(b, i + 1, end);
  if (c === LBRACE || c === LBRACKET) return skipContainer(b, i, end);
  const after = c === MINUS || (c >= 0x30 && c <= 0x39) ? numberEnd(b, i, end) : literalEnd(b, i, end);
  return after < 0 ? fail('not a value') : after;
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
  // Written out: `fill` is a call into the runtime, dearer than the few dozen stores it makes.
  for (let k = 0; k < out.length; k++) out[k] = -1;
  log?.clear();
  let i = skipSpace(b, start, end);
  if (i >= end || b[i] !== LBRACE) fail('not an object');
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === RBRACE) {
    log?.seal(b, start, i + 1);
    return i + 1;
  }
  level++;
  // Agents write compact JSON: `skipSpace` is called only where the next byte may be a space.
  for (;;) {
    if (i >= end || b[i] !== QUOTE) fail('key is not a string');
    const ks = i + 1;
    // A plain key (no backslash, no byte below 0x20, as `stringEnd` checks) is scanned here to its
    // quote in one pass, and has no escape to note; any other is `skipKey`'s, from its start.
    let k = ks;
    while (k < end && (b[k]! ^ 0x02) > 0x20 && b[k] !== BACKSLASH) k++;
    i = k < end && b[k] === QUOTE ? k + 1 : skipKey(b, ks, end);
    const ke = i - 1;
    const slot = keys.slot(b, ks, ke);
    if (i < end && b[i]! <= 0x20) i = skipSpace(b, i, end);
    if (i >= end || b[i++] !== COLON) fail('missing colon');
    if (i < end && b[i]! <= 0x20) i = skipSpace(b, i, end);
    const vs = i;
    const walked = slot >= 0 && visit !== undefined ? visit(slot, vs) : -1;
    i = walked >= 0 ? walked : skipValue(b, i, end);
    if (slot >= 0) {
      out[2 * slot] = vs;
      out[2 * slot + 1] = i;
    }
    log?.note(ks, ke, vs, i);
    if (i < end && b[i]! <= 0x20) i = skipSpace(b, i, end);
    const c = i < end ? b[i] : -1;
    if (c === COMMA) {
      i++;
      if (i < end && b[i]! <= 0x20) i = skipSpace(b, i, end);
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
  if (i >= end || b[i] !== LBRACKET) fail('not an array');
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === RBRACKET) return i + 1;
  level++;
  for (;;) {
    const vs = i;
    i = skipValue(b, i, end);
    each(vs, i);
    i = skipSpace(b, i, end);
    const c = i < end ? b[i] : -1;
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
  try {
    const after = members(b, start, end, keys, out, visit, log);
    if (skipSpace(b, after, end) !== end) {
      log?.clear();
      fail('trailing bytes');
    }
  } catch (err) {
    throw err instanceof SkimError ? refused(b, start, end, err) : err;
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
  try {
    walkMembers(b, start, end, each);
  } catch (err) {
    throw err instanceof SkimError ? refused(b, start, end, err) : err;
  }
}

/** `eachMember`'s walk; a refusal's reason is `eachMember`'s to settle. */
function walkMembers(
  b: Uint8Array,
  start: number,
  end: number,
  each: (ks: number, ke: number, vs: number, ve: number) => void,
): void {
  let i = skipSpace(b, start, end);
  if (i >= end || b[i] !== LBRACE) fail('not an object');
  i = skipSpace(b, i + 1, end);
  if (i >= end || b[i] !== RBRACE) {
    level++;
    for (;;) {
      if (i >= end || b[i] !== QUOTE) fail('key is not a string');
      const ks = i + 1;
      i = skipString(b, ks, end);
      const ke = i - 1;
      i = skipSpace(b, i, end);
      if (i >= end || b[i] !== COLON) fail('missing colon');
      const vs = skipSpace(b, i + 1, end);
      i = skipValue(b, vs, end);
      each(ks, ke, vs, i);
      i = skipSpace(b, i, end);
      if (i < end && b[i] === COMMA) {
        i = skipSpace(b, i + 1, end);
        continue;
      }
      if (i < end && b[i] === RBRACE) break;
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
