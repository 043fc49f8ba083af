/**
 * A line's own keys read off its bytes, for the drift readers' `skimmed` (`drift.ts`): the names
 * `Object.keys` gives of the parsed line, in the order it gives them, without parsing the line. A
 * sampled line can hold a megabyte of tool output, and a harness writes the same few dozen keys on
 * every line: a key it is known to write is recognised from its bytes and named by the string it
 * already has, and only a key it is not known to write is decoded.
 *
 * Not here: which values a reader wants (each hands over the spans it asked for), nor any judgement
 * of what the keys mean. A line this cannot name as the full parse would (an escaped key, a key
 * `Object.keys` would move to the front, a line that is not an object) is answered with null, and
 * the reader's caller parses it instead.
 */
import type { Known } from './drift.js';
import { eachMember, hasEscape, Keys, type MemberLog, SkimError } from './skim.js';

/** Longest known key looked up by its bytes; longer ones (none today) are decoded like unknown keys. */
const MAX_KNOWN_KEY_BYTES = 63;

/** Known keys by their bytes, each mapped to its name. */
export class KeyNames {
  private readonly keys: Keys;

  constructor(known: Known) {
    const names = [...known.fields].filter((n) => {
      const bytes = Buffer.byteLength(n);
      return bytes > 0 && bytes <= MAX_KNOWN_KEY_BYTES;
    });
    this.keys = new Keys(names);
  }

  /**
   * The name of the key whose bytes are `b[ks..ke)` (between its quotes), or null when only a full
   * parse can say: an escape, or digits first (`Object.keys` lists integer-like keys first, whatever
   * their place in the line).
   */
  name(b: Buffer, ks: number, ke: number): string | null {
    const first = b[ks]!;
    if (ks < ke && first >= 0x30 && first <= 0x39) return null;
    const slot = this.keys.slot(b, ks, ke);
    if (slot >= 0) return this.keys.names[slot]!;
    return hasEscape(b, ks, ke) ? null : b.toString('utf8', ks, ke);
  }
}

/**
 * Call `each(keyStart, keyEnd, valueStart, valueEnd)` for every member of the object at
 * `b[start..end)`, in order: from `walked` when it holds exactly that object (the extractor walked
 * it a moment ago), else by walking it. False when it is not an object (`SkimError`).
 */
export function eachOwnMember(
  b: Buffer,
  start: number,
  end: number,
  walked: MemberLog | undefined,
  each: (ks: number, ke: number, vs: number, ve: number) => void,
): boolean {
  if (walked?.holds(b, start, end)) {
    const spans = walked.spans;
    for (let k = 0; k < walked.count; k++)
      each(spans[4 * k]!, spans[4 * k + 1]!, spans[4 * k + 2]!, spans[4 * k + 3]!);
    return true;
  }
  try {
    eachMember(b, start, end, each);
    return true;
  } catch (err) {
    if (err instanceof SkimError) return false;
    throw err;
  }
}

/**
 * The line's own keys in the order `Object.keys` gives them (a repeated key in its first place),
 * calling `each(name, valueStart, valueEnd)` for every member in the line's order (a repeated key
 * each time, so the last call holds the value a parse keeps). Null when the full parse must answer.
 * `walked` is the extractor's log of the line, when it has one.
 */
export function ownKeys(
  b: Buffer,
  start: number,
  end: number,
  names: KeyNames,
  each: (name: string, vs: number, ve: number) => void,
  walked?: MemberLog,
): string[] | null {
  const fields: string[] = [];
  const seen = new Set<string>();
  let sure = true;
  const whole = eachOwnMember(b, start, end, walked, (ks, ke, vs, ve) => {
    if (!sure) return;
    const name = names.name(b, ks, ke);
    if (name === null) {
      sure = false;
      return;
    }
    if (!seen.has(name)) {
      seen.add(name);
      fields.push(name);
    }
    each(name, vs, ve);
  });
  return whole && sure ? fields : null;
}

/**
 * A string value's text when it has no escape; `undefined` when it has one (only a parse can say
 * what it is); null when the value is not a string.
 */
export function plainText(b: Buffer, vs: number, ve: number): string | null | undefined {
  if (b[vs] !== 0x22) return null;
  return hasEscape(b, vs + 1, ve - 1) ? undefined : b.toString('utf8', vs + 1, ve - 1);
}
