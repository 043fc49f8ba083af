import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO } from '../../test-support/corpus.js';
import { MAX_REGISTRY_FILE_BYTES, MAX_REGISTRY_FILES, readClaudeRegistry } from './registry.js';

/** Records Claude Code 2.1.328 wrote in the lab (`lab/fixtures/hooks/README.md` says how). */
const FIXTURES = join(REPO, 'lab', 'fixtures', 'claude-registry');
const recorded = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

let root: string;
let config: string;
let sessions: string;
const env = () => ({ CLAUDE_CONFIG_DIR: config, HOME: root });
const everyoneAlive = { alive: () => true };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cctop-registry-'));
  config = join(root, 'claude');
  sessions = join(config, 'sessions');
  mkdirSync(sessions, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Write a record as Claude Code names it: `<pid>.json`, its own pid inside. */
function put(pid: number, record: Record<string, unknown>): void {
  writeFileSync(join(sessions, `${pid}.json`), JSON.stringify({ ...record, pid }));
}

/** This process's start time as Claude Code records it (`/proc/self/stat` field 22), on Linux. */
function ownStart(): string | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

describe('what Claude Code 2.1.328 wrote', () => {
  it('a stream-json run waiting on an approval reads as waiting on its permission prompt', () => {
    const r = recorded('print-waiting.json');
    put(process.pid, { ...r, procStart: ownStart() ?? r.procStart, pidDomain: undefined });
    const { entries, bad } = readClaudeRegistry(env());
    expect(bad).toBe(0);
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e).toMatchObject({
      pid: process.pid,
      sessionId: r.sessionId,
      cwd: '/LAB/work',
      status: 'waiting',
      detail: 'permission prompt',
      updatedAtMs: r.statusUpdatedAt,
      kind: 'print',
      entrypoint: 'sdk-cli',
      version: '2.1.328',
      alive: true,
      foreignPid: false,
      jobId: null,
      job: null,
      root: config,
    });
  });

  it('a claude -p turn in flight reads as busy, and a terminal session is interactive', () => {
    put(101, recorded('print-busy.json'));
    put(102, recorded('interactive-waiting.json'));
    const { entries } = readClaudeRegistry(env(), everyoneAlive);
    expect(entries.map((e) => [e.pid, e.kind, e.status, e.detail])).toEqual([
      [101, 'print', 'busy', null],
      [102, 'interactive', 'waiting', 'permission prompt'],
    ]);
  });

  it('a background session carries its job, and what the job needs from its user', () => {
    const r = recorded('background-idle.json');
    put(Number(r.pid), r);
    mkdirSync(join(config, 'jobs', '18a79d93'), { recursive: true });
    writeFileSync(
      join(config, 'jobs', '18a79d93', 'state.json'),
      readFileSync(join(FIXTURES, 'jobs', '18a79d93', 'state.json')),
    );
    const [e] = readClaudeRegistry(env(), everyoneAlive).entries;
    expect(e).toMatchObject({ kind: 'background', status: 'idle', jobId: '18a79d93', name: r.name });
    expect(e!.job).toEqual({
      state: 'blocked',
      needs: 'login required — run /login',
      detail: null,
      updatedAtMs: Date.parse('2026-12-02T04:20:13.009Z'),
    });
  });

  it('idle at the prompt with a background shell still running reads as idle, saying so', () => {
    put(7, { ...recorded('interactive-waiting.json'), status: 'shell', waitingFor: undefined });
    const [e] = readClaudeRegistry(env(), everyoneAlive).entries;
    expect([e!.status, e!.detail]).toEqual(['idle', 'background shell']);
  });
});

describe('whether the process behind a record still runs', () => {
  it('a record left behind by a process that has exited is returned, marked not alive', () => {
    put(4_000_000_000, recorded('print-busy.json'));
    const [e] = readClaudeRegistry(env()).entries;
    expect(e!.alive).toBe(false);
  });

  it.skipIf(ownStart() === null)(
    `a pid since reused by another process does not count as the session${ownStart() === null ? ' (skipped: this system gives no process start times (Linux /proc or macOS ps); run on Linux or macOS)' : ''}`,
    () => {
      put(process.pid, { ...recorded('print-busy.json'), procStart: '1', pidDomain: undefined });
      expect(readClaudeRegistry(env()).entries[0]!.alive).toBe(false);
    },
  );

  it('a record from another pid namespace or machine is never checked against our processes', () => {
    put(process.pid, { ...recorded('print-busy.json'), pidDomain: 'linux:another-machine:pid:[1]' });
    const [e] = readClaudeRegistry(env(), everyoneAlive).entries;
    if (process.platform === 'linux') expect([e!.foreignPid, e!.alive]).toEqual([true, false]);
  });
});

