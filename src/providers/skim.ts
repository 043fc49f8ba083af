/**
 * Finding fields in the bytes of a JSON line without parsing all of it.
 *
 * A transcript line is mostly one or two enormous strings (a file the agent read, a tool's output,
 * encrypted reasoning) around a handful of small fields that session facts need. `JSON.parse` of
 * every line costs about ten times a walk that only follows the structure: strings are skipped with a
 * native `indexOf` once they turn out long, brackets are counted, and only the small values asked for
 * are decoded.
 *
 * A line the skim reads is one `JSON.parse` reads, and one it refuses gets the reason the full parse
 * gives, with one gap named in `skim-walk.ts` (a raw control byte or a bad escape past a string's
 * first 64 bytes, which the walk jumps over). The extractors built on this are proved equal to a
 * full parse on the whole corpus, and on mutated lines (`claude/bytes.test.ts`).
 *
 * This module is the skim's public face and holds no code: the walk over the structure is in
 * `skim-walk.ts` (its key table and member log in `skim-keys.ts`, where a string ends in
 * `skim-strings.ts`, JSON's grammar for numbers, literals and escapes in `skim-tokens.ts`), the decoding of the values it finds in
 * `skim-values.ts`. The extractors import from here, so the two halves stay one thing to them, and what each half keeps to itself (the JSON
 * punctuation bytes the two share) stays out of the extractors' reach.
 */

export { Keys, MemberLog } from './skim-keys.js';
export {
  bytesEqual,
  hasEscape,
  Interner,
  isoMsAt,
  isTrue,
  numberAt,
  stringAt,
  stringIs,
  stringPrefixAt,
  value,
} from './skim-values.js';
export {
  eachMember,
  elements,
  has,
  IS,
  keyEscaped,
  kind,
  lineObject,
  members,
  objectLine,
  SkimError,
  skipContainer,
  skipString,
  skipValue,
} from './skim-walk.js';
