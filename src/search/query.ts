/**
 * What a person types into `cctop search`, turned into an FTS5 query that means only what they
 * typed: words (every one must match), "a phrase" (its words in that order) and `prefix*` (any word
 * starting so). Every term reaches SQLite inside double quotes, so FTS5's own syntax (`OR`, `NOT`,
 * `NEAR`, `column:`, parentheses, `^`) is never run from user input: typed, it is searched for as
 * words. A query that cannot mean anything (an unclosed quote, a term with no letter or digit, a
 * one-letter prefix that would match half the index) is refused here with a reason a person can act
 * on, never handed to SQLite to fail with its own message.
 *
 * Not here: running the query (`store.ts`).
 */

/** Characters of a query: a paragraph pasted by mistake is refused rather than searched. */
export const MAX_QUERY_CHARS = 1000;

/** Terms in one query; each is a lookup in the index, and all must match. */
export const MAX_QUERY_TERMS = 32;

/**
 * Letters a prefix needs before its `*`: `a*` names nearly every word in the index, and ranking all
 * of them is a slow way to find nothing in particular.
 */
export const MIN_PREFIX_CHARS = 2;

export interface Term {
  kind: 'word' | 'phrase';
  /** As typed, without quotes or the trailing `*`. */
  text: string;
  prefix: boolean;
}

export type ParsedQuery =
  | { kind: 'query'; terms: Term[] /** The FTS5 MATCH expression. */; match: string }
  | { kind: 'malformed'; why: string };

/** What the index counts as a word character (its tokenizer, `unicode61`, splits on the rest). */
const WORD_CHAR = /[\p{L}\p{N}]/u;
const TRAILING_WORD = /[\p{L}\p{N}]+$/u;

const malformed = (why: string): ParsedQuery => ({ kind: 'malformed', why });

/** A term as FTS5 reads it: a quoted string (its own quotes doubled), `*` after it for a prefix. */
function quoted(t: Term): string {
  return `"${t.text.replace(/"/g, '""')}"${t.prefix ? '*' : ''}`;
}

/** Why a term cannot be searched for, or null when it can. */
function refusal(t: Term): string | null {
  const shown = t.kind === 'phrase' ? `"${t.text}"` : t.text;
  if (!WORD_CHAR.test(t.text))
    return t.text.trim().length === 0
      ? 'an empty phrase ("") has nothing to search for'
      : `${shown}${t.prefix ? '*' : ''} has no letter or digit to search for`;
  if (t.prefix && (TRAILING_WORD.exec(t.text)?.[0].length ?? 0) < MIN_PREFIX_CHARS)
    return `${shown}*: a prefix needs at least ${MIN_PREFIX_CHARS} letters before the *`;
  return null;
}

/** The terms of `input`, in order, or why it has none that can be searched for. */
function split(input: string): Term[] | string {
  const terms: Term[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const close = input.indexOf('"', i + 1);
      if (close < 0) return `the phrase starting at "${input.slice(i + 1, i + 21)}" has no closing quote`;
      let end = close + 1;
      while (input[end] === '*') end++;
      terms.push({ kind: 'phrase', text: input.slice(i + 1, close), prefix: end > close + 1 });
      i = end;
      continue;
    }
    let end = i;
    while (end < input.length && !/\s/.test(input[end]!) && input[end] !== '"') end++;
    const word = input.slice(i, end);
    const bare = word.replace(/\*+$/, '');
    terms.push({ kind: 'word', text: bare.length > 0 ? bare : word, prefix: bare.length < word.length });
    i = end;
  }
  return terms;
}

/** Turn what was typed into a query the index runs as it was meant, or say why it cannot be. */
export function parseQuery(input: string): ParsedQuery {
  if (input.length > MAX_QUERY_CHARS)
    return malformed(`a query is at most ${MAX_QUERY_CHARS} characters (this one has ${input.length})`);
  const terms = split(input);
  if (typeof terms === 'string') return malformed(terms);
  if (terms.length === 0) return malformed('the query is empty: give a word, a "phrase" or a prefix*');
  if (terms.length > MAX_QUERY_TERMS)
    return malformed(`a query has at most ${MAX_QUERY_TERMS} terms (this one has ${terms.length})`);
  for (const t of terms) {
    const why = refusal(t);
    if (why !== null) return malformed(why);
  }
  return { kind: 'query', terms, match: terms.map(quoted).join(' ') };
}
