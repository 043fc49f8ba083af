import { spawn } from 'node:child_process';
import {
  appendFileSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../model/document.js';
import { claudeResponse, FakeHome, jsonl, REPO } from '../test-support/corpus.js';
import { damagePages } from '../test-support/damage.js';
import { labFile } from '../test-support/lines.js';
import { snapshotIn } from '../test-support/snapshot.js';
import { INDEX_FILE, MAX_DAMAGED_KEPT } from './store.js';

const comparable = (d: SessionDocument) => ({ ...d, generatedAt: '' });

/** The damaged indexes kept aside in `cache`, oldest first. */
const damagedCopies = (cache: string): string[] =>
  readdirSync(cache)
    .filter((n) => n.startsWith(`${INDEX_FILE}.corrupt-`) && !/-(wal|shm)$/.test(n))
    .sort();

describe('the index: reuse, tailing, re-reading and history', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const snap = (useIndex = true, sinceMs: number | null = null) =>
    snapshotIn(home.env, { sinceMs, useIndex, nowMs: Date.parse('2026-11-29T12:00:00Z') });

  const assistant = (id: string, output: number, at = '2026-11-29T10:00:00Z') =>
    claudeResponse(id, output, at, 10);

  it('a second run with nothing changed reads no transcript and answers the same', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5) + assistant('2', 7));
    home.write(home.claudeFile('-w', 'b.jsonl'), assistant('3', 11));
    const first = await snap();
    expect(first.stats.read).toBe(2);
    const second = await snap();
    expect(second.stats).toMatchObject({ reused: 2, read: 0, tailed: 0, bytesRead: 0 });
    expect(comparable(second.document)).toEqual(comparable(first.document));
  });

  it('a grown transcript is read from where the last pass stopped, and totals match a cold read', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    await snap();
    const more = assistant('2', 7) + assistant('3', 9);
    appendFileSync(path, more);
    const warm = await snap();
    expect(warm.stats).toMatchObject({ tailed: 1, read: 0, bytesRead: Buffer.byteLength(more) });
    expect(warm.document.sessions[0]!.tokens.output).toBe(21);
    expect(comparable(warm.document)).toEqual(comparable((await snap(false)).document));
  });

  it('a half-written last line waits for the next pass and is then counted once', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    const line = assistant('2', 7);
    appendFileSync(path, line.slice(0, 40));
    expect((await snap()).document.sessions[0]!.tokens.output).toBe(5);
    appendFileSync(path, line.slice(40));
    const s = await snap();
    expect(s.stats.tailed).toBe(1);
    expect(s.document.sessions[0]!.tokens.output).toBe(12);
  });

  it('a transcript rewritten under the same size is read again from the start', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5) + assistant('2', 7));
    await snap();
    const text = readFileSync(path, 'utf8').replace('"output_tokens":5', '"output_tokens":6');
    writeFileSync(path, `${text}${assistant('3', 1)}`);
    const s = await snap();
    expect(s.stats).toMatchObject({ read: 1, tailed: 0 });
    expect(s.document.sessions[0]!.tokens.output).toBe(14);
  });

  it('a transcript that shrank, or was replaced by another file, is read again from the start', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5) + assistant('2', 7));
    await snap();
    truncateSync(path, Buffer.byteLength(assistant('1', 5)));
    let s = await snap();
    expect(s.stats.read).toBe(1);
    expect(s.document.sessions[0]!.tokens.output).toBe(5);
    const other = home.write(join(home.dir, 'other.jsonl'), assistant('1', 5) + assistant('9', 100));
    renameSync(other, path);
    s = await snap();
    expect(s.stats.read).toBe(1);
    expect(s.document.sessions[0]!.tokens.output).toBe(105);
  });

  it('a deleted transcript keeps its session, marked deleted, so past spend does not shrink', async () => {
    const path = home.write(home.claudeFile('-w', 'gone.jsonl'), assistant('1', 500));
    home.write(home.claudeFile('-w', 'kept.jsonl'), assistant('2', 5));
    const before = await snap();
    rmSync(path);
    const after = await snap();
    const gone = after.document.sessions.find((s) => s.id === 'gone')!;
    expect(gone.deleted).toBe(true);
    expect(gone.cost.usd).toBe(before.document.sessions.find((s) => s.id === 'gone')!.cost.usd);
    expect(after.document.sessions.find((s) => s.id === 'kept')!.deleted).toBe(false);
    // A cold scan cannot know what was deleted.
    expect((await snap(false)).document.sessions.map((s) => s.id)).toEqual(['kept']);
  });

  it('a parser change re-reads exactly the files that parser read', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    home.write(
      home.codexFile('rollout-x.jsonl'),
      jsonl({ timestamp: '2026-11-29T10:00:00Z', type: 'session_meta', payload: { id: 'x' } }),
    );
    await snap();
    const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    db.prepare("UPDATE files SET parser = 'an-older-parser' WHERE provider = 'claude'").run();
    // A real parser change is a code change, which also retires the kept sessions (buildVersion).
    db.prepare('DELETE FROM scopes').run();
    db.close();
    expect((await snap()).stats).toMatchObject({ read: 1, reused: 1 });
  });

  it('a corrupt index is rebuilt with a notice, and the answer is still right', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    await snap();
    writeFileSync(
      join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE),
      'this is not a database at all, just bytes'.repeat(200),
    );
    rmSync(join(home.env.CCTOP_CACHE_DIR!, `${INDEX_FILE}-wal`), { force: true });
    rmSync(join(home.env.CCTOP_CACHE_DIR!, `${INDEX_FILE}-shm`), { force: true });
    const s = await snap();
    expect(s.document.sessions[0]!.tokens.output).toBe(5);
    expect((await snap()).stats.reused).toBe(1);
  });

  it('an index whose pages go bad after it opened is moved aside and rebuilt once, and answers as a cold read', async () => {
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    home.write(home.claudeFile('-w', 'b.jsonl'), assistant('2', 7));
    await snap();
    const cache = home.env.CCTOP_CACHE_DIR!;
    // The schema and `meta` stay whole, so the index opens; the rows of every transcript do not.
    damagePages(join(cache, INDEX_FILE), 'files');
    appendFileSync(a, assistant('3', 9));
    const s = await snap();
    expect(s.document.sessions).toEqual((await snap(false)).document.sessions);
    expect(s.notice).toMatch(
      /^the index at .*index\.sqlite was damaged \(database disk image is malformed\); moved it to index\.sqlite\.corrupt-\S+ and rebuilt it from the transcripts$/,
    );
    expect(s.document.problems).toContainEqual({ kind: 'cache', path: cache, count: null, detail: s.notice });
    expect(damagedCopies(cache)).toHaveLength(1);
    // Healed: the next run answers from the new index, and says nothing.
    const next = await snap();
    expect(next.stats.reused).toBe(2);
    expect(next.notice).toBeNull();
    expect(next.document.problems).toEqual([]);
  });

  it('only the newest damaged indexes are kept aside', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    await snap();
    const cache = home.env.CCTOP_CACHE_DIR!;
    const older = ['2020-01-01T00-00-00-000Z', '2021-01-01T00-00-00-000Z', '2022-01-01T00-00-00-000Z'];
    for (const t of older) writeFileSync(join(cache, `${INDEX_FILE}.corrupt-${t}`), 'an old damaged index');
    writeFileSync(join(cache, `${INDEX_FILE}.corrupt-${older[0]}-wal`), 'its log');
    writeFileSync(join(cache, INDEX_FILE), 'this is not a database at all, just bytes'.repeat(200));
    expect((await snap()).document.sessions[0]!.tokens.output).toBe(5);
    const kept = damagedCopies(cache);
    expect(kept).toHaveLength(MAX_DAMAGED_KEPT);
    expect(kept[0]).toBe(`${INDEX_FILE}.corrupt-${older[2]}`);
    expect(readdirSync(cache).some((n) => n.includes(older[0]!))).toBe(false);
  });

  it('a cache directory that is a file, or under one, is read without the index, with a notice naming it', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    const file = home.write(join(home.dir, 'not-a-dir'), 'a file');
    for (const [dir, why] of [
      [file, 'it is a file, not a directory'],
      [join(file, 'cctop'), 'a part of its path is a file'],
    ] as const) {
      const s = await snapshotIn(
        { ...home.env, CCTOP_CACHE_DIR: dir },
        { nowMs: Date.parse('2026-11-29T12:00:00Z') },
      );
      expect(s.document.sessions[0]!.tokens.output).toBe(5);
      expect(s.notice).toBe(
        `the cache directory ${dir} cannot be used (${why}); reading without the index (set CCTOP_CACHE_DIR to a directory cctop can write)`,
      );
      expect(s.document.problems.map((p) => p.kind)).toEqual(['cache']);
    }
  });

  it('an index of the schema before the patched rows keeps its transcripts: only the sessions are built again', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    home.write(home.claudeFile('-w', 'b.jsonl'), assistant('2', 7));
    const first = await snap();
    const file = join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE);
    const db = new Database(file);
    // As schema 10 left it: the kept sessions in one table of its own shape, the same transcripts' rows.
    db.exec(`DROP TABLE scopes; DROP TABLE packs; DROP TABLE patched_sessions; DROP TABLE patched_files;
      CREATE TABLE scopes (scope TEXT PRIMARY KEY, digest TEXT NOT NULL, sessions BLOB NOT NULL);
      UPDATE meta SET value = '10' WHERE key = 'schema'`);
    db.close();
    const again = await snap();
    expect(again.strategy).toBe('built');
    expect(again.stats).toMatchObject({ read: 0, reused: 2 });
    expect(again.document.sessions).toEqual(first.document.sessions);
    expect((await snap()).strategy).toBe('kept');
  });

  it('an index of schema 11, whose packs may hold message keys out of file order, keeps its transcripts: only the sessions are built again', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    home.write(home.claudeFile('-w', 'b.jsonl'), assistant('2', 7));
    const first = await snap();
    const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    db.exec(`UPDATE meta SET value = '11' WHERE key = 'schema'`);
    db.close();
    const again = await snap();
    expect(again.strategy).toBe('built');
    expect(again.stats).toMatchObject({ read: 0, reused: 2 });
    expect(again.document.sessions).toEqual(first.document.sessions);
    expect((await snap()).strategy).toBe('kept');
  });

  it('an index from a newer cctop is left alone and bypassed with a notice', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), assistant('1', 5));
    await snap();
    const file = join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE);
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema'").run();
    db.close();
    const s = await snap();
    expect(s.notice).toMatch(/newer cctop/);
    expect(s.document.sessions[0]!.tokens.output).toBe(5);
    const again = new Database(file);
    expect(
      (again.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string }).value,
    ).toBe('999');
    again.close();
  });

  it('--since does not read files last written before it', async () => {
    home.write(
      home.claudeFile('-w', 'old.jsonl'),
      assistant('1', 5, '2026-01-01T00:00:00Z'),
      Date.parse('2026-01-01T00:00:00Z'),
    );
    home.write(home.claudeFile('-w', 'new.jsonl'), assistant('2', 7));
    const s = await snap(false, Date.parse('2026-11-01T00:00:00Z'));
    expect(s.stats.read).toBe(1);
    expect(s.document.sessions.map((x) => x.id)).toEqual(['new']);
  });
});

