/**
 * JSON's grammar for the few tokens the skim's walk (`skim-walk.ts`) passes without decoding: where
 * a number, a literal or an escape ends, or -1 when the bytes are not one as `JSON.parse` reads it.
 *
 * Not here: strings (`skim-strings.ts`), containers or anything around a token (the walk's), nor a value
 * (`skim-values.ts`). What follows a token is the caller's to judge: `1x` is the number `1` followed
 * by a byte the walk then refuses.
 */

const MINUS = 0x2d;

/** The bytes a backslash may escape in a JSON string (`\uXXXX` is read apart). */
const ESCAPED = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPED[c.charCodeAt(0)] = 1;
/** Hexadecimal digits, for `\uXXXX`. */
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/**
 * Index just past the escape whose backslash is at `i`, or -1 when JSON has no such escape (`\x`,
 * `\u12`) or the span ends inside it.
 */
export function escapeEnd(b: Uint8Array, i: number, end: number): number {
  if (i + 1 >= end) return -1;
  const c = b[i + 1]!;
  if (c === 0x75) {
    if (i + 6 > end) return -1;
    for (let k = i + 2; k < i + 6; k++) if (HEX[b[k]!] !== 1) return -1;
    return i + 6;
  }
  return ESCAPED[c] === 1 ? i + 2 : -1;
}

/**
 * Where the number starting at `i` ends, or -1 when it is not spelled as JSON allows
 * (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
 */
export function numberEnd(b: Uint8Array, i: number, e: number): number {
  // Digit tests written out, not called: numbers are walked mostly before V8 has inlined anything.
  if (i < e && b[i] === MINUS) i++;
  if (i >= e || b[i]! < 0x30 || b[i]! > 0x39) return -1;
  if (b[i] === 0x30) i++;
  else while (i < e && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  if (i < e && b[i]! >= 0x30 && b[i]! <= 0x39) return -1;
  if (i < e && b[i] === 0x2e) {
    i++;
    if (i >= e || b[i]! < 0x30 || b[i]! > 0x39) return -1;
    while (i < e && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  }
  if (i < e && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < e && (b[i] === 0x2b || b[i] === MINUS)) i++;
    if (i >= e || b[i]! < 0x30 || b[i]! > 0x39) return -1;
    while (i < e && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  }
  return i;
}

/** Index just past the literal (`true`, `false`, `null`) at `i`, or -1 when there is none. */
export function literalEnd(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === 0x74)
    return i + 4 <= end && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65 ? i + 4 : -1;
  if (c === 0x6e)
    return i + 4 <= end && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c ? i + 4 : -1;
  if (c === 0x66)
    return i + 5 <= end && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65
      ? i + 5
      : -1;
  return -1;
}
