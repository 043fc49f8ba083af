/**
 * The index counts the damaged rows a build drops or reads again, once each, however many cctops
 * met them; and a count that does not read is no count (doctor then says nothing).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
import { snapshotIn } from '../test-support/snapshot.js';
import { NO_DAMAGE_YET, readRowDamage, recordedRowDamage } from './row-damage.js';
import { type DamagedRow, INDEX_FILE, IndexStore } from './store.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');

describe('the count of damaged rows', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const cache = () => home.env.CCTOP_CACHE_DIR!;
  const opened = (): IndexStore => {
    const r = IndexStore.open(cache());
    if (r.kind !== 'open') throw new Error(r.notice);
    return r.store;
  };

  it('counts a row two cctops both found damaged once: the second finds it already dropped', async () => {
    const gone = home.write(
      home.claudeFile('-w', 'gone.jsonl'),
      claudeResponse('1', 5, '2026-11-29T10:00:00Z'),
    );
    home.write(home.claudeFile('-w', 'kept.jsonl'), claudeResponse('2', 7, '2026-11-29T10:00:00Z'));
    await snapshotIn(home.env, { nowMs: NOON });
    const db = new Database(join(cache(), INDEX_FILE));
    db.prepare("UPDATE files SET ledger = x'00' WHERE path = ?").run(gone);
    const roots = (db.prepare('SELECT DISTINCT root FROM files').all() as { root: string }[]).map(
      (r) => r.root,
    );
    db.close();
    rmSync(gone);

    const [first, second] = [opened(), opened()];
    try {
      const found = [first, second].map((s) => {
        const damaged: DamagedRow[] = [];
        s.load(roots, damaged);
        return damaged.map((d) => d.path);
      });
      expect(found).toEqual([[gone], [gone]]);
      first.save([], [], [gone]);
      second.save([], [], [gone]);
    } finally {
      first.close();
      second.close();
    }
    expect(recordedRowDamage(join(cache(), INDEX_FILE))).toEqual({ dropped: 1, readAgain: 0, since: 'made' });
  });

  it('is none for a new index, and nothing at all where there is no index', async () => {
    expect(recordedRowDamage(join(cache(), INDEX_FILE))).toBeNull();
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    await snapshotIn(home.env, { nowMs: NOON });
    expect(recordedRowDamage(join(cache(), INDEX_FILE))).toEqual(NO_DAMAGE_YET);
  });

  it.each([
    ['not JSON', '{"dropped": 1'],
    ['a negative count', '{"dropped": -1, "readAgain": 0, "since": "made"}'],
    ['a count that is not whole', '{"dropped": 1.5, "readAgain": 0, "since": "made"}'],
    ['no start', '{"dropped": 1, "readAgain": 0}'],
    ['an array', '[1, 0, "made"]'],
    [
      'a start past the last date there is',
      `{"dropped": 1, "readAgain": 0, "since": ${Number.MAX_SAFE_INTEGER}}`,
    ],
  ])('that is %s is no count', (_, value) => {
    expect(readRowDamage(value)).toBeNull();
  });

  it('reads back as written, from the index’s start or from a time', () => {
    expect(readRowDamage('{"dropped": 2, "readAgain": 1, "since": "made"}')).toEqual({
      dropped: 2,
      readAgain: 1,
      since: 'made',
    });
    expect(readRowDamage(`{"dropped": 0, "readAgain": 1, "since": ${NOON}}`)).toEqual({
      dropped: 0,
      readAgain: 1,
      since: NOON,
    });
  });
});
