/**
 * Other users on the same machine: everything cctop keeps that holds transcript text or state (the
 * cache directory, the index, the search index with every word of every conversation) is the user's
 * alone under the usual umask (022), a cache found wider is narrowed and `doctor` says so, and a
 * second local user cannot read it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');

/** Longer than any of these runs takes: a hang shows as a failure. */
const HANG_MS = 20_000;

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
  home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
});
afterEach(() => home.cleanup());

/** cctop run under umask 022, as in a usual login shell. */
function cctop(args: string[]) {
  const r = spawnSync('sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const modeOf = (path: string) => statSync(path).mode & 0o777;
const cache = () => home.env.CCTOP_CACHE_DIR!;

/** The files the index and the search index leave, with SQLite's journal files when they are there. */
function kept(): string[] {
  return ['index.sqlite', 'search.sqlite']
    .flatMap((f) => [f, `${f}-wal`, `${f}-shm`])
    .map((f) => join(cache(), f))
    .filter((p) => existsSync(p));
}

describe('what cctop keeps is private to the user', () => {
  it('under umask 022, the cache directory is 0700 and the index and search index 0600', () => {
    expect(cctop(['--list']).code).toBe(0);
    expect(cctop(['search', 'anything']).code).not.toBeNull();
    expect(modeOf(cache())).toBe(0o700);
    const files = kept();
    expect(files.map((f) => f.slice(cache().length + 1))).toEqual(
      expect.arrayContaining(['index.sqlite', 'search.sqlite']),
    );
    for (const f of files) expect({ f, mode: modeOf(f).toString(8) }).toEqual({ f, mode: '600' });
  });

  it('a cache left readable by others is narrowed when opened, and doctor says so', () => {
    expect(cctop(['--list']).code).toBe(0);
    chmodSync(cache(), 0o755);
    chmodSync(join(cache(), 'index.sqlite'), 0o644);
    const r = cctop(['doctor']);
    expect(r.out).toContain(
      'Cache  ~/.cache/cctop private (mode 700; was 755, narrowed now)\n  ~/.cache/cctop/index.sqlite private (mode 600; was 644, narrowed now)\n',
    );
    expect(modeOf(cache())).toBe(0o700);
    expect(modeOf(join(cache(), 'index.sqlite'))).toBe(0o600);
  });
});

const ROOT = process.geteuid?.() === 0;
/** The second local user the test makes (and keeps: making one is slow, and it owns nothing). */
const OTHER = 'cctop-other';

function otherUser(): { uid: number; gid: number } {
  if (spawnSync('id', ['-u', OTHER]).status !== 0) {
    const made = spawnSync(
      'useradd',
      ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', OTHER],
      {
        encoding: 'utf8',
      },
    );
    if (made.status !== 0) throw new Error(`useradd ${OTHER}: ${made.stderr}`);
  }
  const id = (flag: string) => Number(spawnSync('id', [flag, OTHER], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

describe.skipIf(!ROOT)(
  `a second local user${ROOT ? '' : ' (skipped: making a second user needs root; run as root, e.g. sudo npx vitest run test/other-users.test.ts)'}`,
  () => {
    it('cannot list the cache or read the index or the search index', () => {
      const other = otherUser();
      // A home others may enter, as most are: only cctop's own modes stand between them and the cache.
      chmodSync(home.dir, 0o755);
      mkdirSync(join(home.dir, '.cache'), { recursive: true, mode: 0o755 });
      expect(cctop(['--list']).code).toBe(0);
      expect(cctop(['search', 'anything']).code).not.toBeNull();
      const as = (cmd: string, ...args: string[]) =>
        spawnSync(cmd, args, { uid: other.uid, gid: other.gid, encoding: 'utf8', timeout: HANG_MS });
      expect(as('ls', cache()).stderr).toContain('Permission denied');
      for (const f of kept()) expect({ f, status: as('cat', f).status }).toEqual({ f, status: 1 });
    });
  },
);
