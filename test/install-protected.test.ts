/**
 * Files the user protected, as `hooks`, `mcp` and `statusline` install and remove meet them: a
 * read-only settings file, a read-only settings directory, a file of another user's. cctop refuses
 * with the reason and the command that lets it, changes nothing (not the text, the mode or the
 * owner), prints no stack trace, and whenever an install worked, the remove works too.
 *
 * These run as root in the project's CI, where every write would succeed: what is checked is that
 * cctop asks the mode bits and the owner rather than trying.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');

/** Longer than any of these runs takes: a hang shows as a failure. */
const HANG_MS = 20_000;

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => {
  // The read-only directory would keep the cleanup from deleting what is in it.
  chmodSync(join(home.dir, '.claude'), 0o755);
  home.cleanup();
});

function cctop(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const SETTINGS = '{\n  "model": "opus"\n}\n';
const ROOT = process.geteuid?.() === 0;
/** nogroup's gid on Debian: a group root is not in. */
const NOBODY_GROUP = 65534;
const settingsPath = () => join(home.dir, '.claude', 'settings.json');

function settings(mode: number): string {
  mkdirSync(join(home.dir, '.claude'), { recursive: true });
  const path = settingsPath();
  writeFileSync(path, SETTINGS);
  chmodSync(path, mode);
  return path;
}

/** What a file is, as far as a user can tell: its text, mode and owner. */
const state = (path: string) => {
  const st = statSync(path);
  return { text: readFileSync(path, 'utf8'), mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
};

/** A Node stack trace's frame lines. */
const STACK = /^\s+at /m;

const INSTALLS = [
  ['hooks', 'install', '--agent', 'claude'],
  ['statusline', 'install'],
] as const;

describe('a read-only settings file', () => {
  for (const args of INSTALLS)
    it(`cctop ${args.slice(0, 2).join(' ')} refuses it with the reason and the fix, and changes nothing`, () => {
      const path = settings(0o444);
      const before = state(path);
      const r = cctop([...args]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        `${path} is read-only (mode 444), so nothing was changed. To let cctop change it: chmod u+w ${path}, then run the same cctop command again`,
      );
      expect(r.err).not.toMatch(STACK);
      expect(state(path)).toEqual(before);
      expect(existsSync(`${path}.cctop.bak`)).toBe(false);
    });

  it('cctop mcp install refuses a read-only ~/.claude.json the same way', () => {
    mkdirSync(join(home.dir, '.claude'), { recursive: true });
    const path = join(home.dir, '.claude.json');
    writeFileSync(path, SETTINGS);
    chmodSync(path, 0o444);
    const r = cctop(['mcp', 'install', '--agent', 'claude']);
    expect(r.out + r.err).toContain(`${path} is read-only (mode 444), so nothing was changed`);
    expect(r.err).not.toMatch(STACK);
    expect(state(path)).toMatchObject({ text: SETTINGS, mode: 0o444 });
  });

  it('hooks remove after the file was made read-only refuses cleanly, and works once it is writable', () => {
    const path = settings(0o644);
    expect(cctop(['hooks', 'install', '--agent', 'claude']).code).toBe(0);
    chmodSync(path, 0o444);
    const refused = cctop(['hooks', 'remove', '--agent', 'claude']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${path} is read-only (mode 444), so nothing was changed`);
    expect(refused.err).not.toMatch(STACK);
    chmodSync(path, 0o644);
    const removed = cctop(['hooks', 'remove', '--agent', 'claude']);
    expect(removed.code, removed.err).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(SETTINGS);
  });

  it('install and remove keep the file’s own mode, and the backup is private', () => {
    const path = settings(0o640);
    expect(cctop(['hooks', 'install', '--agent', 'claude']).code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(statSync(`${path}.cctop.bak`).mode & 0o777).toBe(0o600);
    // Twice: a second backup replaces the first whatever its mode.
    chmodSync(`${path}.cctop.bak`, 0o444);
    expect(cctop(['hooks', 'remove', '--agent', 'claude']).code).toBe(0);
    expect(state(path)).toMatchObject({ text: SETTINGS, mode: 0o640 });
  });

  it.skipIf(!ROOT)(
    `install keeps the file’s group${ROOT ? '' : ' (skipped: needs root to give a file a group the user is not in; run as root)'}`,
    () => {
      const path = settings(0o640);
      chownSync(path, process.geteuid!(), NOBODY_GROUP);
      expect(cctop(['hooks', 'install', '--agent', 'claude']).code).toBe(0);
      expect(state(path)).toMatchObject({ mode: 0o640, uid: process.geteuid!(), gid: NOBODY_GROUP });
    },
  );
});

describe('a read-only settings directory', () => {
  for (const args of INSTALLS)
    it(`cctop ${args.slice(0, 2).join(' ')} says nothing was changed, with no stack trace`, () => {
      const path = settings(0o644);
      const dir = join(home.dir, '.claude');
      chmodSync(dir, 0o555);
      const r = cctop([...args]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        `${dir} is read-only (mode 555), so nothing was changed. To let cctop write there: chmod u+w ${dir}, then run the same cctop command again`,
      );
      expect(r.err).not.toMatch(STACK);
      expect(readFileSync(path, 'utf8')).toBe(SETTINGS);
    });
});

/** nobody's uid on Debian and most Linux systems. */
const NOBODY = 65534;

describe.skipIf(!ROOT)(
  `a settings file of another user's${ROOT ? '' : ' (skipped: needs root to give a file to another user; run the tests as root, e.g. sudo npx vitest run test/install-protected.test.ts)'}`,
  () => {
    for (const args of INSTALLS)
      it(`cctop ${args.slice(0, 2).join(' ')} refuses it, and its owner stays`, () => {
        const path = settings(0o644);
        chownSync(path, NOBODY, NOBODY);
        const before = state(path);
        const r = cctop([...args]);
        expect(r.code).toBe(1);
        expect(r.err).toContain(
          `${path} belongs to user ${NOBODY}, not to you (user 0); cctop changes only your own files, so nothing was changed. Run the same cctop command again as that user`,
        );
        expect(state(path)).toEqual(before);
      });
  },
);
