import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSnapshot } from '../drive/announce-fold.js';
import { MAX_MESSAGE_BYTES } from './protocol.js';
import {
  announcedRuns,
  MAX_RUN_FILE_BYTES,
  RUN_FILE_FRESH_MS,
  RUNS_FOLDER,
  removeRunFile,
  writeRunFile,
} from './run-files.js';
import type { RunSnapshot } from './runs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runtime() {
  const dir = mkdtempSync(join(tmpdir(), 'cctop-run-files-'));
  dirs.push(dir);
  return { dir, env: { CCTOP_RUNTIME_DIR: dir }, folder: join(dir, RUNS_FOLDER) };
}

const ID = '0b7e4c1a-5d2f-4e8a-9c3b-1f2e3d4c5b6a';
const run = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({
  ...startSnapshot({
    id: ID,
    agent: 'claude',
    harness: 'claude',
    program: 'fix-bot.mjs',
    cwd: '/w',
    model: null,
    remote: false,
    startedAtMs: 1_000,
  }),
  ...over,
});

describe('driven runs as files, for the commands that do not stay', () => {
  it('a run written is read back as its driver wrote it, and is gone once removed', () => {
    const r = runtime();
    writeRunFile(r.dir, run({ phase: 'working', session: 's-1' }));
    expect(announcedRuns(r.env)).toEqual([run({ phase: 'working', session: 's-1' })]);
    removeRunFile(r.dir, ID);
    expect(announcedRuns(r.env)).toEqual([]);
  });

  it('a run whose driver no longer runs is dropped, and its file removed', () => {
    const r = runtime();
    // A pid far past any the kernel hands out (pid_max is at most 2^22).
    writeRunFile(r.dir, run({ pid: 2 ** 22 + 17 }));
    expect(announcedRuns(r.env)).toEqual([]);
    expect(readdirSync(r.folder)).toEqual([]);
  });

  it('a run its driver stopped touching is dropped: a reused pid does not keep it shown', () => {
    const r = runtime();
    writeRunFile(r.dir, run());
    const nowMs = Date.now();
    const old = new Date(nowMs - RUN_FILE_FRESH_MS - 1_000);
    utimesSync(join(r.folder, `${ID}.json`), old, old);
    expect(announcedRuns(r.env, nowMs)).toEqual([]);
  });

  it('an ended run is not listed: its session is an ordinary one again', () => {
    const r = runtime();
    writeRunFile(r.dir, run({ phase: 'ended', end: 'completed' }));
    expect(announcedRuns(r.env)).toEqual([]);
  });

  it('what no driver wrote is not a run: other names, garbage, another id inside, an oversized file', () => {
    const r = runtime();
    mkdirSync(r.folder, { recursive: true });
    writeFileSync(join(r.folder, 'notes.json'), JSON.stringify(run()));
    writeFileSync(join(r.folder, `${ID}.json`), '{"id":');
    const other = '11111111-2222-4333-8444-555555555555';
    writeFileSync(join(r.folder, `${other}.json`), JSON.stringify(run()));
    const big = '22222222-2222-4333-8444-555555555555';
    writeFileSync(
      join(r.folder, `${big}.json`),
      JSON.stringify(run({ id: big, cwd: 'x'.repeat(MAX_RUN_FILE_BYTES) })),
    );
    expect(announcedRuns(r.env)).toEqual([]);
  });

  it('text from a run file is made inert: control characters never reach a terminal', () => {
    const r = runtime();
    mkdirSync(r.folder, { recursive: true });
    writeFileSync(join(r.folder, `${ID}.json`), JSON.stringify(run({ program: 'bot\u001b]52;c;x\u0007' })));
    expect(announcedRuns(r.env).map((x) => x.program)).toEqual(['bot\ufffd]52;c;x\ufffd']);
  });

  it('a run file holds what one protocol line holds', () => {
    expect(MAX_RUN_FILE_BYTES).toBe(MAX_MESSAGE_BYTES);
  });
});
