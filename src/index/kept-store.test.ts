import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
import { parsed } from '../test-support/parse.js';
import { type KeptFile, type KeptFileChange, type KeptInputs, MAX_KEPT_SCOPES } from './kept.js';
import { sortedKeys } from './kept-rows.js';
import { MAX_PATCHED_ROWS, type PatchWrite } from './kept-store.js';
import {
  decodeHeads,
  encodeRecord,
  type KeptHead,
  packRows,
  type SessionRecord,
  sessionKeyOf,
  unpackRows,
} from './session-record.js';
import { buildRecords } from './sessions.js';
import { INDEX_FILE, IndexStore } from './store.js';

const NONE: KeptInputs = { files: [], keys: new Uint32Array(0), masks: new Uint8Array(0), summaries: [] };

describe('the kept builds', () => {
  let home: FakeHome;
  let store: IndexStore;
  beforeEach(() => {
    home = new FakeHome();
    const opened = IndexStore.open(home.env.CCTOP_CACHE_DIR!);
    if (opened.kind !== 'open') throw new Error(opened.notice);
    store = opened.store;
  });
  afterEach(() => {
    store.close();
    home.cleanup();
  });

  it(`keeps the ${MAX_KEPT_SCOPES} most recently used scopes and forgets the rest, sessions and all`, () => {
    for (let i = 0; i <= MAX_KEPT_SCOPES; i++)
      store.kept.keep(`scope-${i}`, { digest: `d${i}`, problems: [], inputs: NONE }, packRows([]), 1000 + i);
    // The oldest was forgotten when the newest came.
    expect(store.kept.scope('scope-0')).toBeNull();
    expect(store.kept.scope(`scope-${MAX_KEPT_SCOPES}`)).toMatchObject({ digest: `d${MAX_KEPT_SCOPES}` });
    // A scope used again is not the next one forgotten.
    store.kept.touch('scope-1', 5000);
    store.kept.keep('scope-new', { digest: 'dn', problems: [], inputs: NONE }, packRows([]), 6000);
    expect(store.kept.scope('scope-1')).not.toBeNull();
    expect(store.kept.scope('scope-2')).toBeNull();
  });

  it('a scope with nothing kept reads as nothing, not as an empty build', () => {
    expect(store.kept.build('never')).toBeNull();
    expect(store.kept.inputs('never')).toBeNull();
    store.kept.keep('empty', { digest: 'd', problems: [], inputs: NONE }, packRows([]), 1);
    expect(store.kept.build('empty')).toMatchObject({ scope: { digest: 'd' }, heads: [] });
  });
});

const NOON = Date.parse('2026-11-29T12:00:00Z');

/** A session built from one Claude response, and copies of it under other ids (a history of any size). */
function sessionsLike(home: FakeHome, ids: readonly string[]): SessionRecord[] {
  const path = home.write(home.claudeFile('-w', 'one.jsonl'), claudeResponse('1', 7, '2026-11-29T10:00:00Z'));
  const [one] = buildRecords([parsed('claude', path)], {
    env: home.env,
    plan: 'retail',
    book: new PriceBook(),
    time: new LocalTime('UTC'),
    nowMs: NOON,
    sinceMs: null,
    untilMs: null,
    problems: new ProblemLog(),
  });
  if (one === undefined) throw new Error('no session built');
  return ids.map((id) => ({ ...one, key: sessionKeyOf('claude', id), facts: { ...one.facts, id } }));
}

/** The same session rebuilt: another signature, so other bytes. */
const rebuilt = (r: SessionRecord, n: number): SessionRecord => ({
  ...r,
  signature: `${r.signature} again ${n}`,
});

const file = (path: string, records: number): KeptFile => ({
  path,
  provider: 'claude',
  session: sessionKeyOf('claude', path),
  size: records * 100,
  mtimeMs: NOON,
  ino: 1,
  deleted: false,
  grouped: true,
  records,
  titles: null,
});

/** Two files of two and three records, each record keyed. */
const INPUTS: KeptInputs = {
  files: [file('a', 2), file('b', 3)],
  keys: Uint32Array.from([0, 1, 1, 0, 1, 2, 1, 2, 1, 1, 2, 2, 1, 2, 3]),
  masks: Uint8Array.from([1, 1, 1, 0, 1]),
  summaries: [],
};