const DEMO_BILLING = join(REPO, 'demo', 'home', '.claude', 'projects', '-home-sam-src-billing');

describe('the index on recorded and demo transcripts', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('tokens and cost are identical cold, warm, and after a transcript grows line by line', async () => {
    // Claude Code 2.1.328 in the lab's `fail` script, and a Codex 0.169.0 rollout beside it.
    const lines = readFileSync(labFile('claude', 'fail'), 'utf8').split('\n').filter(Boolean);
    const path = home.claudeFile('-w', 'grow.jsonl');
    home.write(path, '');
    home.copy(labFile('codex', 'fail'), home.codexFile(basename(labFile('codex', 'fail'))));
    const snap = (useIndex: boolean) =>
      snapshotIn(home.env, { useIndex, nowMs: Date.parse('2026-11-29T12:00:00Z') });
    // Append the recorded session in uneven pieces, scanning in between, as a live agent would be read.
    for (let i = 0; i < lines.length; ) {
      const n = 1 + (i % 7);
      appendFileSync(path, `${lines.slice(i, i + n).join('\n')}\n`);
      i += n;
      await snap(true);
    }
    const warm = await snap(true);
    const cold = await snap(false);
    expect(comparable(warm.document)).toEqual(comparable(cold.document));
    const grown = warm.document.sessions.find((s) => s.id === 'grow')!;
    expect([
      grown.tokens.input,
      grown.tokens.output,
      grown.tokens.cacheRead,
      grown.tokens.cacheWrite,
    ]).toEqual([21_542, 44, 21_626, 85]);
    // The figures the lab server answered with (its ledger), and the script's one failing command.
    expect(grown.tools).toMatchObject({ calls: 1, failed: 1 });
  });

  it('a transcript appended to while it is being read ends in the same totals as a cold read', async () => {
    // The bundled demo's longest session: 228 lines, 227 KB.
    const source = join(DEMO_BILLING, 'a0d12928-daca-4076-a4ae-776fe074bc1e.jsonl');
    const path = home.claudeFile('-w', 'live.jsonl');
    home.write(path, '');
    // A separate process writes the transcript in small pieces while scans run.
    const writer = spawn(process.execPath, [
      '-e',
      `const fs=require('fs');const d=fs.readFileSync(${JSON.stringify(source)});let i=0;const t=setInterval(()=>{const n=Math.min(d.length,i+7919);fs.appendFileSync(${JSON.stringify(path)},d.subarray(i,n));i=n;if(i>=d.length){clearInterval(t)}},1);`,
    ]);
    const done = new Promise((r) => writer.on('close', r));
    const snap = (useIndex: boolean) =>
      snapshotIn(home.env, { useIndex, nowMs: Date.parse('2026-11-29T12:00:00Z') });
    let last = 0;
    while (writer.exitCode === null) {
      // Let the event loop see the writer's exit between scans.
      await new Promise((r) => setTimeout(r, 5));
      const out = (await snap(true)).document.sessions[0]?.tokens.output ?? 0;
      expect(out).toBeGreaterThanOrEqual(last);
      last = out;
    }
    await done;
    const warm = await snap(true);
    expect(comparable(warm.document)).toEqual(comparable((await snap(false)).document));
    // Its 75 responses, each counted once at its fullest (worked out by a script over the file).
    expect(warm.document.sessions[0]!.tokens.output).toBe(34_157);
  });
});

