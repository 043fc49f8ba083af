/**
 * Where to cut a text so that no secret is cut in two. Transcript text is kept to a bound (a
 * message's characters, a tool result's head, a call's one-line detail), and a bound that falls
 * inside a key would keep the key's head: too short for its rule to recognise, so the redaction that
 * runs afterwards (`redact.ts`) would let it through. A cut that lands inside a secret is moved to
 * the secret's end instead, so the whole key is kept, recognised and redacted.
 *
 * Most cuts cost nothing: a cut next to whitespace, or inside a word too short to be any credential
 * the rules know, splits no secret, and only a cut inside a long word runs the rules, over that word
 * and the name before it.
 *
 * Not here: what counts as a secret (`detect.ts`), or replacing one (`redact.ts`). A private key is a
 * block of lines, not a word: its head alone is redacted to the end of the text by `detect.ts`.
 */
import { findSecrets, RulesUnavailable } from './detect.js';

/**
 * The shortest credential the rules find (an AWS account id is 12 digits): a cut inside a shorter
 * word splits none.
 */
const SHORTEST_SECRET = 12;

/**
 * How far past the bound a cut may move, and how far along a word is looked at: longer than any
 * one-word credential seen in practice (an OpenAI project key is about 160 characters, a JSON web
 * token with its claims a few hundred to a couple of thousand).
 *
 * known limit: a secret longer than this, cut by a bound, keeps its head in view.
 */
export const CUT_REACH = 4096;

/**
 * Characters before the word that are scanned with it: a rule that knows a secret by the name in
 * front of it (`aws_secret_access_key = …`, `DB_PASSWORD=…`) needs that name.
 */
const NAME_REACH = 256;

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0;

/**
 * The first place at or after `at` where `text` may be cut without splitting a secret: `at` itself
 * unless a secret runs across it, else that secret's end.
 */
export function cutOutside(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return at;
  if (isSpace(text.charCodeAt(at - 1)) || isSpace(text.charCodeAt(at))) return at;
  const floor = Math.max(0, at - CUT_REACH);
  const ceiling = Math.min(text.length, at + CUT_REACH);
  let start = at;
  while (start > floor && !isSpace(text.charCodeAt(start - 1))) start--;
  let end = at;
  while (end < ceiling && !isSpace(text.charCodeAt(end))) end++;
  if (end - start < SHORTEST_SECRET) return at;
  const from = Math.max(0, start - NAME_REACH);
  let found: ReturnType<typeof findSecrets>;
  try {
    found = findSecrets(text.slice(from, end));
  } catch (err) {
    // Without the rules nothing is shown anyway (`redact` withholds the whole text).
    if (err instanceof RulesUnavailable) return at;
    throw err;
  }
  let cut = at;
  for (const f of found) if (from + f.start < at && from + f.end > cut) cut = from + f.end;
  return cut;
}
