/**
 * Where a JSON string ends, for the skim's walk (`skim-walk.ts`), and whether its bytes are what
 * `JSON.parse` accepts in a string, as far as they are looked at: its first `SHORT_STRING` bytes one
 * by one (no raw byte below 0x20, only JSON's escapes), the rest jumped over quote to quote. The
 * walk's module comment says why the rest is not looked at.
 *
 * Not here: decoding a string (`skim-values.ts`), nor refusing a line: a string that is not one is
 * -1, and the walk says why the line is bad.
 */
import { escapeEnd } from './skim-tokens.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Bytes scanned one at a time before a string is treated as long and skipped with `indexOf`. A
 * `Buffer#indexOf` call goes through a JavaScript wrapper (argument checks) before the native search,
 * which costs about what scanning a few dozen bytes does; in a one-shot run, which reads its lines
 * mostly before V8 has compiled the walk, the wrapper costs more. On the lines the "ten appended"
 * bench writes (10 MiB, 157k strings, 36k of them past 24 bytes) 64 read them for ~5% less CPU in a
 * fresh process than 24 did, and the same once compiled; 8 cost more, 128 and 256 no less.
 */
export const SHORT_STRING = 64;

let escapeSeen = false;

/** Whether the last string `stringEnd` read had an escape in its first `SHORT_STRING` bytes. */
export const hadEscape = (): boolean => escapeSeen;

/**
 * Index just past the closing quote of the string whose opening quote is at `i - 1`, or -1 when it
 * does not end by `end` or its first `SHORT_STRING` bytes hold a raw control byte or an escape JSON
 * does not have.
 */
export function stringEnd(b: Uint8Array, i: number, end: number): number {
  escapeSeen = false;
  const short = Math.min(end, i + SHORT_STRING);
  for (; i < short; i++) {
    const c = b[i]!;
    // The quote that ends the string, or a byte below 0x20 that spoils it, in the one comparison the
    // bare search for the quote made: flipping bit 1 maps `"` (0x22) to 0x20 and keeps every byte
    // below 0x20 below it, while the space (0x20) and `!` (0x21) go to 0x22 and 0x23. Written out,
    // not called: this runs for every byte, mostly before V8 has compiled (and inlined) anything.
    if ((c ^ 0x02) <= 0x20) return c === QUOTE ? i + 1 : -1;
    if (c === BACKSLASH) {
      escapeSeen = true;
      i = escapeEnd(b, i, end) - 1;
      if (i < 0) return -1;
    }
  }
  if (i >= end) return -1;
  // A long string: jump from quote to quote, checking whether each is escaped.
  for (;;) {
    const q = (b as Buffer).indexOf(QUOTE, i);
    if (q === -1 || q >= end) return -1;
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q + 1;
    i = q + 1;
  }
}
