import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { TOKEN_SHAPE } from './auth.js';
import { tokenFromFile } from './token-file.js';

const ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
if (!ROOT) console.warn('not root: the "owned by another user" token-file test is skipped (it needs chown)');

describe('--token-file', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir('cctop-token-'));
  });
  afterEach(() => cleanup());

  it('a missing file is created owner-only (0600) with a new token, and read back on the next run', () => {
    const path = join(dir, 'token');
    const first = tokenFromFile(path);
    expect(first.created).toBe(true);
    expect(first.token).toMatch(TOKEN_SHAPE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${first.token}\n`);
    const second = tokenFromFile(path);
    expect(second).toEqual({ token: first.token, created: false });
  });

  it('a file others can read or write is refused, with the chmod that fixes it', () => {
    const path = join(dir, 'token');
    writeFileSync(path, `${'a'.repeat(43)}\n`, { mode: 0o600 });
    chmodSync(path, 0o644);
    expect(() => tokenFromFile(path)).toThrow(/can be read or written by others \(mode 644\); run chmod 600/);
    chmodSync(path, 0o620);
    expect(() => tokenFromFile(path)).toThrow(/read or written by others/);
  });

  it('a symlink is refused, even one pointing at a good token file', () => {
    const real = join(dir, 'real');
    writeFileSync(real, `${'a'.repeat(43)}\n`, { mode: 0o600 });
    const link = join(dir, 'link');
    symlinkSync(real, link);
    expect(() => tokenFromFile(link)).toThrow(/is a symlink/);
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere'), dangling);
    expect(() => tokenFromFile(dangling)).toThrow(/is a symlink/);
  });

  it.runIf(ROOT)(
    `a file owned by another user is refused${ROOT ? '' : ' (skipped: not running as root, and only root can make a file another user owns; run the tests as root, as CI does)'}`,
    () => {
      const path = join(dir, 'token');
      writeFileSync(path, `${'a'.repeat(43)}\n`, { mode: 0o600 });
      chownSync(path, 12345, 12345);
      expect(() => tokenFromFile(path)).toThrow(/belongs to user 12345/);
    },
  );

  it('a directory, or a file that does not hold a token, is refused', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub, { mode: 0o700 });
    expect(() => tokenFromFile(sub)).toThrow(/not a plain file/);
    const junk = join(dir, 'junk');
    writeFileSync(junk, 'hunter2\n', { mode: 0o600 });
    expect(() => tokenFromFile(junk)).toThrow(/does not hold a token/);
  });
});
