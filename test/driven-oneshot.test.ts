/**
 * The commands that do not stay show driven runs as the live views do: `cctop --list` marks a
 * session a program drives (`d`, with the driver's state), gives a run whose session is not on disk
 * yet a row of its own, and `cctop --json` carries both, with the runs, under `driven`. A run is read
 * from the file its driver keeps in the runtime directory (`runtime/run-files.ts`); here the file is
 * written as a driver writes it, and the session is one Claude Code 2.1.328 wrote in the lab. The
 * real round trip, a lab agent driven through `cctop/drive`, is `test/lab/drive-oneshot.test.ts`.
 *
 * Only `Date` is pinned (so LAST and DUR read the same every run); timers run as usual.
 */
import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSnapshot } from '../src/drive/announce-fold.js';
import type { SessionDocument } from '../src/model/document.js';
import { RUNS_FOLDER, writeRunFile } from '../src/runtime/run-files.js';
import type { RunSnapshot } from '../src/runtime/runs.js';
import { labHome } from '../src/test-support/lines.js';
import { main } from '../src/views/cli/main.js';

/** Two minutes after the lab session's last record (2026-12-01T21:24:25Z). */
const NOW = Date.parse('2026-12-01T21:26:25Z');
const SESSION = '02d7b670-5237-46d6-b46d-86ffd47bdf03';

let home: string;
let runtime: string;
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterAll(() => vi.useRealTimers());
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cctop-driven-home-'));
  runtime = mkdtempSync(join(tmpdir(), 'cctop-driven-run-'));
  cpSync(labHome('claude', 'call'), home, { recursive: true });
});
afterEach(() => {
  for (const d of [home, runtime]) rmSync(d, { recursive: true, force: true });
});

/** A run as a driver in this process keeps it, its file as fresh as the pinned clock. */
function drive(over: Partial<RunSnapshot> & Pick<RunSnapshot, 'id'>): RunSnapshot {
  const run: RunSnapshot = {
    ...startSnapshot({
      id: over.id,
      agent: 'claude',
      harness: 'claude',
      program: 'fix-bot.mjs',
      cwd: '/w/app',
      model: 'claude-sonnet-4-5',
      remote: true,
      startedAtMs: NOW - 90_000,
    }),
    ...over,
  };
  writeRunFile(runtime, run);
  const at = new Date(NOW);
  utimesSync(join(runtime, RUNS_FOLDER, `${run.id}.json`), at, at);
  return run;
}

async function cctop(...args: string[]): Promise<string> {
  const out: string[] = [];
  const env = {
    HOME: home,
    CCTOP_CACHE_DIR: join(home, '.cache', 'cctop'),
    CCTOP_RUNTIME_DIR: runtime,
    TZ: 'UTC',
    COLUMNS: '120',
    PATH: process.env.PATH ?? '',
  };
  const code = await main(args, {
    out: (s) => out.push(typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    err: (s) => out.push(`stderr: ${s}`),
    isTty: false,
    columns: 120,
    env,
  });
  expect(code).toBe(0);
  return out.join('\n');
}

const WAITING = {
  id: '0b7e4c1a-5d2f-4e8a-9c3b-1f2e3d4c5b6a',
  session: SESSION,
  phase: 'waiting',
  tool: 'Bash',
  toolCalls: 1,
  pending: [{ id: 'toolu_01', tool: 'Bash', input: '{"command":"rm -rf build"}' }],
} as const;
const STARTING = {
  id: '11111111-2222-4333-8444-555555555555',
  agent: 'codex',
  harness: 'codex',
  model: 'gpt-5',
};

describe('cctop --list and --json show driven runs as the live views do', () => {
  it('the list marks the driven session with its driver’s state, and a run not on disk has a row of its own', async () => {
    drive({ ...WAITING, pending: [...WAITING.pending] });
    drive({ ...STARTING, program: 'nightly.mjs', cwd: '/w/api' });
    expect((await cctop('--list')).split('\n')).toEqual([
      'Claude Code — 1 session · $0.07 est.',
      '     ID   LAST   DUR    COST TOKENS CTX% MODEL         PROJECT · TITLE',
      '  ▲d 02d7   2m    0m   $0.07    43k  13% sonnet-4.5    work · [lab:call] Follow the lab script call.',
      '',
      'Codex — 1 session · no usage recorded',
      '     ID   LAST   DUR    COST TOKENS CTX% MODEL         PROJECT · TITLE',
      '  ●d driv   1m    0m       ─      ─    ─ gpt-5         api · driven by nightly.mjs',
      '',
      '● working  ▲ waiting on you  ✖ error  · idle  ─ unknown  CTX%: of compact point',
      "h: state said by the agent's hooks  r: by its own session list  d: by its driver  unmarked: inferred (cctop explain ID)",
    ]);
  });

  it('the document carries the runs, the driven session’s state and stateSource, and the run’s own row', async () => {
    const waiting = drive({ ...WAITING, pending: [...WAITING.pending] });
    const starting = drive({ ...STARTING, program: 'nightly.mjs', cwd: '/w/api' });
    const doc = JSON.parse(await cctop('--json')) as SessionDocument;
    expect(doc.driven).toEqual([waiting, starting]);
    expect(
      doc.sessions.map((s) => [
        s.provider,
        s.id,
        s.state,
        s.stateSource,
        s.stateDetail,
        s.driven?.id,
        s.file !== '',
      ]),
    ).toEqual([
      ['claude', SESSION, 'waiting', 'driven', 'Bash: {"command":"rm -rf build"}', waiting.id, true],
      ['codex', `driven:${starting.id}`, 'working', 'driven', null, starting.id, false],
    ]);
  });

  it('without a run the list is as before, and `--harness` leaves out the runs of other harnesses', async () => {
    const before = await cctop('--list');
    expect(before).not.toContain('▲d');
    drive({ ...STARTING, program: 'nightly.mjs' });
    expect(await cctop('--list', '--harness', 'claude')).toBe(before);
  });

  it('a run started after a warm answer is shown: the warm snapshot declines while a run is driven', async () => {
    const row =
      '  ·  02d7   2m    0m   $0.07    43k  13% sonnet-4.5    work · [lab:call] Follow the lab script call.';
    // The first answer writes the warm snapshot, the second is printed from it.
    await cctop('--list');
    expect((await cctop('--list')).split('\n')[2]).toBe(row);
    drive({ ...WAITING, pending: [...WAITING.pending] });
    expect((await cctop('--list')).split('\n')[2]).toBe(row.replace('  ·  ', '  ▲d '));
    expect(JSON.parse(await cctop('--json')).sessions[0].stateSource).toBe('driven');
  });
});