describe('patches kept beside the build', () => {
  let home: FakeHome;
  let store: IndexStore;
  let raw: Database.Database;
  beforeEach(() => {
    home = new FakeHome();
    const opened = IndexStore.open(home.env.CCTOP_CACHE_DIR!);
    if (opened.kind !== 'open') throw new Error(opened.notice);
    store = opened.store;
    // Another connection, as another cctop (or a tool) would look at the file.
    raw = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
  });
  afterEach(() => {
    raw.close();
    store.close();
    home.cleanup();
  });

  const base = sessionsLike.bind(null);
  const keys = (heads: readonly KeptHead[] | null) => heads?.map((h) => h.id) ?? null;
  const bytes = (heads: readonly KeptHead[] | null) =>
    heads?.map((h) => Buffer.from(h.sealed.record)) ?? null;
  const pack = () => (raw.prepare('SELECT sessions FROM packs').get() as { sessions: Buffer }).sessions;
  const patchedRows = () =>
    raw
      .prepare('SELECT (SELECT count(*) FROM patched_sessions) + (SELECT count(*) FROM patched_files) AS n')
      .get();
  const write = (w: Partial<PatchWrite>): PatchWrite => ({
    digest: 'patched',
    problems: [],
    changed: [],
    removed: [],
    files: [],
    ...w,
  });
  /** Patch what is kept now. */
  const patch = (w: Partial<PatchWrite>, nowMs: number) => {
    const kept = store.kept.build('s')!;
    const inputs = store.kept.inputs('s', kept.scope.keptAt)!;
    return store.kept.keepPatch(
      's',
      { keptAt: kept.scope.keptAt, heads: kept.heads, inputs },
      write(w),
      nowMs,
    );
  };

  it('a patch writes only what it rebuilt: the pack stays as built, and reads as a pack written afresh would', () => {
    const [s0, s1, s2, s3, s4] = base(home, ['s0', 's1', 's2', 's3', 's4']);
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: INPUTS },
      packRows([s0!, s1!, s2!, s3!, s4!].map(encodeRecord)),
      NOON,
    );
    const built = pack();
    expect(patch({ changed: [rebuilt(s2!, 1)], removed: [s4!.key] }, NOON + 1)).toBe(true);
    expect(pack().equals(built)).toBe(true);
    // A session rebuilt comes after the ones the patch left, as a patch writing the whole pack orders them.
    expect(keys(store.kept.heads('s'))).toEqual(['s0', 's1', 's3', 's2']);
    const s5 = base(home, ['s5'])[0]!;
    expect(patch({ changed: [rebuilt(s0!, 2), s5], removed: [s2!.key] }, NOON + 2)).toBe(true);
    expect(pack().equals(built)).toBe(true);
    expect(store.kept.scope('s')).toMatchObject({ digest: 'patched', keptAt: NOON + 2 });
    const fresh = [s1!, s3!, rebuilt(s0!, 2), s5].map(encodeRecord);
    store.kept.keep('afresh', { digest: 'built', problems: [], inputs: INPUTS }, packRows(fresh), NOON + 3);
    expect(keys(store.kept.heads('s'))).toEqual(['s1', 's3', 's0', 's5']);
    expect(bytes(store.kept.heads('s'))).toEqual(bytes(store.kept.heads('afresh')));
    expect(store.kept.records('s')!.map((r) => r.signature)).toEqual(
      store.kept.records('afresh')!.map((r) => r.signature),
    );
  });

  it('the files a patch read are laid over the inputs of the build, and a new file comes after the last', () => {
    const sessions = base(home, ['s0']);
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: INPUTS },
      packRows(sessions.map(encodeRecord)),
      NOON,
    );
    const files: KeptFileChange[] = [
      { index: 1, file: file('b', 1), mask: Uint8Array.from([0]), keys: Uint32Array.from([1, 9, 9]) },
      { index: 2, file: file('c', 2), mask: Uint8Array.from([1, 0]), keys: Uint32Array.from([2, 7, 7]) },
    ];
    expect(patch({ files }, NOON + 1)).toBe(true);
    const inputs = store.kept.inputs('s')!;
    expect(inputs.files.map((f) => [f.path, f.records])).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 2],
    ]);
    // a's mask as the build kept it, then b's and c's from the patch.
    expect([...inputs.masks]).toEqual([1, 1, 0, 1, 0]);
    // a's keys as the build kept them, then the patched files' own, in file order.
    expect([...inputs.keys]).toEqual([0, 1, 1, 0, 1, 2, 1, 9, 9, 2, 7, 7]);
    // A file patched again replaces its own row.
    const again = [{ index: 2, file: file('c', 1), mask: Uint8Array.from([1]), keys: new Uint32Array(0) }];
    expect(patch({ files: again }, NOON + 2)).toBe(true);
    expect(store.kept.inputs('s')!.files.map((f) => [f.path, f.records])).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
    ]);
    expect(patchedRows()).toEqual({ n: 2 });
    // Asked for the inputs of the write before, the index has none.
    expect(store.kept.inputs('s', NOON + 1)).toBeNull();
    expect(store.kept.inputs('s', NOON + 2)).not.toBeNull();
  });

  it("the pack's sorted keys are read when asked, and not once another write was kept since", () => {
    const two: KeptInputs = {
      files: [file('a', 2), file('b', 1)],
      keys: Uint32Array.from([0, 5, 1, 0, 2, 9, 1, 2, 3]),
      masks: Uint8Array.from([1, 1, 1]),
      summaries: [],
    };
    const sessions = packRows(base(home, ['s0']).map(encodeRecord));
    store.kept.keep('s', { digest: 'built', problems: [], inputs: two }, sessions, NOON);
    expect([...store.kept.inputs('s')!.index!.sorted()!]).toEqual([...sortedKeys(two.keys)]);
    const read = store.kept.inputs('s')!;
    const unread = store.kept.inputs('s')!;
    expect(read.index!.sorted()).not.toBeNull();
    store.kept.keep('s', { digest: 'again', problems: [], inputs: two }, sessions, NOON + 1);
    // Read before the write, they stay as read; asked only after it, they are not this pack's.
    expect([...read.index!.sorted()!]).toEqual([...sortedKeys(two.keys)]);
    expect(unread.index!.sorted()).toBeNull();
    expect(store.kept.inputs('s')!.index!.sorted()).not.toBeNull();
  });

  it('a file patched between two others keeps theirs as the build left them', () => {
    const three: KeptInputs = {
      files: [file('a', 2), file('b', 3), file('c', 1)],
      keys: Uint32Array.from([0, 1, 1, 1, 2, 1, 2, 3, 1]),
      masks: Uint8Array.from([1, 0, 1, 1, 0, 1]),
      summaries: [],
    };
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: three },
      packRows(base(home, ['s0']).map(encodeRecord)),
      NOON,
    );
    const files = [
      { index: 1, file: file('b', 2), mask: Uint8Array.from([0, 0]), keys: Uint32Array.from([1, 5, 5]) },
    ];
    expect(patch({ files }, NOON + 1)).toBe(true);
    const inputs = store.kept.inputs('s')!;
    expect([...inputs.masks]).toEqual([1, 0, 0, 0, 1]);
    // In file order: b's new key between a's and c's.
    expect([...inputs.keys]).toEqual([0, 1, 1, 1, 5, 5, 2, 3, 1]);
  });

  it(`past ${MAX_PATCHED_ROWS} patched rows, a patch writes the whole build again, in the order the patches read in`, () => {
    const [s0, s1, s2] = base(home, ['s0', 's1', 's2']);
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: INPUTS },
      packRows([s0!, s1!, s2!].map(encodeRecord)),
      NOON,
    );
    const built = pack();
    expect(patch({ changed: [rebuilt(s0!, 1)] }, NOON + 1)).toBe(true);
    const many = base(
      home,
      Array.from({ length: MAX_PATCHED_ROWS }, (_, i) => `n${i}`),
    );
    const files = [{ index: 1, file: file('b', 1), mask: Uint8Array.from([1]), keys: new Uint32Array(0) }];
    expect(patch({ changed: many, removed: [s1!.key], files }, NOON + 2)).toBe(true);
    expect(patchedRows()).toEqual({ n: 0 });
    expect(pack().equals(built)).toBe(false);
    expect(keys(decodeHeads(unpackRows(pack())!))).toEqual(['s2', 's0', ...many.map((r) => r.facts.id)]);
    expect(store.kept.inputs('s')!.files.map((f) => [f.path, f.records])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('two patches of one build: the first is kept, the second writes nothing', () => {
    const [s0, s1] = base(home, ['s0', 's1']);
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: INPUTS },
      packRows([s0!, s1!].map(encodeRecord)),
      NOON,
    );
    const kept = store.kept.build('s')!;
    const inputs = store.kept.inputs('s')!;
    const from = { keptAt: kept.scope.keptAt, heads: kept.heads, inputs };
    expect(
      store.kept.keepPatch('s', from, write({ digest: 'first', changed: [rebuilt(s0!, 1)] }), NOON + 1),
    ).toBe(true);
    const after = bytes(store.kept.heads('s'));
    const version = () => raw.pragma('data_version', { simple: true });
    const seen = version();
    expect(
      store.kept.keepPatch('s', from, write({ digest: 'second', changed: [rebuilt(s1!, 2)] }), NOON + 2),
    ).toBe(false);
    // No commit changed the file: another connection sees the same version of it.
    expect(version()).toBe(seen);
    expect(store.kept.scope('s')).toMatchObject({ digest: 'first', keptAt: NOON + 1 });
    expect(bytes(store.kept.heads('s'))).toEqual(after);
  });

  it('a damaged or misplaced patched row is refused: the scope reads as nothing kept', () => {
    const [s0, s1] = base(home, ['s0', 's1']);
    store.kept.keep(
      's',
      { digest: 'built', problems: [], inputs: INPUTS },
      packRows([s0!, s1!].map(encodeRecord)),
      NOON,
    );
    const files = [
      { index: 1, file: file('b', 1), mask: Uint8Array.from([1]), keys: Uint32Array.from([1, 9, 9]) },
    ];
    expect(patch({ changed: [rebuilt(s0!, 1)], files }, NOON + 1)).toBe(true);
    expect(store.kept.build('s')).not.toBeNull();
    const sessions = raw.prepare('SELECT * FROM patched_sessions').all() as Record<string, unknown>[];
    const patchedFiles = raw.prepare('SELECT * FROM patched_files').all() as Record<string, unknown>[];
    /** The patched rows changed by `sql` (committed, as another program would), checked, then put back. */
    const tampered = (sql: string, check: () => void, ...params: string[]) => {
      raw.prepare(sql).run(...params);
      check();
      raw.exec('DELETE FROM patched_sessions; DELETE FROM patched_files');
      for (const r of sessions)
        raw.prepare('INSERT INTO patched_sessions VALUES (@scope, @key, @seq, @record, @crc)').run(r);
      for (const r of patchedFiles)
        raw.prepare('INSERT INTO patched_files VALUES (@scope, @file, @row, @mask, @keys)').run(r);
    };
    // One byte of the record changed, its checksum left as it was.
    tampered(
      `UPDATE patched_sessions SET record = substr(record, 1, 30) || X'7B' || substr(record, 32)`,
      () => {
        expect(store.kept.build('s')).toBeNull();
        expect(store.kept.records('s')).toBeNull();
      },
    );
    // A sound record under another session's key.
    tampered(
      'UPDATE patched_sessions SET key = ?',
      () => expect(store.kept.build('s')).toBeNull(),
      sessionKeyOf('claude', 's1'),
    );
    tampered(`UPDATE patched_sessions SET record = 'text'`, () => {
      expect(store.kept.build('s')).toBeNull();
    });
    // A file's key triples that name another file, a mask of another length, a row of another shape.
    tampered(`UPDATE patched_files SET keys = substr(keys, 5) || X'00000000'`, () => {
      expect(store.kept.inputs('s')).toBeNull();
    });
    tampered(`UPDATE patched_files SET mask = X'0101'`, () => {
      expect(store.kept.inputs('s')).toBeNull();
    });
    tampered(`UPDATE patched_files SET row = '[1]'`, () => {
      expect(store.kept.inputs('s')).toBeNull();
    });
    tampered(`UPDATE patched_files SET file = 7`, () => {
      expect(store.kept.inputs('s')).toBeNull();
    });
    expect(keys(store.kept.heads('s'))).toEqual(['s1', 's0']);
    expect(store.kept.inputs('s')).not.toBeNull();
  });
});
