/**
 * Each rule on which a patch declines, met on purpose: the patch says why, the index builds in full,
 * and the answer is what a cold read gives. (The rules a random history meets by chance are also run
 * by `strategies.test.ts`.)
 */
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../model/document.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { oneShotOptions } from '../test-support/snapshot.js';
import { PATCH_MAX_FILES } from './patch.js';
import { type SnapshotOptions, takeSnapshot } from './snapshot.js';
import { INDEX_FILE } from './store.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');

describe('when a patch declines', () => {
  let home: FakeHome;
  const a = () => home.claudeFile('-w', 'a.jsonl');

  beforeEach(() => {
    home = new FakeHome();
    home.write(a(), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
  });
  afterEach(() => home.cleanup());

  const options = (o: Partial<SnapshotOptions> = {}): SnapshotOptions =>
    oneShotOptions(home.env, { nowMs: NOON, ...o });
  /** The document as text, without its clock or what only an index can say about itself. */
  const text = (json: Buffer) => {
    const d = JSON.parse(json.toString()) as SessionDocument;
    return JSON.stringify({ ...d, generatedAt: '', problems: d.problems.filter((p) => p.kind !== 'cache') });
  };
  const sql = (statement: string) => {
    const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
  };

  /** The run after a change: built in full because the patch declined for `reason`, and right. */
  async function declinesFor(reason: string | RegExp, o: Partial<SnapshotOptions> = {}) {
    const s = await takeSnapshot(options(o));
    const patched = s.declined.find((d) => d.strategy === 'patched');
    expect(patched?.reason).toMatch(reason);
    expect(s.strategy).toBe('built');
    const cold = await takeSnapshot(options({ ...o, useIndex: false }));
    expect(text(s.json())).toBe(text(cold.json()));
    return s;
  }

  it('--since counts only part of each file: a patch is not tried', async () => {
    const since = { sinceMs: Date.parse('2026-11-29T09:30:00Z') };
    await takeSnapshot(options(since));
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    await declinesFor('--since counts only part of each file', since);
  });

  it(`more than ${PATCH_MAX_FILES} changed files are built in full`, async () => {
    await takeSnapshot(options());
    for (let i = 0; i <= PATCH_MAX_FILES; i++)
      home.write(home.claudeFile('-many', `n${i}.jsonl`), claudeResponse(`n${i}`, 1, '2026-11-29T11:00:00Z'));
    await declinesFor(`${PATCH_MAX_FILES + 1} files changed (a patch takes at most ${PATCH_MAX_FILES})`);
  });

  it('a transcript a patch read and that was deleted before a build was kept is built, as a deleted session', async () => {
    await takeSnapshot(options());
    const c = home.claudeFile('-w', 'c.jsonl');
    home.write(c, claudeResponse('3', 4, '2026-11-29T11:00:00Z'));
    // Read by a patch that is not written back (the next run patches the same kept build again): the
    // index holds c's row, the kept build does not list it.
    expect((await takeSnapshot(options())).strategy).toBe('patched');
    expect((await takeSnapshot(options())).strategy).toBe('patched');
    rmSync(c);
    appendFileSync(a(), claudeResponse('4', 7, '2026-11-29T10:01:00Z'));
    const s = await takeSnapshot(options());
    expect(s.declined.map((d) => [d.strategy, d.reason])).toEqual([
      ['kept', 'transcripts changed since the kept build'],
      ['patched', 'the index holds other files than the kept build'],
    ]);
    expect(s.strategy).toBe('built');
    expect(s.document.sessions.map((x) => [x.id, x.deleted, x.requests])).toEqual([
      ['c', true, 1],
      ['a', false, 2],
      ['b', false, 1],
    ]);
  });

  it('a transcript gone from disk and from the index is built in full', async () => {
    await takeSnapshot(options());
    rmSync(a());
    sql(`DELETE FROM files WHERE path LIKE '%a.jsonl'`);
    await declinesFor(/a\.jsonl is gone and the index does not hold it$/);
  });

  it('a file of a changed session that the index no longer holds is built in full', async () => {
    const sub = join(home.dir, '.claude', 'projects', '-w', 'a', 'subagents', 'agent-x.jsonl');
    home.write(
      sub,
      claudeResponse('s1', 2, '2026-11-29T10:00:30Z').replace(
        '"sessionId":"s"',
        '"sessionId":"a","isSidechain":true',
      ),
    );
    await takeSnapshot(options());
    sql(`DELETE FROM files WHERE path LIKE '%agent-x.jsonl'`);
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    await declinesFor(/agent-x\.jsonl belongs to a changed session and the index does not hold it$/);
  });

  it('a new Claude summary could retitle any session: built in full', async () => {
    await takeSnapshot(options());
    appendFileSync(a(), jsonl({ type: 'summary', summary: 'Naming b', leafUuid: 'u-2' }));
    const s = await declinesFor('a new Claude summary could retitle any session');
    expect(s.document.sessions.find((x) => x.id === 'b')!.title).toBe('Naming b');
  });

  it('a second patch of the same kept build, with nothing changed since the first, answers by patch again', async () => {
    // `a` names `b` by a Claude summary; the patch is not written back (one file changed), so the
    // second run patches the same kept build while the index already holds `a` as it is now.
    home.write(
      a(),
      jsonl({ type: 'summary', summary: 'Naming b', leafUuid: 'u-2' }) +
        claudeResponse('1', 5, '2026-11-29T10:00:00Z'),
    );
    await takeSnapshot(options());
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    const cold = await takeSnapshot(options({ useIndex: false }));
    for (const run of ['first', 'second']) {
      const s = await takeSnapshot(options());
      expect(s.strategy, `${run} run after the append`).toBe('patched');
      expect(text(s.json())).toBe(text(cold.json()));
    }
    expect(cold.document.sessions.find((x) => x.id === 'b')!.title).toBe('Naming b');
  });

  it('a summary withdrawn by a rewrite that another scope already read is built in full', async () => {
    home.write(
      a(),
      jsonl({ type: 'summary', summary: 'Naming b', leafUuid: 'u-2' }) +
        claudeResponse('1', 5, '2026-11-29T10:00:00Z'),
    );
    await takeSnapshot(options());
    home.write(
      a(),
      claudeResponse('1', 5, '2026-11-29T10:00:00Z') + claudeResponse('3', 7, '2026-11-29T10:01:00Z'),
    );
    // Another scope (the plan) builds first, so the index holds `a` as it is now when this one patches.
    expect((await takeSnapshot(options({ plan: 'max' }))).strategy).toBe('built');
    const s = await declinesFor('a file that gave summaries gives other ones now');
    expect(s.document.sessions.find((x) => x.id === 'b')!.title).not.toBe('Naming b');
  });

  it('a build kept before it said which summaries each file gave is built in full once such a file grows', async () => {
    home.write(
      a(),
      jsonl({ type: 'summary', summary: 'Naming b', leafUuid: 'u-2' }) +
        claudeResponse('1', 5, '2026-11-29T10:00:00Z'),
    );
    await takeSnapshot(options());
    // As an older cctop stored it: 1 for a file that gave summaries, in place of their digest.
    const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    try {
      const { files } = db.prepare('SELECT files FROM packs').get() as { files: string };
      const rows = (JSON.parse(files) as unknown[][]).map((r) =>
        typeof r[9] === 'string' ? [...r.slice(0, 9), 1] : r,
      );
      db.prepare('UPDATE packs SET files = ?').run(JSON.stringify(rows));
    } finally {
      db.close();
    }
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    await declinesFor('the kept build does not say which summaries a file gave');
  });

  it('an index it cannot write (another cctop holds it) is built in full, and says so', async () => {
    await takeSnapshot(options());
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    const other = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    other.exec('BEGIN IMMEDIATE');
    try {
      const s = await declinesFor('the index could not be written (busy, or the disk is full)');
      expect(s.document.problems.map((p) => p.kind)).toEqual(['cache']);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 30_000);

  it('a kept build whose inputs do not read is built in full', async () => {
    await takeSnapshot(options());
    sql(`UPDATE packs SET files = '[["only", "a"]]'`);
    appendFileSync(a(), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    await declinesFor('the kept build has no inputs to patch');
  });

  it('with nothing kept for these options, neither the kept build nor a patch is tried', async () => {
    const s = await takeSnapshot(options());
    expect(s.declined).toEqual([
      { strategy: 'kept', reason: 'no build is kept for these options' },
      { strategy: 'patched', reason: 'no build is kept for these options' },
    ]);
  });
});
