import { appendFileSync, cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Annotator, Plan, SessionDocument } from '../model/document.js';
import { totalsOf } from '../model/totals.js';
import { buildReport } from '../report/build.js';
import { claudeResponse, corpus, FakeHome, HAVE_CORPUS, jsonl, REPO } from '../test-support/corpus.js';
import { demoFiles, labFile, labHome } from '../test-support/lines.js';
import { snapshotIn } from '../test-support/snapshot.js';
import type { KeptInputs } from './kept.js';
import { asciiJson, documentJson } from './render.js';
import { SessionIndex } from './session-index.js';
import { decodeHeads, packRows, unpackRows } from './session-record.js';
import type { Snapshot } from './snapshot.js';
import { INDEX_FILE, IndexStore } from './store.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');
const withoutClock = (json: string) => ({ ...(JSON.parse(json) as SessionDocument), generatedAt: '' });

describe('the session index: kept, patched and built answers', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const snap = (o: { nowMs?: number; plan?: Plan; useIndex?: boolean; annotate?: Annotator } = {}) =>
    snapshotIn(home.env, {
      plan: o.plan ?? 'retail',
      useIndex: o.useIndex ?? true,
      nowMs: o.nowMs ?? NOON,
      ...(o.annotate ? { annotate: o.annotate } : {}),
    });

  const titled = (id: string, title: string, at: string) =>
    jsonl({
      type: 'user',
      sessionId: id,
      cwd: '/w',
      uuid: `p-${id}`,
      timestamp: at,
      message: { role: 'user', content: title },
    }) + claudeResponse(id, 7, at, 3);

  it('a run with nothing changed answers from the kept sessions, exactly as a full build does', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), titled('a', 'café… 🙂 "quoted"', '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), titled('b', 'plain', '2026-11-28T10:00:00Z'));
    const built = await snap();
    expect(built.strategy).toBe('built');
    const kept = await snap();
    expect(kept.strategy).toBe('kept');
    expect(withoutClock(kept.json().toString())).toEqual(withoutClock(built.json().toString()));
    expect(withoutClock(kept.json().toString())).toEqual(
      withoutClock((await snap({ useIndex: false })).json().toString()),
    );
    // The document parsed on demand is the same one, and prints the same.
    expect({ ...kept.document, generatedAt: '' }).toEqual({ ...built.document, generatedAt: '' });
    expect(kept.document.sessions.map((s) => s.title)).toContain('café… 🙂 "quoted"');
  });

  it('prints ASCII JSON whose values are the document itself', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), titled('a', 'naïve ✓ — 日本語', '2026-11-29T10:00:00Z'));
    for (const s of [await snap(), await snap()]) {
      const text = s.json().toString();
      expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
      expect(JSON.parse(text)).toEqual(s.document);
      expect(text).toBe(asciiJson(JSON.stringify(s.document)));
      expect(text).toBe(documentJson(s.document).toString());
    }
  });

  const cold = async () => withoutClock((await snap({ useIndex: false })).json().toString());

  it('a transcript that grew is read from where it stopped and only its session is rebuilt', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    await snap();
    appendFileSync(path, claudeResponse('3', 100, '2026-11-29T10:05:00Z'));
    const grown = await snap();
    expect(grown.stats).toMatchObject({ tailed: 1, read: 0 });
    expect(grown.strategy).toBe('patched');
    expect(grown.document.sessions.find((s) => s.file === path)!.tokens.output).toBe(105);
    expect(withoutClock(grown.json().toString())).toEqual(await cold());
    const again = await snap();
    expect(again.stats).toMatchObject({ tailed: 0, read: 0 });
    expect(withoutClock(again.json().toString())).toEqual(await cold());
  });

  it('a patch written back leaves the pack of the build as it was and keeps the session it rebuilt beside it', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    await snap();
    const db = () => new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE), { readonly: true });
    const pack = () => {
      const d = db();
      try {
        return (d.prepare('SELECT sessions FROM packs').get() as { sessions: Buffer }).sessions;
      } finally {
        d.close();
      }
    };
    /** Each session's sealed record as the index reads it: the pack with the patches laid over it. */
    const sealed = () => {
      const opened = IndexStore.open(home.env.CCTOP_CACHE_DIR!);
      if (opened.kind !== 'open') throw new Error(opened.notice);
      try {
        const d = db();
        const { scope } = d.prepare('SELECT scope FROM scopes').get() as { scope: string };
        d.close();
        const heads = opened.store.kept.heads(scope)!;
        return new Map(heads.map((h) => [h.id, Buffer.from(h.sealed.record)]));
      } finally {
        opened.store.close();
      }
    };
    const before = sealed();
    const packed = pack();
    expect(decodeHeads(unpackRows(packed)!)!.map((h) => h.id)).toEqual([...before.keys()]);
    appendFileSync(path, claudeResponse('3', 100, '2026-11-29T10:05:00Z'));
    // Long enough after the kept build that the patch is written back.
    expect((await snap({ nowMs: NOON + 10 * 60_000 })).strategy).toBe('patched');
    const after = sealed();
    expect(after.get('b')!.equals(before.get('b')!)).toBe(true);
    expect(after.get('a')!.equals(before.get('a')!)).toBe(false);
    expect(pack().equals(packed)).toBe(true);
    // The next run finds nothing changed since the patch, and answers from the pack and the patch.
    const kept = await snap({ nowMs: NOON + 11 * 60_000 });
    expect(kept.strategy).toBe('kept');
    expect(withoutClock(kept.json().toString())).toEqual(
      withoutClock((await snap({ nowMs: NOON + 11 * 60_000, useIndex: false })).json().toString()),
    );
  });

  it('a patch, another patch over it, then a build: every answer equals a cold read', async () => {
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    const c = home.write(home.claudeFile('-w', 'c.jsonl'), claudeResponse('3', 4, '2026-11-29T08:00:00Z'));
    const patchedRows = () => {
      const d = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE), { readonly: true });
      try {
        return d.prepare('SELECT count(*) AS n FROM patched_sessions').get();
      } finally {
        d.close();
      }
    };
    const cold = async (nowMs: number) =>
      withoutClock((await snap({ nowMs, useIndex: false })).json().toString());
    const step = async (nowMs: number, strategy: string) => {
      const s = await snap({ nowMs });
      expect(s.strategy).toBe(strategy);
      expect(withoutClock(s.json().toString())).toEqual(await cold(nowMs));
    };
    await step(NOON, 'built');
    // Each patch long enough after the last write that it is written back.
    appendFileSync(a, claudeResponse('4', 100, '2026-11-29T10:05:00Z'));
    await step(NOON + 10 * 60_000, 'patched');
    appendFileSync(b, claudeResponse('5', 50, '2026-11-29T10:06:00Z'));
    await step(NOON + 20 * 60_000, 'patched');
    expect(patchedRows()).toEqual({ n: 2 });
    await step(NOON + 21 * 60_000, 'kept');
    // A new summary could retitle any session: no patch, a build (reusing the kept sessions).
    appendFileSync(c, jsonl({ type: 'summary', summary: 'Naming a', leafUuid: 'u-4' }));
    await step(NOON + 30 * 60_000, 'built');
    expect(patchedRows()).toEqual({ n: 0 });
    await step(NOON + 31 * 60_000, 'kept');
  });

  it('a damaged patched session is built again, never trusted', async () => {
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    await snap();
    appendFileSync(a, claudeResponse('3', 100, '2026-11-29T10:05:00Z'));
    const later = NOON + 10 * 60_000;
    const patched = await snap({ nowMs: later });
    expect(patched.strategy).toBe('patched');
    const d = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    // One byte of the rebuilt session's record changed, its checksum left as it was.
    d.exec(`UPDATE patched_sessions SET record = substr(record, 1, 60) || X'7B' || substr(record, 62)`);
    d.close();
    const again = await snap({ nowMs: later });
    expect(again.strategy).toBe('built');
    expect(again.declined[0]).toEqual({ strategy: 'kept', reason: 'no build is kept for these options' });
    expect(withoutClock(again.json().toString())).toEqual(withoutClock(patched.json().toString()));
  });

  it('a patch is written back once enough time has passed, and each run until then patches again', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    await snap();
    const db = () => new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE), { readonly: true });
    const digest = () => {
      const d = db();
      try {
        return (d.prepare('SELECT digest FROM scopes').get() as { digest: string }).digest;
      } finally {
        d.close();
      }
    };
    const first = digest();
    appendFileSync(path, claudeResponse('3', 100, '2026-11-29T10:05:00Z'));
    const soon = await snap({ nowMs: NOON + 60_000 });
    expect(soon.stats.tailed).toBe(1);
    expect(digest()).toBe(first);
    // Not written back: the next run patches the same kept build again, reading nothing new.
    const again = await snap({ nowMs: NOON + 120_000 });
    expect(again.stats).toMatchObject({ tailed: 0, read: 0 });
    expect(again.filesOf(again.document.sessions[0]!)).toBeNull();
    expect(withoutClock(again.json().toString())).toEqual(await cold());
    const later = await snap({ nowMs: NOON + 10 * 60_000 });
    expect(digest()).not.toBe(first);
    expect(later.filesOf(later.document.sessions[0]!)).not.toBeNull();
    expect(withoutClock(later.json().toString())).toEqual(await cold());
  });

  /** The indexed answer, as text without its clock, and the same from a cold read. */
  const bothWays = async (nowMs = NOON) => {
    const text = (s: Snapshot) => {
      const d = JSON.parse(s.json().toString()) as SessionDocument;
      return JSON.stringify({ ...d, generatedAt: '', sessions: d.sessions.filter((x) => !x.deleted) });
    };
    const indexed = await snap({ nowMs });
    return { indexed, text: text(indexed), cold: text(await snap({ nowMs, useIndex: false })) };
  };

  it('a file rewritten without a message another file repeats gives that message back to it', async () => {
    const parent = claudeResponse('1', 5, '2026-11-29T10:00:00Z');
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), parent, NOON - 3 * 3_600_000);
    home.write(
      home.claudeFile('-w', 'b.jsonl'),
      parent + claudeResponse('2', 9, '2026-11-29T10:01:00Z'),
      NOON - 2 * 3_600_000,
    );
    await snap();
    home.write(a, claudeResponse('9', 3, '2026-11-29T11:00:00Z'), NOON - 60_000);
    const r = await bothWays();
    expect(r.text).toBe(r.cold);
    expect(r.indexed.document.sessions.find((s) => s.id === 'b')!.requests).toBe(2);
  });

  it('a Claude summary withdrawn by a rewrite no longer titles the session it named', async () => {
    home.write(
      home.claudeFile('-w', 'a.jsonl'),
      jsonl({
        type: 'user',
        sessionId: 'a',
        cwd: '/w',
        uuid: 'leaf-1',
        timestamp: '2026-11-29T10:00:00Z',
        message: { role: 'user', content: 'hello' },
      }),
      NOON - 7_200_000,
    );
    const b = home.write(
      home.claudeFile('-w', 'b.jsonl'),
      jsonl({ type: 'summary', summary: 'Greeting the user', leafUuid: 'leaf-1' }) +
        claudeResponse('2', 5, '2026-11-29T10:00:00Z'),
      NOON - 7_200_000,
    );
    expect((await snap()).document.sessions.find((s) => s.id === 'a')!.title).toBe('Greeting the user');
    home.write(b, claudeResponse('7', 5, '2026-11-29T10:30:00Z'), NOON - 60_000);
    const r = await bothWays();
    expect(r.text).toBe(r.cold);
    expect(r.indexed.document.sessions.find((s) => s.id === 'a')!.title).toBe('hello');
  });

  it("a session's models and tools list in the same order however its files were read", async () => {
    const main = home.write(
      home.claudeFile('-w', 'a.jsonl'),
      claudeResponse('1', 5, '2026-11-29T10:00:00Z').replace(
        'claude-sonnet-4-5-20250929',
        'claude-opus-4-1-20250805',
      ),
    );
    home.write(
      join(home.dir, '.claude', 'projects', '-w', 'a', 'subagents', 'agent-x.jsonl'),
      claudeResponse('2', 5, '2026-11-29T10:00:30Z').replace(
        '"sessionId":"s"',
        '"sessionId":"a","isSidechain":true',
      ),
    );
    await snap();
    appendFileSync(main, claudeResponse('3', 5, '2026-11-29T10:01:00Z'));
    const r = await bothWays();
    expect(r.indexed.strategy).toBe('patched');
    expect(r.indexed.document.sessions[0]!.models).toHaveLength(2);
    expect(r.text).toBe(r.cold);
  });

  it('a run that cannot write to a busy index still answers, and the answer is right', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    await snap();
    appendFileSync(path, claudeResponse('2', 7, '2026-11-29T10:01:00Z'));
    const other = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    other.exec('BEGIN IMMEDIATE');
    try {
      const r = await bothWays();
      expect(JSON.parse(r.text).sessions).toEqual(JSON.parse(r.cold).sessions);
      expect(r.indexed.document.sessions[0]!.tokens.output).toBe(12);
      // Said, not hidden: the index could not be updated this time.
      expect(r.indexed.document.problems.map((p) => p.kind)).toEqual(['cache']);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 30_000);

  it('new and deleted transcripts are patched in, deleted ones keeping their spend', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T09:00:00Z'));
    await snap();
    home.write(home.claudeFile('-x', 'c.jsonl'), claudeResponse('3', 11, '2026-11-29T11:00:00Z'));
    const added = await snap();
    expect(added.strategy).toBe('patched');
    expect(added.document.sessions.map((s) => s.id)).toEqual(['c', 'a', 'b']);
    expect(withoutClock(added.json().toString())).toEqual(await cold());
    rmSync(b);
    const removed = await snap();
    expect(removed.strategy).toBe('patched');
    expect(removed.document.sessions.find((s) => s.id === 'b')).toMatchObject({ deleted: true, requests: 1 });
  });

  it('a change that repeats a message of another file is built in full, and still counted once', async () => {
    const parent = claudeResponse('1', 5, '2026-11-29T10:00:00Z');
    home.write(home.claudeFile('-w', 'a.jsonl'), parent);
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-29T10:01:00Z'));
    await snap();
    // A resumed session replays its parent's responses into its own file.
    appendFileSync(b, parent);
    const replayed = await snap();
    expect(replayed.strategy).toBe('built');
    expect(replayed.declined).toContainEqual({
      strategy: 'patched',
      reason: 'a changed file repeats a message another file holds',
    });
    const total = replayed.document.sessions.reduce((n, s) => n + s.requests, 0);
    expect(total).toBe(2);
    expect(withoutClock(replayed.json().toString())).toEqual(await cold());
  });

  it('a new hour slides every spend-per-hour series along without rebuilding, as a full build would', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T11:30:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 50, '2026-11-28T09:10:00Z'));
    await snap();
    const later = await snap({ nowMs: NOON + 3 * 3_600_000 });
    expect(later.strategy).toBe('kept');
    const a = later.document.sessions.find((s) => s.id === 'a')!;
    expect(a.cost.byHour!.start).toBe('2026-11-27T16:00:00.000Z');
    expect(a.cost.byHour!.usd.findIndex((u) => u > 0)).toBe(43);
    const cold = await snap({ nowMs: NOON + 3 * 3_600_000, useIndex: false });
    expect(withoutClock(later.json().toString())).toEqual(withoutClock(cold.json().toString()));
  });

  it('a record written by a clock ahead of this one enters the hour series when its hour comes', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T13:20:00Z'));
    const before = await snap();
    expect(before.document.sessions[0]!.cost.byHour!.usd.every((u) => u === 0)).toBe(true);
    const later = await snap({ nowMs: NOON + 2 * 3_600_000 });
    expect(later.strategy).toBe('kept');
    expect(later.document.sessions[0]!.cost.byHour!.usd[46]).toBeGreaterThan(0);
    const cold = await snap({ nowMs: NOON + 2 * 3_600_000, useIndex: false });
    expect(withoutClock(later.json().toString())).toEqual(withoutClock(cold.json().toString()));
  });

  it('states still lapse with the clock and processes are looked up fresh', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T12:00:00Z'));
    const working = await snap({ nowMs: NOON + 60_000 });
    expect(working.document.sessions[0]!.state).toBe('working');
    const running: Annotator = (d) => {
      for (const s of d.sessions) {
        s.running = true;
        s.process = { pids: [42], cpu: 1.5, memory: 1000, command: 'claude' };
      }
      return true;
    };
    const lapsed = await snap({ nowMs: NOON + 30 * 60_000, annotate: running });
    expect(lapsed.strategy).toBe('kept');
    const printed = JSON.parse(lapsed.json().toString()) as SessionDocument;
    expect(printed.sessions[0]).toMatchObject({ state: 'idle', running: true, process: { pids: [42] } });
    expect(lapsed.document.sessions[0]).toMatchObject({ state: 'idle', running: true });
  });

  it('another history (another HOME) keeps its own sessions in the same index', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const other = new FakeHome();
    try {
      other.write(other.claudeFile('-o', 'z.jsonl'), claudeResponse('9', 7, '2026-11-29T10:00:00Z'));
      const elsewhere = () =>
        snapshotIn({ ...other.env, CCTOP_CACHE_DIR: home.env.CCTOP_CACHE_DIR! }, { nowMs: NOON });
      await snap();
      await elsewhere();
      const mine = await snap();
      const theirs = await elsewhere();
      expect([mine.strategy, theirs.strategy]).toEqual(['kept', 'kept']);
      expect(mine.document.sessions.map((s) => s.id)).toEqual(['a']);
      expect(theirs.document.sessions.map((s) => s.id)).toEqual(['z']);
    } finally {
      other.cleanup();
    }
  });

  it('each set of options keeps its own sessions', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    await snap({ plan: 'retail' });
    await snap({ plan: 'max' });
    const retail = await snap({ plan: 'retail' });
    const max = await snap({ plan: 'max' });
    expect([retail.strategy, max.strategy]).toEqual(['kept', 'kept']);
    expect(retail.document.sessions[0]!.cost.included).toBe(false);
    expect(max.document.sessions[0]!.cost.included).toBe(true);
  });

  it("a session's report from the index counts what the whole history counts", async () => {
    const parent = claudeResponse('1', 5, '2026-11-29T10:00:00Z');
    home.write(home.claudeFile('-w', 'a.jsonl'), parent);
    // A resumed session: its file repeats the parent's response, which counts once, in the parent.
    home.write(home.claudeFile('-w', 'b.jsonl'), parent + claudeResponse('2', 9, '2026-11-29T10:01:00Z'));
    const full = await snap();
    const kept = await snap();
    expect(kept.strategy).toBe('kept');
    const report = (s: Snapshot, id: string) => {
      const session = s.document.sessions.find((x) => x.id === id)!;
      const mine = s.filesOf(session)!;
      return buildReport({
        session,
        files: mine.files,
        ...(mine.masks ? { masks: mine.masks } : {}),
        book: s.book,
        time: s.time,
        nowMs: NOON,
      });
    };
    for (const id of ['a', 'b']) expect(report(kept, id)).toEqual(report(full, id));
    // b's own response (1 in, 9 out), not the parent's it repeats.
    expect(report(kept, 'b').cost.byDay.reduce((n, d) => n + d.tokens, 0)).toBe(10);
  });

  it('a patch of an older build never overwrites a newer build another cctop kept meanwhile', () => {
    const opened = IndexStore.open(home.env.CCTOP_CACHE_DIR!);
    if (opened.kind !== 'open') throw new Error(opened.notice);
    const store = opened.store;
    try {
      const none: KeptInputs = {
        files: [],
        keys: new Uint32Array(0),
        masks: new Uint8Array(0),
        summaries: [],
      };
      store.kept.keep('s', { digest: 'D1', problems: [], inputs: none }, packRows([]), NOON);
      const seen = store.kept.scope('s')!;
      // Another cctop keeps a newer build before this one writes its patch back.
      store.kept.keep('s', { digest: 'D2', problems: [], inputs: none }, packRows([]), NOON + 1);
      const patch = { digest: 'D3', problems: [], changed: [], removed: [], files: [] };
      expect(
        store.kept.keepPatch('s', { keptAt: seen.keptAt, heads: [], inputs: none }, patch, NOON + 2),
      ).toBe(false);
      expect(store.kept.scope('s')).toMatchObject({ digest: 'D2' });
      // Over the build it was read from, it does write.
      const now = store.kept.scope('s')!;
      expect(
        store.kept.keepPatch('s', { keptAt: now.keptAt, heads: [], inputs: none }, patch, NOON + 3),
      ).toBe(true);
      expect(store.kept.scope('s')).toMatchObject({ digest: 'D3' });
    } finally {
      store.close();
    }
  });

  it('damaged kept sessions are built again, never trusted or fatal', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 7, '2026-11-29T10:00:00Z'));
    const first = await snap();
    const tamper = (sql: string) => {
      const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
      db.exec(sql);
      db.close();
    };
    // Bytes that SQLite cannot see are wrong: the row's checksum catches them.
    // (One byte of the first session's record changed; its checksum left as it was.)
    tamper(`UPDATE packs SET sessions = substr(sessions, 1, 60) || X'7B' || substr(sessions, 62)`);
    const damaged = await snap();
    expect(damaged.strategy).toBe('built');
    expect(damaged.declined[0]).toEqual({ strategy: 'kept', reason: 'no build is kept for these options' });
    expect(withoutClock(damaged.json().toString())).toEqual(withoutClock(first.json().toString()));

    // Sessions of another shape (too short to hold their own lengths) are not trusted either.
    tamper(`UPDATE packs SET sessions = X'0102'`);
    expect((await snap()).strategy).toBe('built');
    // An index missing its table answers all the same, and says why it cannot keep the build.
    tamper('DROP TABLE scopes');
    const missing = await snap();
    expect(missing.document.sessions).toEqual(first.document.sessions);
    expect(missing.document.problems.map((p) => p.detail)).toEqual([
      'could not keep the sessions built in the index: no such table: scopes',
    ]);
  });

  it('opening the index and reading it without a refresh touches no transcript', async () => {
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    await snap();
    // Unreadable now: a peek that read it would fail or count it differently.
    appendFileSync(a, claudeResponse('2', 100, '2026-11-29T10:01:00Z'));
    rmSync(a);
    const ix = SessionIndex.open({
      env: home.env,
      plan: 'retail',
      providers: null,
      sinceMs: null,
      untilMs: null,
      now: () => NOON,
    });
    expect(ix.peek()).toBe(true);
    expect(ix.sessions().map((s) => [s.id, s.tokens.output, s.deleted])).toEqual([['a', 5, false]]);
    expect(ix.totals().all).toMatchObject({ sessions: 1, requests: 1, tokens: { output: 5 } });
    expect(ix.discovery.files).toEqual([]);
    // What a refresh then finds: the transcript is gone, its spend stays.
    await ix.refresh();
    expect(ix.sessions().map((s) => [s.id, s.tokens.output, s.deleted])).toEqual([['a', 5, true]]);
  });

  it('a long-running index says which sessions moved after a refresh where every one did', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 6, '2026-11-29T10:30:00Z'));
    home.write(home.claudeFile('-w', 'c.jsonl'), claudeResponse('3', 7, '2026-11-29T11:00:00Z'));
    let nowMs = NOON;
    const ix = SessionIndex.open({
      env: home.env,
      plan: 'retail',
      providers: null,
      sinceMs: null,
      untilMs: null,
      now: () => nowMs,
    });
    expect((await ix.refresh()).changes).toEqual({ kind: 'all' });
    // A minute later, in the same hour: nothing moved.
    nowMs += 60_000;
    expect(ix.restate()).toEqual({ kind: 'some', changed: [], removed: [] });
    // One transcript grows and another is deleted (its session stays, deleted): those two are told.
    nowMs += 60_000;
    appendFileSync(b, claudeResponse('4', 9, '2026-11-29T12:01:00Z'));
    rmSync(home.claudeFile('-w', 'c.jsonl'));
    const moved = (await ix.refresh()).changes;
    if (moved.kind !== 'some') throw new Error(`expected the sessions that moved, got ${moved.kind}`);
    expect(moved.changed.map((s) => [s.id, s.tokens.output, s.deleted])).toEqual([
      ['b', 15, false],
      ['c', 7, true],
    ]);
    expect(moved.removed).toEqual([]);
    expect(moved.changed[0]).toBe(ix.sessions().find((s) => s.id === 'b'));
    ix.close();
  });

  /** Split a transcript into its lines, each with its newline. */
  const linesOf = (path: string) => readFileSync(path, 'utf8').split(/(?<=\n)/);

  /**
   * Feed Claude transcripts and a Codex rollout in, line by line over twelve passes; one is later
   * "resumed" into a new file that repeats its responses (the patch must decline), one is deleted.
   * Every answer must equal a cold read.
   */
  async function randomRun(sources: string[][], codex: string[], codexName: string): Promise<void> {
    const paths = sources.map((_, i) => home.claudeFile('-work-demo', `s${i}.jsonl`));
    const codexPath = home.codexFile(codexName);
    const fed = sources.map(() => 0);
    let codexFed = 0;
    const ways: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let pass = 0; pass < 12; pass++) {
      for (const [i, lines] of sources.entries()) {
        if (pass > 0 && random() < 0.5) continue;
        const take = Math.ceil(random() * lines.length * 0.3);
        const more = lines.slice(fed[i], fed[i]! + take).join('');
        fed[i] = Math.min(lines.length, fed[i]! + take);
        if (more.length > 0)
          home.write(paths[i]!, (existsSync(paths[i]!) ? readFileSync(paths[i]!, 'utf8') : '') + more);
      }
      if (pass % 3 === 0) {
        codexFed = Math.min(codex.length, codexFed + Math.ceil(codex.length / 4));
        home.write(codexPath, codex.slice(0, codexFed).join(''));
      }
      if (pass === 6)
        home.write(home.claudeFile('-work-demo', 'resumed.jsonl'), readFileSync(paths[0]!, 'utf8'));
      if (pass === 9) rmSync(paths[1]!);
      const at = NOON + pass * 60_000;
      const indexed = await snap({ nowMs: at });
      const cold = await snap({ nowMs: at, useIndex: false });
      const strip = (s: Snapshot) => {
        const d = JSON.parse(s.json().toString()) as SessionDocument;
        // A cold read cannot know a deleted transcript (nor count it in the totals); everything
        // else must be the same, and the totals are those of the sessions.
        expect(d.totals).toEqual(totalsOf(d.sessions));
        const sessions = d.sessions.filter((x) => !x.deleted);
        return { ...d, sessions, totals: totalsOf(sessions) };
      };
      // Compared as text: key order and list order must agree too, not only the values.
      expect(JSON.stringify(strip(indexed)), `pass ${pass}`).toBe(JSON.stringify(strip(cold)));
      ways.push(indexed.strategy);
    }
    // The run went every way: built (the first pass, and again where a patch declined) and patched;
    // once a patch is written back, a run with nothing changed answers from the kept build.
    expect(ways[0]).toBe('built');
    expect(ways.slice(1)).toContain('built');
    expect(ways.filter((w) => w === 'patched').length).toBeGreaterThanOrEqual(2);
    const settled = NOON + 60 * 60_000;
    await snap({ nowMs: settled });
    expect((await snap({ nowMs: settled + 1000 })).strategy).toBe('kept');
  }

  // The bundled demo history (Claude Code sessions, one with a subagent, and Codex rollouts) and the
  // lab's recordings of the real CLIs: tool failures, parallel calls, a resumed session.
  const DEMO = join(REPO, 'demo', 'home');
  const DEMO_CODEX = 'rollout-2026-10-31T06-00-00-019ac7fd-d1f6-74ea-81a6-b0113778a839.jsonl';

  it('agrees with a full build on recorded and demo transcripts with subagents and tool failures', async () => {
    cpSync(DEMO, home.dir, { recursive: true });
    for (const agent of ['claude', 'codex', 'gemini', 'qwen'])
      for (const name of ['fail', 'parallel']) cpSync(labHome(agent, name), home.dir, { recursive: true });
    const built = await snap();
    const kept = await snap();
    expect(kept.strategy).toBe('kept');
    // The demo's 5 Claude Code sessions and 3 Codex rollouts, and the 8 recorded runs.
    expect(kept.document.sessions).toHaveLength(16);
    expect(kept.document.sessions.some((x) => x.subagentFiles > 0)).toBe(true);
    expect(kept.document.sessions.some((x) => (x.tools.failed ?? 0) > 0)).toBe(true);
    expect(kept.json().toString()).toBe(
      documentJson({ ...built.document, generatedAt: kept.document.generatedAt }).toString(),
    );
  });

  it('through a random run of growing, new, resumed and deleted transcripts, every answer equals a cold read', async () => {
    const claude = demoFiles('.claude').filter((f) => !f.includes('/subagents/'));
    const sources = [...claude.slice(0, 3), labFile('claude', 'parallel')].map(linesOf);
    const codex = linesOf(demoFiles('.codex').find((f) => f.endsWith(DEMO_CODEX))!);
    await randomRun(sources, codex, DEMO_CODEX);
  });

  if (HAVE_CORPUS) {
    // An extra case over `../shared/corpus`, registered only where it is present.
    it('through a random run of real transcripts from ../shared/corpus, every answer equals a cold read', async () => {
      const sources = [
        'agentcmd__full-session-five.jsonl',
        'agentcmd__full-session-two.jsonl',
        'happy-cli__duplicate-assistant-response.jsonl',
        'happy-cli__task_sdk.jsonl',
      ].map((f) => linesOf(corpus('claude-code', 'transcripts', f)));
      const name = 'agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl';
      await randomRun(sources, linesOf(corpus('codex', 'rollouts', name)), name.replace(/^agentcmd__/, ''));
    });
  }
});
