/**
 * What a typed query becomes: every term quoted for FTS5, so only words, phrases and prefixes are
 * ever run, and a query that cannot mean anything is refused with a reason, never passed to SQLite.
 * The translated queries are also run against a real FTS5 table, so "refused here" and "runs there"
 * are both checked.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, parseQuery } from './query.js';
import { openCommand, shapeSnippet } from './search.js';
import { MARK_CLOSE, MARK_OPEN } from './store.js';

const matchOf = (q: string): string => {
  const p = parseQuery(q);
  if (p.kind !== 'query') throw new Error(p.why);
  return p.match;
};

const why = (q: string): string => {
  const p = parseQuery(q);
  if (p.kind !== 'malformed') throw new Error(`"${q}" was taken as ${p.match}`);
  return p.why;
};

describe('a query as typed', () => {
  it('words must all match, each quoted', () => {
    expect(matchOf('race condition')).toBe('"race" "condition"');
  });

  it('a phrase stays one term, in order', () => {
    expect(matchOf('"paths with parentheses" shell')).toBe('"paths with parentheses" "shell"');
  });

  it('a trailing star makes a prefix, of a word or of a phrase', () => {
    expect(matchOf('optim*')).toBe('"optim"*');
    expect(matchOf('"read only"*')).toBe('"read only"*');
  });

  it('punctuation belongs to the word: a path or a command is searched as its words in order', () => {
    expect(matchOf('src/index.ts lab-call-ok')).toBe('"src/index.ts" "lab-call-ok"');
  });

  it('FTS5 operators and syntax are searched as words, never run', () => {
    expect(matchOf('cache OR NOT NEAR(a b)')).toBe('"cache" "OR" "NOT" "NEAR(a" "b)"');
    expect(matchOf('text:secret ^start')).toBe('"text:secret" "^start"');
  });

  it('a double quote inside a word ends it and starts a phrase', () => {
    expect(matchOf('say"hello world"')).toBe('"say" "hello world"');
  });
});

describe('a query that cannot mean anything is refused, saying why', () => {
  it('an unclosed phrase', () => {
    expect(why('"never closed')).toMatch(/no closing quote/);
  });

  it('nothing, or nothing but spaces or an empty phrase', () => {
    expect(why('')).toMatch(/empty/);
    expect(why('   ')).toMatch(/empty/);
    expect(why('""')).toMatch(/empty phrase/);
  });

  it('a term with no letter or digit', () => {
    expect(why('--- ok')).toMatch(/--- has no letter or digit/);
    expect(why('*')).toMatch(/no letter or digit/);
  });

  it('a prefix of one letter', () => {
    expect(why('a*')).toMatch(/at least 2 letters/);
    expect(why('src/i*')).toMatch(/at least 2 letters/);
  });

  it('a query past its bounds', () => {
    expect(why('x'.repeat(MAX_QUERY_CHARS + 1))).toMatch(/at most 1000 characters/);
    expect(why(Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => `w${i}`).join(' '))).toMatch(
      /at most 32 terms/,
    );
  });
});

describe('what the quoted query does in FTS5', () => {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')");
  const rows = [
    'Handling paths with parentheses in shell commands',
    'the command printed lab-call-ok',
    'an optimistic update of the team',
    'Café au lait, with NEAR(a b) in it',
  ];
  for (const r of rows) db.prepare('INSERT INTO t (text) VALUES (?)').run(r);
  const hits = (q: string): string[] =>
    (
      db.prepare('SELECT text FROM t WHERE t MATCH ? ORDER BY rowid').all(matchOf(q)) as { text: string }[]
    ).map((r) => r.text);

  it('finds words, phrases and prefixes, without case or accents', () => {
    expect(hits('"paths with parentheses"')).toEqual([rows[0]]);
    expect(hits('parentheses paths')).toEqual([rows[0]]);
    expect(hits('"parentheses with paths"')).toEqual([]);
    expect(hits('optim*')).toEqual([rows[2]]);
    expect(hits('LAB-CALL-OK')).toEqual([rows[1]]);
    expect(hits('cafe')).toEqual([rows[3]]);
  });

  it('runs what would be FTS5 syntax as plain words', () => {
    expect(hits('NEAR(a b)')).toEqual([rows[3]]);
    expect(hits('OR')).toEqual([]);
  });
});

describe('a snippet as a view gets it', () => {
  it('is one line with its matches found', () => {
    const s = shapeSnippet(
      `the ${MARK_OPEN}race${MARK_CLOSE}\n\ncondition in ${MARK_OPEN}queue${MARK_CLOSE}.ts`,
    );
    expect(s.snippet).toBe('the race condition in queue.ts');
    expect(s.marks.map(([a, b]) => s.snippet.slice(a, b))).toEqual(['race', 'queue']);
  });

  it('a long one is cut around its first match, never inside an emoji', () => {
    const long = `${'😀'.repeat(400)} ${MARK_OPEN}needle${MARK_CLOSE} ${'x '.repeat(400)}`;
    const s = shapeSnippet(long);
    expect(s.snippet.length).toBeLessThanOrEqual(302);
    expect(s.snippet.startsWith('…')).toBe(true);
    expect(s.snippet.endsWith('…')).toBe(true);
    expect(s.marks.map(([a, b]) => s.snippet.slice(a, b))).toEqual(['needle']);
    expect(s.snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('the command that opens a result', () => {
  it('names the session and the turn; an id a shell would split is quoted', () => {
    expect(openCommand('01997e76-d124-7592-9cac-2ec05abbca08', 6)).toBe(
      'cctop chat 01997e76-d124-7592-9cac-2ec05abbca08 --at 6',
    );
    expect(openCommand("odd id's", null)).toBe("cctop chat 'odd id'\\''s'");
  });
});
