/**
 * An index row too damaged to decode costs one read, never a build on every run. The file it stood
 * for is read again when it is still there (even under --since, which skips old files the index does
 * not hold), and the row is dropped when the file is gone: left in place, it is counted as a file the
 * index holds but never loaded, so no kept build ever matched the count and every run built again.
 *
 * Each test builds a real index (SQLite) from transcripts on disk, damages one row the way a torn
 * write or a bad disk would, and runs refreshes as one-shot commands do.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../model/document.js';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
import { snapshotIn } from '../test-support/snapshot.js';
import { INDEX_FILE } from './store.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');

const comparable = (d: SessionDocument) => ({ ...d, generatedAt: '' });

/** Ways a row stops decoding: each column a row is rebuilt from, made unreadable on its own. */
const DAMAGES = [
  { what: 'facts that are not JSON', sql: 'UPDATE files SET facts = \'{"sessions": [\' WHERE path = ?' },
  { what: 'a ledger cut mid-number', sql: 'UPDATE files SET ledger = substr(ledger, 1, 6) WHERE path = ?' },
  { what: 'a model list that is not JSON', sql: "UPDATE files SET models = 'claude-' WHERE path = ?" },
] as const;

describe('a damaged index row', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const snap = (useIndex = true, sinceMs: number | null = null) =>
    snapshotIn(home.env, { sinceMs, useIndex, nowMs: NOON });

  const index = () => new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));

  function damage(sql: string, path: string): void {
    const db = index();
    try {
      expect(db.prepare(sql).run(path).changes).toBe(1);
    } finally {
      db.close();
    }
  }

  /** The paths of the index's rows, sorted. */
  function rows(): string[] {
    const db = index();
    try {
      return (db.prepare('SELECT path FROM files ORDER BY path').all() as { path: string }[]).map(
        (r) => r.path,
      );
    } finally {
      db.close();
    }
  }

  for (const d of DAMAGES) {
    it(`of a deleted transcript (${d.what}) is dropped by one build, and the next run answers from the kept build as a cold read does`, async () => {
      const gone = home.write(
        home.claudeFile('-w', 'gone.jsonl'),
        claudeResponse('1', 500, '2026-11-29T10:00:00Z'),
      );
      const kept = home.write(
        home.claudeFile('-w', 'kept.jsonl'),
        claudeResponse('2', 5, '2026-11-29T10:00:00Z'),
      );
      expect((await snap()).strategy).toBe('built');
      damage(d.sql, gone);
      rmSync(gone);

      const first = await snap();
      expect(first.strategy).toBe('built');
      const second = await snap();
      expect(second.strategy).toBe('kept');
      expect(second.declined).toEqual([]);
      expect(rows()).toEqual([kept]);
      const cold = await snap(false);
      expect(second.document.sessions.map((s) => s.id)).toEqual(['kept']);
      expect(comparable(second.document)).toEqual(comparable(cold.document));
      expect(comparable(first.document)).toEqual(comparable(cold.document));
    });
  }

  it('of a transcript still there is read again once, from the start, and then tailed as before', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 7, '2026-11-29T10:00:00Z'));
    await snap();
    damage(DAMAGES[0].sql, path);
    appendFileSync(path, claudeResponse('3', 11, '2026-11-29T10:30:00Z'));

    const healed = await snap();
    expect(healed.stats).toMatchObject({ read: 1, tailed: 0, reused: 1 });
    expect(comparable(healed.document)).toEqual(comparable((await snap(false)).document));
    expect(healed.document.sessions.find((s) => s.file === path)!.tokens.output).toBe(16);

    const more = claudeResponse('4', 13, '2026-11-29T11:00:00Z');
    appendFileSync(path, more);
    const next = await snap();
    expect(next.stats).toMatchObject({ read: 0, tailed: 1, bytesRead: Buffer.byteLength(more) });
    expect(next.document.sessions.find((s) => s.file === path)!.tokens.output).toBe(29);
  });

  it('of an old transcript under --since is read again, so the run after a build answers from the kept build', async () => {
    const since = Date.parse('2026-11-29T00:00:00Z');
    const old = home.write(
      home.claudeFile('-w', 'old.jsonl'),
      claudeResponse('1', 5, '2026-11-20T10:00:00Z'),
      Date.parse('2026-11-20T10:05:00Z'),
    );
    home.write(home.claudeFile('-w', 'new.jsonl'), claudeResponse('2', 7, '2026-11-29T10:00:00Z'));
    // A run over every day stores the old file; one under --since then keeps its own build.
    await snap();
    await snap(true, since);
    damage(DAMAGES[0].sql, old);
    // Something new, so the next run builds (a patch declines under --since) and meets the damaged row.
    home.write(home.claudeFile('-w', 'newer.jsonl'), claudeResponse('3', 9, '2026-11-29T11:00:00Z'));

    const built = await snap(true, since);
    expect(built.strategy).toBe('built');
    expect(built.stats).toMatchObject({ read: 2, reused: 1 });
    const after = await snap(true, since);
    expect(after.strategy).toBe('kept');
    expect(comparable(after.document)).toEqual(comparable(built.document));
  });
});
