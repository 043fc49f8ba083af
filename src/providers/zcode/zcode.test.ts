import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { closeAll } from '../sqlite.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['zcode'], nowMs: NOW });

/** A ZCode database at `root` with `rows` of `model_usage` (id, session, status, input, output, cache read). */
function database(root: string, rows: [string, string, string, number, number, number][]): void {
  const path = join(root, 'cli', 'db', 'db.sqlite');
  mkdirSync(dirname(path), { recursive: true });
  const db = new Sqlite(path);
  db.exec(`CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, started_at INTEGER, model_id TEXT,
    status TEXT, input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
    cache_creation_input_tokens INTEGER, cache_read_input_tokens INTEGER, computed_total_tokens INTEGER)`);
  const insert = db.prepare('INSERT INTO model_usage VALUES (?, ?, 1786909042666, ?, ?, ?, ?, 0, 0, ?, ?)');
  for (const [id, session, status, input, output, cacheRead] of rows)
    insert.run(id, session, 'GLM-4.7', status, input, output, cacheRead, input + output);
  db.close();
}

describe("ZCode's usage database", () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  it('the recorded home: three sessions with their directories; a failed request leaves its session in error', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'zcode', 'home'), home.dir, { recursive: true });
    const rows = (await snap(home)).document.sessions
      .map((s) => [s.id, s.title, s.project, s.models, s.requests, s.state])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ['s-alpha', null, '/home/dev/shop', ['GLM-4.7'], 2, 'error'],
      ['s-beta', null, '/home/dev/blog', ['GLM-4.5-Air', 'GLM-4.7'], 2, 'idle'],
      ['s-gamma', null, '/home/dev/shop', ['GLM-4.5-Air'], 2, 'idle'],
    ]);
  });

  it('the cached part comes out of the input, held to it; only completed requests are billed', async () => {
    database(join(home.dir, '.zcode'), [
      ['u1', 's', 'completed', 1000, 50, 600],
      ['u2', 's', 'completed', 100, 5, 400],
      ['u3', 's', 'error', 0, 0, 0],
    ]);
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.requests, s.tokens]).toEqual([
      2,
      { input: 400, output: 55, cacheRead: 700, cacheWrite: 0, reasoning: null },
    ]);
  });

  it('$ZCODE_HOME names the roots, comma-separated; a request in two of them counts once', async () => {
    const a = join(home.dir, 'a');
    const b = join(home.dir, 'b');
    database(a, [['u1', 's', 'completed', 100, 10, 0]]);
    database(b, [
      ['u1', 's', 'completed', 100, 10, 0],
      ['u2', 's', 'completed', 50, 5, 0],
    ]);
    const doc = (await snap(home, { ZCODE_HOME: `${a},${b}` })).document;
    expect(doc.sessions.reduce((n, s) => n + (s.tokens.input ?? 0), 0)).toBe(150);
  });
});