describe('several cctops at once', () => {
  it('three concurrent runs share one new index and all answer correctly', async () => {
    const home = new FakeHome();
    try {
      for (let i = 0; i < 30; i++) {
        home.write(
          home.claudeFile('-w', `s${i}.jsonl`),
          jsonl({
            type: 'assistant',
            sessionId: `s${i}`,
            timestamp: '2026-11-29T10:00:00Z',
            requestId: `r${i}`,
            message: {
              id: `m${i}`,
              role: 'assistant',
              model: 'claude-sonnet-4-5-20250929',
              content: [],
              usage: { input_tokens: 1, output_tokens: i },
            },
          }),
        );
      }
      const run = () =>
        new Promise<string>((resolve, reject) => {
          const c = spawn(process.execPath, [join(REPO, 'dist', 'cli.js'), '--json'], {
            env: { PATH: process.env.PATH ?? '', ...home.env },
          });
          let out = '';
          c.stdout.on('data', (d) => {
            out += d;
          });
          c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
        });
      const outs = await Promise.all([run(), run(), run()]);
      for (const o of outs) {
        const d = JSON.parse(o) as SessionDocument;
        expect(d.sessions).toHaveLength(30);
        expect(d.sessions.reduce((n, s) => n + (s.tokens.output ?? 0), 0)).toBe(435);
      }
    } finally {
      home.cleanup();
    }
  });
});