describe('where the records are', () => {
  it('every dir in CLAUDE_CONFIG_DIR is read, and a missing sessions folder is no error', () => {
    const other = join(root, 'other');
    mkdirSync(join(other, 'sessions'), { recursive: true });
    writeFileSync(join(other, 'sessions', '5.json'), JSON.stringify({ pid: 5, status: 'idle' }));
    put(6, { status: 'busy' });
    const missing = join(root, 'missing');
    const r = readClaudeRegistry({ CLAUDE_CONFIG_DIR: [config, other, missing].join(',') }, everyoneAlive);
    expect(r.entries.map((e) => [e.root, e.pid])).toEqual([
      [config, 6],
      [other, 5],
    ]);
    expect(r.bad).toBe(0);
  });

  it('without CLAUDE_CONFIG_DIR the records are under ~/.claude', () => {
    const home = join(root, 'home');
    mkdirSync(join(home, '.claude', 'sessions'), { recursive: true });
    writeFileSync(join(home, '.claude', 'sessions', '9.json'), '{"pid":9,"status":"idle"}');
    expect(readClaudeRegistry({ HOME: home }, everyoneAlive).entries.map((e) => e.pid)).toEqual([9]);
  });
});

describe('hostile or broken records', () => {
  it('the key files and half-written temp files beside the records are ignored, not counted', () => {
    put(10, { status: 'idle' });
    writeFileSync(join(sessions, '10.8335d5a8c9eb.key'), '{"peerToken":"x"}');
    writeFileSync(join(sessions, '10.json.tmp.0db6eb58'), '{');
    expect(readClaudeRegistry(env(), everyoneAlive)).toMatchObject({ bad: 0, entries: [{ pid: 10 }] });
  });

  it('malformed records are counted and skipped, and the good ones still read', () => {
    put(1, { status: 'busy' });
    writeFileSync(join(sessions, '2.json'), 'not json');
    writeFileSync(join(sessions, '3.json'), '[1,2,3]');
    writeFileSync(join(sessions, '4.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    writeFileSync(join(sessions, '5.json'), JSON.stringify({ pid: 6, status: 'busy' }));
    writeFileSync(join(sessions, '007.json'), JSON.stringify({ pid: 7 }));
    writeFileSync(join(sessions, '8.json'), JSON.stringify({ status: 'x'.repeat(MAX_REGISTRY_FILE_BYTES) }));
    mkdirSync(join(sessions, '9.json'));
    const r = readClaudeRegistry(env(), everyoneAlive);
    expect(r.entries.map((e) => e.pid)).toEqual([1]);
    expect(r.bad).toBe(7);
  });

  it('a record linked to a device or a fifo is refused without reading it', () => {
    symlinkSync('/dev/zero', join(sessions, '11.json'));
    symlinkSync('/dev/urandom', join(sessions, '12.json'));
    expect(readClaudeRegistry(env(), everyoneAlive)).toEqual({ entries: [], bad: 2 });
  });

  it('fields of the wrong type read as unknown, and the record still counts', () => {
    put(13, {
      status: 'asleep',
      waitingFor: 42,
      cwd: { path: '/' },
      sessionId: ['x'],
      updatedAt: 'yesterday',
      kind: 'robot',
      jobId: '../../etc',
    });
    const [e] = readClaudeRegistry(env(), everyoneAlive).entries;
    expect(e).toMatchObject({
      status: null,
      detail: null,
      cwd: null,
      sessionId: null,
      updatedAtMs: null,
      kind: null,
      jobId: null,
      job: null,
    });
  });

  it('a broken job state leaves the job unknown, not the session', () => {
    put(14, { kind: 'bg', jobId: 'j1', status: 'busy' });
    mkdirSync(join(config, 'jobs', 'j1'), { recursive: true });
    writeFileSync(join(config, 'jobs', 'j1', 'state.json'), '{"state":');
    expect(readClaudeRegistry(env(), everyoneAlive).entries[0]).toMatchObject({ status: 'busy', job: null });
  });

  it(`no more than ${MAX_REGISTRY_FILES} records are read from one folder; the rest are counted`, () => {
    const extra = 3;
    for (let pid = 1; pid <= MAX_REGISTRY_FILES + extra; pid++) put(pid, { status: 'idle' });
    const r = readClaudeRegistry(env(), everyoneAlive);
    expect(r.entries).toHaveLength(MAX_REGISTRY_FILES);
    expect(r.bad).toBe(extra);
  });
});
