/**
 * What `cctop push` decides on this machine, without a database: which fields of a session leave it,
 * how its state and queue files survive damage and stay bounded, how `~/.pgpass` is read, and which
 * `--every` it accepts. The store end to end is `push.test.ts`.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_STORE_TEXT_CHARS, quotaRows, sessionRows } from '../../src/store/build.js';
import {
  emptyQueue,
  itemDigest,
  itemKey,
  loadQueue,
  loadState,
  MAX_PUSH_QUEUE_ROWS,
  type PushItem,
  placeOf,
  type QueueEntry,
  saveQueue,
} from '../../src/store/local.js';
import { pgpassLookup } from '../../src/store/pgpass.js';
import type { SpendRow } from '../../src/store/rows.js';
import { tempDir } from '../../src/test-support/corpus.js';
import { labTranscript } from '../../src/test-support/owned.js';
import { documentOf, parsed } from '../../src/test-support/parse.js';
import { UsageError } from '../../src/views/cli/options.js';
import { parseEvery } from '../../src/views/cli/push.js';

const URL_ = 'postgres://alice@db.example.com/cctop';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function env(): Record<string, string> {
  const t = tempDir('cctop-push-');
  cleanups.push(t.cleanup);
  return { HOME: t.dir, CCTOP_CACHE_DIR: join(t.dir, 'cache') };
}

const spend = (day: string, requests = 1): PushItem => {
  const row: SpendRow = {
    host: 'laptop',
    harness: 'claude',
    day,
    model: 'claude-sonnet-4-5',
    project: '/work/shop',
    requests,
    tokens: { input: 1, output: 2, cacheRead: null, cacheWrite: null, reasoning: null },
    costUsd: 0.01,
    unpricedTokens: 0,
  };
  return { kind: 'spend', row };
};

const entry = (item: PushItem, queuedAt: string): QueueEntry => ({
  key: itemKey(item),
  digest: itemDigest(item),
  queuedAt,
  item,
});

describe('the rows a push makes', () => {
  const doc = () => documentOf([parsed('claude', labTranscript('claude', 'call'))]);

  test('a session title and branch leave the machine only with --titles, the state detail never', () => {
    const d = doc();
    const s = d.sessions[0]!;
    s.title = 'fix the billing export';
    s.branch = 'fix/acme-billing';
    s.stateDetail = 'Bash: rm -rf /tmp/secret';
    const without = sessionRows(d.sessions, 'laptop', false).rows[0]!;
    expect(without.title).toBeNull();
    expect(JSON.stringify(without)).not.toMatch(/acme|secret/);
    const withTitles = sessionRows(d.sessions, 'laptop', true).rows[0]!;
    expect(withTitles.title).toBe('fix the billing export');
    expect(withTitles.facts.branch).toBe('fix/acme-billing');
    expect(JSON.stringify(withTitles)).not.toContain('secret');
  });

  test('text PostgreSQL would refuse or that is past its bound is cleaned, and an oversized id leaves its row out', () => {
    const d = doc();
    const s = d.sessions[0]!;
    s.project = `/work/\u0000${'x'.repeat(MAX_STORE_TEXT_CHARS)}`;
    const row = sessionRows(d.sessions, 'laptop', false).rows[0]!;
    expect(row.project).not.toContain('\u0000');
    expect(row.project).toHaveLength(MAX_STORE_TEXT_CHARS);
    expect(row.project?.endsWith('…')).toBe(true);
    s.id = 'x'.repeat(1_000);
    expect(sessionRows(d.sessions, 'laptop', false)).toEqual({ rows: [], skipped: 1 });
  });
});

describe('the files a push keeps', () => {
  test('a queue past its bound keeps its newest rows and says how many older ones it dropped', () => {
    const e = env();
    const place = placeOf(e, URL_, 'laptop');
    const entries: QueueEntry[] = [];
    for (let i = 0; i < MAX_PUSH_QUEUE_ROWS + 3; i++) {
      const day = new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      entries.push(entry(spend(day), new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()));
    }
    expect(saveQueue(place, { ...emptyQueue(), entries, lastError: 'down' })).toBe(3);
    const q = loadQueue(place);
    expect(q.entries).toHaveLength(MAX_PUSH_QUEUE_ROWS);
    expect(q.dropped).toBe(3);
    expect(q.entries.map((x) => x.key)).not.toContain(entries[0]!.key);
    expect(q.entries.map((x) => x.key)).toContain(entries.at(-1)!.key);
  });

  test('a damaged queue loses only its damaged rows', () => {
    const e = env();
    const place = placeOf(e, URL_, 'laptop');
    saveQueue(place, {
      ...emptyQueue(),
      entries: [
        entry(spend('2026-11-30'), '2026-12-01T00:00:00Z'),
        entry(spend('2026-12-01'), '2026-12-01T00:00:00Z'),
      ],
    });
    const good = loadQueue(place).entries;
    expect(good).toHaveLength(2);
    const file = JSON.parse(
      JSON.stringify({ v: 1, entries: good.map((g) => ({ queuedAt: g.queuedAt, item: g.item })) }),
    );
    file.entries[0].item.row.harness = 'not-a-harness';
    file.entries.push({ queuedAt: 'yesterday', item: spend('2026-12-02') }, 'garbage', null);
    writeFileSync(place.queuePath, JSON.stringify(file));
    expect(loadQueue(place).entries.map((x) => x.item.kind === 'spend' && x.item.row.day)).toEqual([
      '2026-12-01',
    ]);
    writeFileSync(place.queuePath, '{"v":1,"entries":[');
    expect(loadQueue(place).entries).toEqual([]);
  });

  test('a queued quota figure comes back as it was, and one with a window or source cctop never writes does not', () => {
    const e = env();
    const place = placeOf(e, URL_, 'laptop');
    const [figure] = quotaRows(
      [
        {
          harness: 'claude',
          account: 'acc-1',
          plan: null,
          window: '5h',
          usedPercent: 64.25,
          resetsAt: '2026-12-07T12:00:00.000Z',
          source: 'agent-cache',
          fetchedAt: '2026-12-07T09:00:00.000Z',
          stale: false,
        },
      ],
      'laptop',
    ).rows;
    const item: PushItem = { kind: 'quota', row: figure! };
    saveQueue(place, { ...emptyQueue(), entries: [entry(item, '2026-12-07T09:01:00Z')] });
    expect(loadQueue(place).entries.map((x) => x.item)).toEqual([item]);
    const bad = (row: Record<string, unknown>) =>
      writeFileSync(
        place.queuePath,
        JSON.stringify({
          v: 1,
          entries: [{ queuedAt: '2026-12-07T09:01:00Z', item: { kind: 'quota', row } }],
        }),
      );
    bad({ ...figure, window: '1h' });
    expect(loadQueue(place).entries).toEqual([]);
    bad({ ...figure, source: 'estimate' });
    expect(loadQueue(place).entries).toEqual([]);
  });

  test('a state file that is not what cctop writes counts as empty, so the next push sends every row', () => {
    const e = env();
    const place = placeOf(e, URL_, 'laptop');
    mkdirSync(dirname(place.statePath), { recursive: true });
    writeFileSync(place.statePath, '{"v":1,"digests":["not","a","map"]}');
    expect(loadState(place).digests.size).toBe(0);
    writeFileSync(place.statePath, '{"v":1,"lastPushAt":"2026-12-01T00:00:00Z","digests":{"k":"d","n":5}}');
    expect([...loadState(place).digests]).toEqual([['k', 'd']]);
  });

  test('each store, role and machine name keeps files of its own', () => {
    const e = env();
    const paths = [
      placeOf(e, URL_, 'laptop'),
      placeOf(e, URL_, 'desktop'),
      placeOf(e, 'postgres://bob@db.example.com/cctop', 'laptop'),
      placeOf({ ...e, PGUSER: 'carol' }, 'postgres://db.example.com/cctop', 'laptop'),
    ].map((p) => p.statePath);
    expect(new Set(paths).size).toBe(4);
    // A password in the URL is not part of what names the files.
    expect(placeOf(e, 'postgres://alice:pw@db.example.com/cctop', 'laptop').statePath).toBe(
      placeOf(e, 'postgres://alice:other@db.example.com/cctop', 'laptop').statePath,
    );
  });
});

describe('~/.pgpass', () => {
  const q = { host: 'db.example.com', port: 5432, database: 'cctop', user: 'alice' };

  function pgpass(text: string, mode = 0o600): Record<string, string> {
    const e = env();
    const path = join(e.HOME!, '.pgpass');
    writeFileSync(path, text);
    chmodSync(path, mode);
    return e;
  }

  test('is read as psql reads it: the first matching line, * for anything, \\: and \\\\ escaped', () => {
    const e = pgpass(
      [
        '# team store',
        'db.example.com:5432:other:alice:wrong-db',
        'db.example.com:*:cctop:alice:pa\\:ss\\\\word',
        '*:*:*:alice:later-line',
      ].join('\n'),
    );
    expect(pgpassLookup(e, q)).toBe('pa:ss\\word');
    expect(pgpassLookup(e, { ...q, database: 'elsewhere' })).toBe('later-line');
    expect(pgpassLookup(e, { ...q, user: 'bob' })).toBeUndefined();
  });

  test('a file others may read is ignored, as psql ignores it', () => {
    expect(pgpassLookup(pgpass('*:*:*:*:secret\n', 0o644), q)).toBeUndefined();
  });

  test('PGPASSFILE names another file', () => {
    const e = pgpass('*:*:*:*:from-home\n');
    const other = join(e.HOME!, 'elsewhere');
    writeFileSync(other, '*:*:*:*:from-pgpassfile\n', { mode: 0o600 });
    expect(pgpassLookup({ ...e, PGPASSFILE: other }, q)).toBe('from-pgpassfile');
  });
});

describe('push --every', () => {
  test('takes seconds, minutes and hours, and refuses what is too often, too rare or not a duration', () => {
    expect(parseEvery('60s')).toBe(60_000);
    expect(parseEvery('90')).toBe(90_000);
    expect(parseEvery('5m')).toBe(300_000);
    expect(parseEvery('1h')).toBe(3_600_000);
    for (const bad of ['1s', '25h', 'often', '-60s', ''])
      expect(() => parseEvery(bad), bad).toThrow(UsageError);
  });
});
