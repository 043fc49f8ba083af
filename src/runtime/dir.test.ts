import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUNTIME_DIR_MODE, runtimeDir, runtimeDirPath } from './dir.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'cctop-runtime-dir-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const mode = (path: string): number => lstatSync(path).mode & 0o777;
const uid = typeof process.getuid === 'function' ? process.getuid() : 0;

describe('the runtime directory', () => {
  it('is cctop under the login session’s runtime directory, else a per-user one in the temp directory', () => {
    expect(runtimeDirPath({ XDG_RUNTIME_DIR: '/run/user/1000', TMPDIR: '/t' })).toBe('/run/user/1000/cctop');
    expect(runtimeDirPath({ TMPDIR: '/t' })).toBe(`/t/cctop-${uid}`);
    expect(runtimeDirPath({ CCTOP_RUNTIME_DIR: '/x', XDG_RUNTIME_DIR: '/run/user/1000' })).toBe('/x');
  });

  it('is made when missing, open to its owner alone', () => {
    const r = runtimeDir({ XDG_RUNTIME_DIR: base });
    expect(r).toEqual({ kind: 'ok', path: join(base, 'cctop') });
    expect(mode(join(base, 'cctop'))).toBe(RUNTIME_DIR_MODE);
  });

  it('one of ours that others may enter is tightened', () => {
    const dir = join(base, 'cctop');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(runtimeDir({ XDG_RUNTIME_DIR: base }).kind).toBe('ok');
    expect(mode(dir)).toBe(RUNTIME_DIR_MODE);
  });

  it('a symbolic link in its place is refused, even to a directory of ours', () => {
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(base, 'cctop'));
    const r = runtimeDir({ XDG_RUNTIME_DIR: base });
    expect(r).toMatchObject({ kind: 'refused', why: 'it is not a directory' });
  });

  it('a file in its place is refused', () => {
    writeFileSync(join(base, 'cctop'), '');
    expect(runtimeDir({ XDG_RUNTIME_DIR: base }).kind).toBe('refused');
  });

  it.runIf(uid === 0)(
    `a directory that another user owns is refused, and left as it was${uid === 0 ? '' : ' (skipped: not running as root, and only root can make a file another user owns; run the tests as root, as CI does)'}`,
    () => {
      const dir = join(base, 'cctop');
      mkdirSync(dir, { mode: 0o755 });
      chownSync(dir, 65534, 65534);
      const r = runtimeDir({ XDG_RUNTIME_DIR: base });
      expect(r).toMatchObject({ kind: 'refused', why: 'it belongs to user 65534, not to you' });
      expect(mode(dir)).toBe(0o755);
    },
  );
});
