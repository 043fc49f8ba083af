/**
 * A named pipe where cctop expects a file: at the config path, at an agent's settings file, at a
 * transcript the status line is told about, at a file the background refresh reads. Opening a pipe
 * waits for a writer and reading one waits for data, so each of these once hung for good. Every run
 * here has an explicit bound (`HANG_MS`): a hang is a failure, not a stuck suite.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');
const REFRESH = join(REPO, 'dist', 'statusline', 'refresh-main.js');

/** Longer than any of these runs takes, shorter than the test timeout: a hang shows as a failure. */
const HANG_MS = 20_000;

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

function cctop(args: string[], env: Record<string, string>, input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: HANG_MS,
    ...(input === undefined ? {} : { input }),
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function fifoAt(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  const r = spawnSync('mkfifo', ['-m', '600', path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
  return path;
}

describe('a named pipe at the config path', () => {
  for (const args of [
    ['--list', '--no-cache'],
    ['daily', '--no-cache'],
    ['budget', '--no-cache'],
    ['config', 'check'],
  ])
    it(`cctop ${args[0]} ${args[1] === 'check' ? 'check ' : ''}answers at once and names the pipe`, () => {
      home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
      const config = fifoAt(join(home.dir, 'cctop.toml'));
      const r = cctop(args, { ...home.env, CCTOP_CONFIG: config });
      expect(r.signal, `${args.join(' ')} did not end within ${HANG_MS} ms`).toBeNull();
      expect(`${r.out}${r.err}`).toContain(`${config} is a named pipe, not a file`);
    });

  it('cctop --json answers at once with the sessions', () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const config = fifoAt(join(home.dir, 'cctop.toml'));
    const r = cctop(['--json', '--no-cache'], { ...home.env, CCTOP_CONFIG: config });
    expect(r.signal, `--json did not end within ${HANG_MS} ms`).toBeNull();
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it('cctop serve keeps answering', async () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const config = fifoAt(join(home.dir, 'cctop.toml'));
    const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--no-token'], {
      env: { PATH: process.env.PATH ?? '', ...home.env, CCTOP_CONFIG: config },
    });
    try {
      let err = '';
      child.stderr?.on('data', (d) => {
        err += d;
      });
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (d) => {
          out += d;
          const m = /cctop serve: (http:\/\/\S+?)\/\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}`)));
      });
      for (const path of ['/api/sessions', '/api/info', '/api/sessions'])
        expect((await fetch(`${base}${path}`, { signal: AbortSignal.timeout(HANG_MS) })).status).toBe(200);
      // And --no-token says what it gives away.
      await expect
        .poll(() => err)
        .toContain(
          'cctop serve: --no-token: every user of this machine can read what this server shows; it is read-only (nothing can be answered or typed through it). Keep the token to act.',
        );
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('a named pipe an agent or its settings name', () => {
  it('the status line answers when stdin names a pipe as the transcript', () => {
    const transcript = fifoAt(join(home.dir, '.claude', 'projects', '-w', 'p.jsonl'));
    const r = cctop(
      ['statusline'],
      home.env,
      JSON.stringify({ session_id: 'p', transcript_path: transcript, cwd: '/w' }),
    );
    expect(r.signal, `statusline did not end within ${HANG_MS} ms`).toBeNull();
    expect(r.code).toBe(0);
  });

  it('hooks install refuses a pipe at settings.json and says nothing was changed', () => {
    const settings = fifoAt(join(home.dir, '.claude', 'settings.json'));
    const r = cctop(['hooks', 'install', '--agent', 'claude'], home.env);
    expect(r.signal, `hooks install did not end within ${HANG_MS} ms`).toBeNull();
    expect(r.out + r.err).toContain(`${settings} is a named pipe, not a file; nothing was changed`);
  });

  it('cctop exec --schema refuses a pipe at once (exit 2)', () => {
    const schema = fifoAt(join(home.dir, 'schema.json'));
    const r = cctop(['exec', 'claude', '--schema', schema, 'hi'], home.env);
    expect(r.signal, `exec did not end within ${HANG_MS} ms`).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err).toContain(`cctop exec: --schema ${schema}: it is a named pipe, not a file`);
  });

  it('--list answers when Claude Code’s settings.json is a pipe', () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    fifoAt(join(home.dir, '.claude', 'settings.json'));
    const r = cctop(['--list', '--no-cache'], home.env);
    expect(r.signal, `--list did not end within ${HANG_MS} ms`).toBeNull();
    expect(r.code).toBe(0);
  });
});

describe('the status line’s background refresh', () => {
  it('a refresh stuck past its budget logs it, gives the lock back and ends', () => {
    const cache = home.env.CCTOP_CACHE_DIR!;
    mkdirSync(cache, { recursive: true });
    // Stuck for good: the refresh's first read (the digest) is a pipe no one writes.
    fifoAt(join(cache, 'statusline.json'));
    const lock = join(cache, 'statusline-refresh.lock');
    writeFileSync(lock, JSON.stringify({ pid: 1, token: 'tok', atMs: Date.now() }));
    const r = spawnSync(process.execPath, [REFRESH, 'tok', '123', '500'], {
      env: { PATH: process.env.PATH ?? '', ...home.env },
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    expect(r.signal).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(false);
    expect(readFileSync(join(cache, 'statusline-refresh.log'), 'utf8')).toMatch(
      /pid \d+: over its budget of 500 ms; stopped\n$/,
    );
  });
});
