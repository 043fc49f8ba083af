/**
 * `cctop doctor` says when the index held rows too damaged to decode and what was done with them:
 * dropped (their transcript was gone) or read again. The build that healed them is usually a plain
 * `cctop --json`, which says nothing; the index keeps the count, and every doctor after says it. An
 * index with no count (made before cctop kept one) gets no line, never a zero nobody counted.
 *
 * The built CLI in a child process against a fake home; rows damaged with SQLite as a torn write
 * would leave them.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROW_DAMAGE_KEY } from '../src/index/row-damage.js';
import { INDEX_FILE } from '../src/index/store.js';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');

/** Longer than any of these runs takes, shorter than the test timeout: a hang shows as a failure. */
const HANG_MS = 20_000;

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

function cctop(...args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** Doctor's lines about the index's rows (none, or one). */
const rowLines = () =>
  cctop('doctor')
    .split('\n')
    .filter((l) => l.startsWith('Index rows'));

/** Run `sql` on the index (each `?` is `args`), as another program would. */
function onIndex<T>(use: (db: Database.Database) => T): T {
  const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Make the rows of these transcripts undecodable: their facts are no longer JSON. */
const damage = (...paths: string[]) =>
  onIndex((db) => {
    const update = db.prepare('UPDATE files SET facts = \'{"sessions": [\' WHERE path = ?');
    for (const p of paths) expect(update.run(p).changes).toBe(1);
  });

const transcript = (name: string, output: number) =>
  home.write(
    home.claudeFile('-w', `${name}.jsonl`),
    claudeResponse(name, output, '2026-11-29T10:00:00Z'),
    Date.parse('2026-11-29T10:05:00Z'),
  );

describe('cctop doctor on the index’s damaged rows', () => {
  it('says none were found since the index was made, when none were', () => {
    transcript('a', 5);
    cctop('--json');
    expect(rowLines()).toEqual(['Index rows  none found damaged since the index was made']);
  });

  it('says how many a plain --json dropped and read again, in every doctor after', () => {
    const gone = transcript('gone', 5);
    const kept = transcript('kept', 7);
    const also = transcript('also', 9);
    cctop('--json');
    damage(gone, kept, also);
    rmSync(gone);

    cctop('--json');
    const said =
      'Index rows  3 rows found damaged since the index was made (a torn write or a bad disk): 1 dropped (its transcript was gone), 2 read again from their transcripts';
    expect(rowLines()).toEqual([said]);
    cctop('--json');
    expect(rowLines()).toEqual([said]);

    // Counted again, not anew: one more dropped.
    damage(kept);
    rmSync(kept);
    cctop('--json');
    expect(rowLines()).toEqual([
      'Index rows  4 rows found damaged since the index was made (a torn write or a bad disk): 2 dropped (their transcripts were gone), 2 read again from their transcripts',
    ]);
  });

  it('says nothing for an index with no count, and counts from the first row it then finds', () => {
    const a = transcript('a', 5);
    transcript('b', 7);
    cctop('--json');
    // An index made before cctop counted damaged rows.
    onIndex((db) => db.prepare('DELETE FROM meta WHERE key = ?').run(ROW_DAMAGE_KEY));
    expect(rowLines()).toEqual([]);

    damage(a);
    rmSync(a);
    const before = Date.now();
    cctop('--json');
    const after = Date.now();
    const since = onIndex((db) => {
      const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(ROW_DAMAGE_KEY) as { value: string };
      return (JSON.parse(row.value) as { since: number }).since;
    });
    expect(since).toBeGreaterThanOrEqual(before);
    expect(since).toBeLessThanOrEqual(after);
    const minute = new Date(since).toISOString().slice(0, 16).replace('T', ' ');
    expect(rowLines()).toEqual([
      `Index rows  1 row found damaged since ${minute} UTC (a torn write or a bad disk): 1 dropped (its transcript was gone)`,
    ]);
  });
});
