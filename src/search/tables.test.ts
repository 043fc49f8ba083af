/**
 * The search index stores every turn redacted, so it is kept only while the redaction rules it was
 * written under are the ones this cctop runs: an upgrade of secretlint's rules makes it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteModule } from '../sqlite-module.js';
import { prepareTables } from './tables.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A search index file with one transcript read into it under `rules`, closed; its path. */
function indexWritten(rules: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cctop-search-tables-'));
  dirs.push(dir);
  const path = join(dir, 'search.sqlite');
  const { Database } = sqliteModule();
  const db = new Database(path);
  prepareTables(db, rules);
  db.prepare("INSERT INTO files (path, provider, session) VALUES ('/t.jsonl', 'claude', 's1')").run();
  db.prepare("INSERT INTO turns (text, role, seq, ts) VALUES ('the key is [redacted]', 'user', 0, 0)").run();
  db.close();
  return path;
}

/** The transcripts and turns the index at `path` holds once opened under `rules`. */
function heldUnder(path: string, rules: string): { files: number; turns: number } {
  const { Database } = sqliteModule();
  const db = new Database(path);
  try {
    prepareTables(db, rules);
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { files: count('files'), turns: count('turns') };
  } finally {
    db.close();
  }
}

describe('the search index under redaction rules', () => {
  it('is kept when opened under the rules it was written under', () => {
    const path = indexWritten('preset@11.7.1 aws@11.7.1');
    expect(heldUnder(path, 'preset@11.7.1 aws@11.7.1')).toEqual({ files: 1, turns: 1 });
  });

  it('is made again, every transcript to be read anew, when the rules were upgraded', () => {
    const path = indexWritten('preset@11.7.1 aws@11.7.1');
    expect(heldUnder(path, 'preset@11.8.0 aws@11.8.0')).toEqual({ files: 0, turns: 0 });
  });
});
