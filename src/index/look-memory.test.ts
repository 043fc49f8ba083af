import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { snapshotIn } from '../test-support/snapshot.js';
import { LOOKS_FILE, LookMemory, looksBytes } from './look-memory.js';

/** One Claude Code response in session `session`, with `output` tokens: enough to tell two reads apart. */
const response = (session: string, id: string, output: number): string =>
  jsonl({
    type: 'assistant',
    sessionId: session,
    cwd: '/w',
    uuid: `u-${id}`,
    timestamp: '2026-11-29T10:00:00Z',
    requestId: `r-${id}`,
    message: {
      id: `m-${id}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      usage: { input_tokens: 1, output_tokens: output },
    },
  });

const HOUR = 3_600_000;

describe('the look memory: a one-shot within a minute of a full look looks only where something can have changed', () => {
  let home: FakeHome;
  /**
   * The clock the runs are told: ahead of every time the files get here (so every folder has settled,
   * `SETTLE_MS`), whatever the real clock reads when the test runs.
   */
  let t0: number;
  beforeEach(() => {
    home = new FakeHome();
    t0 = Date.now() + 60_000;
  });
  afterEach(() => home.cleanup());

  const run = (at: number, o: { useIndex?: boolean; needFiles?: boolean } = {}) =>
    snapshotIn(home.env, { useIndex: o.useIndex ?? true, needFiles: o.needFiles ?? false, nowMs: at });
  /** Each session's transcript and output tokens, as the run answered (and `deleted` for one whose transcript is gone). */
  const seen = async (at: number, o: { useIndex?: boolean; needFiles?: boolean } = {}) =>
    (await run(at, o)).document.sessions
      .map((s) =>
        s.deleted ? [basename(s.file), s.tokens.output, 'deleted'] : [basename(s.file), s.tokens.output],
      )
      .sort();
  const memoryPath = () => join(home.env.CCTOP_CACHE_DIR!, LOOKS_FILE);
  /** Whether a run at `at` would trust the memory (rather than look in full). */
  const trusting = (at: number) => LookMemory.open(dirname(memoryPath()), at, false).look.kind === 'trusting';

  /** A transcript last written two hours before the first run (so not one that may be growing). */
  const quiet = (name: string, output: number): string =>
    home.write(home.claudeFile('-w', name), response(name, name, output), t0 - 2 * HOUR);
  /** An append that leaves the transcript's time where it was, as a quiet file's append looks to a skipped stat. */
  const appendQuietly = (path: string, text: string): void => {
    const { mtimeMs } = statSync(path);
    appendFileSync(path, text);
    utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
  };

  it('an append to a quiet transcript in a folder where nothing changed is seen at the next full look, a minute after the last', async () => {
    const a = quiet('a.jsonl', 5);
    quiet('b.jsonl', 7);
    expect(await seen(t0)).toEqual([
      ['a.jsonl', 5],
      ['b.jsonl', 7],
    ]);
    appendFileSync(a, response('a.jsonl', 'a2', 100));
    // Within the minute: the folder did not move and `a` was quiet, so its stat is the remembered one.
    expect(trusting(t0 + 30_000)).toBe(true);
    expect(await seen(t0 + 30_000)).toEqual([
      ['a.jsonl', 5],
      ['b.jsonl', 7],
    ]);
    expect(await seen(t0 + 60_000)).toEqual([
      ['a.jsonl', 5],
      ['b.jsonl', 7],
    ]);
    // Over a minute after the last full look: a full look, which sees it.
    expect(await seen(t0 + 60_001)).toEqual([
      ['a.jsonl', 105],
      ['b.jsonl', 7],
    ]);
  });

  it('a transcript added to or removed from a folder is seen by the next run at once', async () => {
    const a = quiet('a.jsonl', 5);
    expect(await seen(t0)).toEqual([['a.jsonl', 5]]);
    expect(await seen(t0 + 1_000)).toEqual([['a.jsonl', 5]]);
    quiet('b.jsonl', 7);
    expect(trusting(t0 + 2_000)).toBe(true);
    expect(await seen(t0 + 2_000)).toEqual([
      ['a.jsonl', 5],
      ['b.jsonl', 7],
    ]);
    rmSync(a);
    // The index keeps a deleted transcript's session (its spend happened), marked as deleted.
    expect(await seen(t0 + 3_000)).toEqual([
      ['a.jsonl', 5, 'deleted'],
      ['b.jsonl', 7],
    ]);
    // A new project folder: its parent moved.
    home.write(home.claudeFile('-v', 'c.jsonl'), response('c.jsonl', 'c', 9), t0 - 2 * HOUR);
    expect(await seen(t0 + 4_000)).toEqual([
      ['a.jsonl', 5, 'deleted'],
      ['b.jsonl', 7],
      ['c.jsonl', 9],
    ]);
  });

  it('a transcript written in the last hour that grew is seen by the next run at once', async () => {
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), response('a.jsonl', 'a', 5), t0 - HOUR + 10_000);
    quiet('b.jsonl', 7);
    expect(await seen(t0)).toEqual([
      ['a.jsonl', 5],
      ['b.jsonl', 7],
    ]);
    appendQuietly(a, response('a.jsonl', 'a2', 100));
    expect(trusting(t0 + 5_000)).toBe(true);
    expect(await seen(t0 + 5_000)).toEqual([
      ['a.jsonl', 105],
      ['b.jsonl', 7],
    ]);
  });

  it('--no-cache and doctor always look in full, and --no-cache leaves no memory behind', async () => {
    const a = quiet('a.jsonl', 5);
    expect(await seen(t0, { useIndex: false })).toEqual([['a.jsonl', 5]]);
    expect(existsSync(memoryPath())).toBe(false);
    expect(await seen(t0)).toEqual([['a.jsonl', 5]]);
    appendQuietly(a, response('a.jsonl', 'a2', 100));
    expect(await seen(t0 + 1_000, { useIndex: false })).toEqual([['a.jsonl', 105]]);
    // `cctop doctor` (every parsed file asked for) looks in full too, and so brings the memory up to date.
    expect(await seen(t0 + 2_000, { needFiles: true })).toEqual([['a.jsonl', 105]]);
    expect(await seen(t0 + 3_000)).toEqual([['a.jsonl', 105]]);
  });

  it('a damaged memory, or one of another layout, is ignored and written again', async () => {
    const a = quiet('a.jsonl', 5);
    await run(t0);
    const good = readFileSync(memoryPath());
    appendQuietly(a, response('a.jsonl', 'a2', 100));
    // One byte changed in the body: its CRC no longer holds.
    const damaged = Buffer.from(good);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 2) ^ 1, damaged.length - 2);
    writeFileSync(memoryPath(), damaged);
    expect(LookMemory.open(dirname(memoryPath()), t0 + 1_000, false).look).toEqual({
      kind: 'sweep',
      why: 'unsound',
    });
    expect(await seen(t0 + 1_000)).toEqual([['a.jsonl', 105]]);
    expect(LookMemory.open(dirname(memoryPath()), t0 + 2_000, false).look).toEqual({
      kind: 'trusting',
      sweptAt: t0 + 1_000,
    });
    const sound = (rows: unknown, format?: number) => {
      writeFileSync(memoryPath(), looksBytes(t0 + 2_000, rows, format));
      return LookMemory.open(dirname(memoryPath()), t0 + 3_000, false).look;
    };
    // Sound bytes of another layout (a later version's): not trusted either.
    expect(sound([], 99)).toEqual({ kind: 'sweep', why: 'unsound' });
    // This layout, trusted as such...
    const folder = dirname(a);
    const st = statSync(folder);
    const row = (name: string) => [
      folder,
      st.mtimeMs,
      st.ctimeMs,
      st.ino,
      'f',
      [name],
      [0, 1, t0 - 2 * HOUR, 1],
    ];
    expect(sound([row('a.jsonl')]).kind).toBe('trusting');
    // ...but not with a name no listing holds, which would lead discovery out of the folder.
    for (const name of ['../../secret.jsonl', '..', '.', ''])
      expect(sound({ format: 1, sweptAt: t0 + 2_000, dirs: [row(name)] })).toEqual({
        kind: 'sweep',
        why: 'unsound',
      });
    // ...nor with a file's stamp that is not a number, or that names no entry of the folder.
    for (const stamps of [
      [0, '1', t0 - 2 * HOUR, 1],
      [1, 1, t0 - 2 * HOUR, 1],
      [0, 1, t0 - 2 * HOUR],
    ])
      expect(sound([[...row('a.jsonl').slice(0, 6), stamps]])).toEqual({ kind: 'sweep', why: 'unsound' });
    // Nor is a file that is not one at all.
    writeFileSync(memoryPath(), 'not a memory');
    expect(LookMemory.open(dirname(memoryPath()), t0 + 3_000, false).look).toEqual({
      kind: 'sweep',
      why: 'unsound',
    });
  });

  it('a warm answer kept from a look that trusted the memory is trusted no longer than the full look it came from', async () => {
    quiet('a.jsonl', 5);
    await run(t0);
    await run(t0 + 30_000);
    const cache = home.env.CCTOP_CACHE_DIR!;
    const warm = readdirSync(cache).filter((n) => n.startsWith('warm-'));
    // The snapshot and the document: each marked as looked at when the full look was, not 30 s later.
    expect(warm.length).toBe(2);
    for (const n of warm) expect(Math.round(statSync(join(cache, n)).mtimeMs)).toBe(t0);
  });

  it('is kept owner-only', async () => {
    quiet('a.jsonl', 5);
    await run(t0);
    expect(statSync(memoryPath()).mode & 0o777).toBe(0o600);
  });

  it('a link leading out of the tree is reported by every run, as a full look reports it', async () => {
    quiet('a.jsonl', 5);
    const outside = join(home.dir, 'elsewhere.jsonl');
    writeFileSync(outside, response('x', 'x', 1));
    symlinkSync(outside, home.claudeFile('-w', 'evil.jsonl'));
    const folder = dirname(home.claudeFile('-w', 'a.jsonl'));
    utimesSync(folder, (t0 - 2 * HOUR) / 1000, (t0 - 2 * HOUR) / 1000);
    const problems = async (at: number) => (await run(at)).index.problems.list.map((p) => [p.kind, p.path]);
    const full = await problems(t0);
    expect(full).toEqual([['unreadable', home.claudeFile('-w', 'evil.jsonl')]]);
    expect(trusting(t0 + 1_000)).toBe(true);
    expect(await problems(t0 + 1_000)).toEqual(full);
  });
});
