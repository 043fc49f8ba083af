/**
 * Which line of the config file a key is on, so a warning can say "line 7". The TOML parser keeps no
 * positions for the values it returns, so this reads the text again, line by line, the way people
 * write a config: `[table]` and `[[array]]` headers, then `key = value` lines.
 *
 * known limit: a best effort, not a second TOML parser. Quoted keys, inline tables and keys set inside a
 * multi-line array are not located; their warnings name the key without a line, which is all a
 * warning promised.
 */

/** `[[budget]]`, `[ alerts ]`: a header and whether it opens an array entry. */
const HEADER = /^\s*(\[\[?)\s*([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*\]\]?/;

/** `stall_minutes =`, `a.b =`: a bare (possibly dotted) key. */
const KEY = /^\s*([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=/;

/** Multi-line string delimiters: a line inside one is text, not a key. */
const LONG_QUOTE = /"""|'''/g;

const bare = (dotted: string): string => dotted.replace(/\s+/g, '');

/**
 * Every header and key written, as locators (`alerts`, `alerts.stall_minutes`, `budget#2`,
 * `budget#2.usd`; entries of an array of tables counted from 1) → the line it is first on (from 1).
 */
export function keyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const entries = new Map<string, number>();
  let table = '';
  let inLongString = false;
  for (const [i, line] of text.split('\n').entries()) {
    const quotes = line.match(LONG_QUOTE)?.length ?? 0;
    const startsInside = inLongString;
    if (quotes % 2 === 1) inLongString = !inLongString;
    if (startsInside) continue;
    const header = HEADER.exec(line);
    if (header) {
      const name = bare(header[2]!);
      if (header[1] === '[[') {
        const n = (entries.get(name) ?? 0) + 1;
        entries.set(name, n);
        table = `${name}#${n}`;
      } else table = name;
      if (!lines.has(table)) lines.set(table, i + 1);
      continue;
    }
    const key = KEY.exec(line);
    if (!key) continue;
    const at = table === '' ? bare(key[1]!) : `${table}.${bare(key[1]!)}`;
    if (!lines.has(at)) lines.set(at, i + 1);
  }
  return lines;
}

/**
 * The line of locator `at`, or of the nearest enclosing one written (`budget#2.usd` falls back to
 * `budget#2` when the key is not there, as for a missing setting); null when none is.
 */
export function lineOf(lines: Map<string, number>, at: string): number | null {
  for (let k = at; ; k = k.slice(0, k.lastIndexOf('.'))) {
    const n = lines.get(k);
    if (n !== undefined) return n;
    if (!k.includes('.')) return null;
  }
}
