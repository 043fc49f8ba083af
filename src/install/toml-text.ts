/**
 * Just enough of TOML's text to edit a key or a table in place: where each statement (`key = value`)
 * starts and ends, its value's span included, and where each table (`[a.b]`, `[[a]]`) starts and
 * ends, through strings of all four kinds, arrays over several lines and comments. Everything else in
 * the file is never looked into, so it stays as the user wrote it.
 *
 * It trusts the text to be TOML: the caller parses it whole with `smol-toml` first, and parses the
 * result again after an edit to check that nothing else changed. Where it meets something it does
 * not know, it stops and says so (`complete: false`), and the caller edits nothing past that point.
 * What it does not do: follow dotted keys into the tables they reach (`a.b = 1` is read as one
 * statement, named `a.b`), or inline tables' members.
 */

/** One `key = value`. */
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

/** The statements before the first table, or one table and its statements. */
export interface Section {
  /** The table's key, part by part (`["mcp_servers", "cctop"]`); null before the first table. */
  header: string[] | null;
  /** `[[…]]`: one element of an array of tables. */
  array: boolean;
  /** Where its header's line starts (0 for the statements before the first table). */
  start: number;
  statements: Statement[];
  /** Where the next table's header line starts, or the end of the text. */
  end: number;
}

export interface Sections {
  sections: Section[];
  /** False when the reader stopped at something it does not know; the sections after it are missing. */
  complete: boolean;
}

export interface TopLevel {
  statements: Statement[];
  /** Where the first table header's line starts; null when there is none. */
  firstTable: number | null;
}

const BLANK = /[ \t]/;

/** The top-level statements of a TOML text. */
export function topLevel(text: string): TopLevel {
  const { sections } = tomlSections(text);
  return { statements: sections[0]!.statements, firstTable: sections[1]?.start ?? null };
}

/** Every section of a TOML text, in order; the first is the top level's (its statements may be none). */
export function tomlSections(text: string): Sections {
  const sections: Section[] = [{ header: null, array: false, start: 0, statements: [], end: text.length }];
  const stop = (complete: boolean): Sections => ({ sections, complete });
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
    if (c === '[') {
      const header = readHeader(text, i);
      // Not a header this reader knows; the caller's parser already said it is TOML, so stop.
      if (header === null) return stop(false);
      sections.at(-1)!.end = start;
      sections.push({ header: header.parts, array: header.array, start, statements: [], end: text.length });
      i = header.end;
      continue;
    }
    const key = readKey(text, i);
    i = key.end;
    while (BLANK.test(text[i] ?? '')) i++;
    if (text[i] !== '=') return stop(false);
    i++;
    while (BLANK.test(text[i] ?? '')) i++;
    const valueStart = i;
    const valueEnd = valueEndAt(text, i);
    i = lineEnd(text, valueEnd);
    sections.at(-1)!.statements.push({ key: key.parts.join('.'), start, valueStart, valueEnd, lineEnd: i });
  }
  return stop(true);
}

/** A table header at `i` (`[a.b]` or `[[a]]`), to just past its line; null when it is not one. */
function readHeader(text: string, i: number): { parts: string[]; array: boolean; end: number } | null {
  const array = text[i + 1] === '[';
  let j = i + (array ? 2 : 1);
  while (BLANK.test(text[j] ?? '')) j++;
  const key = readKey(text, j);
  j = key.end;
  while (BLANK.test(text[j] ?? '')) j++;
  const close = array ? ']]' : ']';
  if (key.parts.length === 0 || !text.startsWith(close, j)) return null;
  j += close.length;
  while (BLANK.test(text[j] ?? '')) j++;
  if (j < text.length && text[j] !== '#' && text[j] !== '\n' && text[j] !== '\r') return null;
  return { parts: key.parts, array, end: lineEnd(text, j) };
}

/** Just past the newline of the line `i` is on. */
function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl === -1 ? text.length : nl + 1;
}

/** A basic string's value; its text as written when JSON does not read its escapes (TOML's `\U`, `\e`). */
function basicValue(raw: string): string {
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw.slice(1, -1);
  }
}

/** A key (bare, quoted, or dotted parts of either) starting at `i`; no parts when there is none. */
function readKey(text: string, i: number): { parts: string[]; end: number } {
  const parts: string[] = [];
  for (;;) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const close = c === '"' ? basicEnd(text, i) : text.indexOf("'", i + 1) + 1;
      const end = close > i ? close : text.length;
      const raw = text.slice(i, end);
      parts.push(c === '"' ? basicValue(raw) : raw.slice(1, -1));
      i = end;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
      if (m === null) return { parts, end: i };
      parts.push(m[0]);
      i += m[0].length;
    }
    let j = i;
    while (BLANK.test(text[j] ?? '')) j++;
    if (text[j] !== '.') return { parts, end: i };
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
