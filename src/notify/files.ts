/**
 * The few file operations the notifier's runtime files need (`lock.ts`, `spool.ts`, `status.ts`):
 * a bounded read, a write that readers never see half done, and a quiet removal.
 *
 * The files live in the runtime directory, which is this user's alone (`runtime/dir.ts`); they are
 * still read within a bound and checked, so a damaged one costs a notice at most, never a crash.
 */
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/** The text of `path`, or null when it is missing, unreadable, or longer than `max` bytes. */
export function readSmall(path: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    return n > max ? null : buf.toString('utf8', 0, n);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A name no other writer uses at the same moment: this process, and a random part for this one. */
export const scratchName = (path: string): string =>
  `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;

/** Replace `path` whole: written beside it, then renamed over it. Throws what the disk says. */
export function writeWhole(path: string, text: string): void {
  const tmp = scratchName(path);
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
