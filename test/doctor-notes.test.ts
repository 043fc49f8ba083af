/**
 * `cctop doctor` on a session that was read but whose `cwd` is too long for the file system: the
 * lookup of its project's settings fails, which is a note on that session (its context window fell
 * back to the model's), not a file cctop could not read, so doctor exits 0.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

describe('cctop doctor and a cwd too long for the file system', () => {
  it('lists the session as a note, not under "Could not read", and exits 0', () => {
    // Each name is under the 255-byte limit; together they pass Linux's 4096-byte PATH_MAX.
    const cwd = `/w/${Array.from({ length: 25 }, () => 'a'.repeat(200)).join('/')}`;
    home.write(
      home.claudeFile('-w', 'long.jsonl'),
      claudeResponse('long', 2, '2026-11-29T10:00:00Z').replace('"cwd":"/w"', `"cwd":${JSON.stringify(cwd)}`),
    );
    const r = spawnSync(process.execPath, [CLI, 'doctor', '--no-cache'], {
      env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.stdout).not.toContain('Could not read');
    expect(r.stdout).toContain(
      'Notes on sessions that were read (a lookup beside them failed; the figure fell back) (1)\n    ~/.claude/projects/-w/long.jsonl: looking up its context window: ENAMETOOLONG: a name in the path is longer than the file system allows\n',
    );
    expect(r.status).toBe(0);
  });
});
