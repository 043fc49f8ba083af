import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../test-support/corpus.js';
import { LOCK_STALE_MS, lockPath, release, startRefreshOnce } from './refresh-lock.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-lock-'));
});
afterEach(() => cleanup());

/** A pid no process has now: one that ran and exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

const holder = () =>
  JSON.parse(readFileSync(lockPath(dir), 'utf8')) as { pid: number; token: string; atMs: number };

describe('the refresh lock', () => {
  it('starts one refresh and records its pid; a second caller finds it running', () => {
    let launched = 0;
    const launch = () => {
      launched++;
      return process.pid;
    };
    expect(startRefreshOnce(dir, launch)).toEqual({ kind: 'started', pid: process.pid });
    expect(startRefreshOnce(dir, launch)).toMatchObject({ kind: 'running', holder: { pid: process.pid } });
    expect(launched).toBe(1);
  });

  it('is given back only by the refresh whose token it holds', () => {
    startRefreshOnce(dir, () => process.pid);
    release(dir, 'another-token');
    expect(existsSync(lockPath(dir))).toBe(true);
    release(dir, holder().token);
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it('is taken over when its refresh died', () => {
    writeFileSync(lockPath(dir), JSON.stringify({ pid: deadPid(), token: 't', atMs: Date.now() }));
    expect(startRefreshOnce(dir, () => 4242)).toEqual({ kind: 'started', pid: 4242 });
    expect(holder().pid).toBe(4242);
    expect(readdirSync(dir)).toEqual(['statusline-refresh.lock']);
  });

  it('is taken over when it is older than LOCK_STALE_MS, whatever its pid says', () => {
    const now = Date.now();
    writeFileSync(
      lockPath(dir),
      JSON.stringify({ pid: process.pid, token: 't', atMs: now - LOCK_STALE_MS - 1 }),
    );
    expect(startRefreshOnce(dir, () => 4242, now).kind).toBe('started');
  });

  it('holds while its file is being written, and is taken over if it stays unreadable too long', () => {
    writeFileSync(lockPath(dir), '');
    expect(startRefreshOnce(dir, () => 4242).kind).toBe('running');
    const old = (Date.now() - LOCK_STALE_MS - 60_000) / 1000;
    utimesSync(lockPath(dir), old, old);
    expect(startRefreshOnce(dir, () => 4242).kind).toBe('started');
  });

  it('is given back when the refresh cannot be started', () => {
    const r = startRefreshOnce(dir, () => {
      throw new Error('spawn EACCES');
    });
    expect(r).toEqual({ kind: 'failed', reason: 'spawn EACCES' });
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it('makes the cache directory on a first run', () => {
    expect(startRefreshOnce(join(dir, 'new', 'cache'), () => 7).kind).toBe('started');
  });
});

/**
 * Twenty processes, released at the same instant, each trying to start the refresh: the launch
 * appends a line to a marker file and starts a sleeper standing for the refresh. Runs on the build.
 */
const CONTENDER = (lockModule: string, cacheDir: string, marker: string, goAtMs: number) => `
import { appendFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const { startRefreshOnce } = await import(${JSON.stringify(lockModule)});
while (Date.now() < ${goAtMs}) {}
const r = startRefreshOnce(${JSON.stringify(cacheDir)}, () => {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: 'ignore' });
  c.unref();
  appendFileSync(${JSON.stringify(marker)}, c.pid + '\\n');
  return c.pid;
});
console.log(r.kind);
`;

/** Run twenty contenders at once; what each said, and how many launched. */
async function contend(lockModule: string): Promise<{ kinds: string[]; launched: number }> {
  const marker = join(dir, 'launched');
  const goAtMs = Date.now() + 1500;
  const script = CONTENDER(pathToFileURL(lockModule).href, join(dir, 'cache'), marker, goAtMs);
  const kinds = await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        new Promise<string>((resolve) => {
          const c = spawn(process.execPath, ['--input-type=module', '-e', script], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          c.stdout.on('data', (d) => {
            out += d;
          });
          c.on('close', () => resolve(out.trim()));
        }),
    ),
  );
  const sleepers = readFileSync(marker, 'utf8').trim().split('\n').map(Number);
  // The sleepers stand for refreshes that outlive every contender, however slowly one starts.
  for (const pid of sleepers) process.kill(pid);
  return { kinds, launched: sleepers.length };
}

describe('twenty status lines at once', () => {
  const lockModule = join(REPO, 'dist', 'statusline', 'refresh-lock.js');

  it.skipIf(!existsSync(lockModule))(
    `start at most one refresh between them${existsSync(lockModule) ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
    async () => {
      const { kinds, launched } = await contend(lockModule);
      expect(launched).toBe(1);
      expect(kinds.filter((k) => k === 'started')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'running')).toHaveLength(19);
    },
  );

  it.skipIf(!existsSync(lockModule))(
    `start one refresh between them when they all find a dead one${existsSync(lockModule) ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
    async () => {
      mkdirSync(join(dir, 'cache'));
      writeFileSync(
        lockPath(join(dir, 'cache')),
        JSON.stringify({ pid: deadPid(), token: 't', atMs: Date.now() }),
      );
      const { kinds, launched } = await contend(lockModule);
      expect(launched).toBe(1);
      expect(kinds.filter((k) => k === 'started')).toHaveLength(1);
      expect(readdirSync(join(dir, 'cache'))).toEqual(['statusline-refresh.lock']);
    },
  );
});
