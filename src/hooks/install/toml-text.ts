/**
 * Just enough of TOML's text to edit one top-level key in place: where each top-level statement
 * (`key = value`, before the first `[table]`) starts and ends, its value's span included, through
 * strings of all four kinds, arrays over several lines and comments. Everything else in the file is
 * never looked into, so it stays as the user wrote it.
 *
 * It trusts the text to be TOML: the caller parses it whole with `smol-toml` first, and parses the
 * result again after an edit to check that nothing else changed. What it does not do: keys inside
 * tables, or dotted keys that reach into a table (`a.b = 1` is read as one statement, named `a.b`).
 */

/** One `key = value` before the first table. */
export interface Statement {
  /** The key as written, quotes removed and parts joined with dots. */
  key: string;
  /** Where its line starts. */
  start: number;
  valueStart: number;
  valueEnd: number;
  /** Just past its line's newline (or the end of the text). */
  lineEnd: number;
}

export interface TopLevel {
  statements: Statement[];
  /** Where the first table header's line starts; null when there is none. */
  firstTable: number | null;
}

const BLANK = /[ \t]/;

/** The top-level statements of a TOML text. */
export function topLevel(text: string): TopLevel {
  const statements: Statement[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    while (i < text.length && BLANK.test(text[i]!)) i++;
    const c = text[i];
    if (c === undefined) break;
    if (c === '\n' || c === '\r' || c === '#') {
      i = lineEnd(text, i);
      continue;
    }
    if (c === '[') return { statements, firstTable: start };
    const key = readKey(text, i);
    i = key.end;
    while (BLANK.test(text[i] ?? '')) i++;
    // Not `key =`: not TOML this reader knows; the caller's parser already said it is TOML, so stop.
    if (text[i] !== '=') return { statements, firstTable: null };
    i++;
    while (BLANK.test(text[i] ?? '')) i++;
    const valueStart = i;
    const valueEnd = valueEndAt(text, i);
    i = lineEnd(text, valueEnd);
    statements.push({ key: key.name, start, valueStart, valueEnd, lineEnd: i });
  }
  return { statements, firstTable: null };
}

/** Just past the newline of the line `i` is on. */
function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl === -1 ? text.length : nl + 1;
}

/** A key (bare, quoted, or dotted parts of either) starting at `i`. */
function readKey(text: string, i: number): { name: string; end: number } {
  const parts: string[] = [];
  for (;;) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = c === '"' ? basicEnd(text, i) : text.indexOf("'", i + 1) + 1;
      const raw = text.slice(i, end);
      parts.push(c === '"' ? String(JSON.parse(raw)) : raw.slice(1, -1));
      i = end;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
      parts.push(m ? m[0] : '');
      i += m ? m[0].length : 0;
    }
    let j = i;
    while (BLANK.test(text[j] ?? '')) j++;
    if (text[j] !== '.') return { name: parts.join('.'), end: i };
    i = j + 1;
    while (BLANK.test(text[i] ?? '')) i++;
  }
}

/** Just past the basic string (`"…"`) opening at `i`. */
function basicEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return text.length;
}

/** Just past a multi-line string opening at `i` with `quote` three times; up to two more quotes belong to it. */
function multiEnd(text: string, i: number, quote: '"' | "'"): number {
  const three = quote.repeat(3);
  for (let j = i + 3; j < text.length; j++) {
    if (quote === '"' && text[j] === '\\') {
      j++;
      continue;
    }
    if (text.startsWith(three, j)) {
      let end = j + 3;
      while (end < j + 5 && text[end] === quote) end++;
      return end;
    }
  }
  return text.length;
}

/** Just past the string of any kind opening at `i`. */
function stringEnd(text: string, i: number): number {
  if (text.startsWith('"""', i)) return multiEnd(text, i, '"');
  if (text.startsWith("'''", i)) return multiEnd(text, i, "'");
  if (text[i] === '"') return basicEnd(text, i);
  const end = text.indexOf("'", i + 1);
  return end === -1 ? text.length : end + 1;
}

/** Just past the value starting at `i`. */
function valueEndAt(text: string, i: number): number {
  const c = text[i];
  if (c === '"' || c === "'") return stringEnd(text, i);
  if (c === '[' || c === '{') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text[j];
      if (d === '"' || d === "'") j = stringEnd(text, j) - 1;
      else if (d === '#') j = lineEnd(text, j) - 1;
      else if (d === '[' || d === '{') depth++;
      else if (d === ']' || d === '}') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  // A number, a boolean or a date (which may hold a space): the rest of the line, less a comment.
  let j = i;
  while (j < text.length && text[j] !== '\n' && text[j] !== '\r' && text[j] !== '#') j++;
  while (j > i && BLANK.test(text[j - 1]!)) j--;
  return j;
}

/** A list of strings as TOML: basic strings, which read JSON's escapes (DEL, which JSON leaves bare, escaped). */
export function tomlStrings(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s).replace(/\u007f/g, '\\u007F')).join(', ')}]`;
}
