/**
 * When the index cannot be used as it is: telling damage (which is healed by rebuilding) from a
 * lock, a full disk or a folder cctop may not write (which are bypassed for the run), moving a
 * damaged index aside for a bug report without letting the copies fill the disk, and the one-line
 * notices that say what happened and what to do.
 *
 * Not here: deciding to rebuild (`store.ts`) or asking again (`session-index.ts`).
 */
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeFsError } from '../model/problems.js';

/**
 * Damaged indexes kept beside the new one (`index.sqlite.corrupt-<time>`, each with its `-wal`): the
 * newest is what a bug report needs, the one before says whether the damage came back. Each is as
 * large as the index (tens of megabytes on a large history), so keeping every one would let a failing
 * disk fill the cache a copy at a time.
 */
export const MAX_DAMAGED_KEPT = 2;

/** What a damaged index is renamed to: the time makes the names sort oldest first. */
export const DAMAGED_SUFFIX = '.corrupt-';

/** SQLite's own files beside a database, moved and removed with it. */
export const COMPANIONS = ['-wal', '-shm'] as const;

/**
 * Whether `err` is SQLite saying the file is not a sound database (a damaged page, a header that is
 * not SQLite's): the index is then rebuilt. A lock held too long, a full disk or a folder it may not
 * write are not damage: the index is then bypassed for this run and left as it is.
 */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB'))
    return true;
  const message = (err as Error | null)?.message;
  return typeof message === 'string' && /malformed|not a database/i.test(message);
}

export class NewerIndex extends Error {
  constructor(readonly version: number) {
    super(`schema ${version}`);
  }
}

/** The notice for a cache directory that cannot hold the index. */
export function unusableDir(dir: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EEXIST'
      ? 'it is a file, not a directory'
      : code === 'ENOTDIR'
        ? 'a part of its path is a file'
        : describeFsError(err);
  return `the cache directory ${dir} cannot be used (${why}); reading without the index (set CCTOP_CACHE_DIR to a directory cctop can write)`;
}

/** The notice for an index that cannot be opened for a reason other than damage. */
export function cannotUse(path: string, err: unknown): string {
  return `the index at ${path} cannot be used (${describeFsError(err)}); reading without it`;
}

/**
 * Rename the damaged index at `path` (and its `-wal` and `-shm`) to `<path>.corrupt-<time>`, keeping
 * the newest `MAX_DAMAGED_KEPT`; says what it did. Leaves `path` alone when it is no longer the file
 * found damaged (`ino`): another cctop moved it first. Throws when it can be neither moved nor removed.
 */
export function setAside(path: string, ino: number | null): string {
  const now = statSync(path, { throwIfNoEntry: false });
  if (now === undefined || (ino !== null && now.ino !== ino)) return 'another cctop had already replaced it';
  const aside = `${path}${DAMAGED_SUFFIX}${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(path, aside);
  } catch {
    // A folder that lets us write but not rename (rare): the damaged index can only be removed.
    for (const c of ['', ...COMPANIONS]) rmSync(path + c, { force: true });
    return 'removed it';
  }
  for (const c of COMPANIONS) {
    try {
      renameSync(path + c, aside + c);
    } catch {
      rmSync(path + c, { force: true });
    }
  }
  pruneDamaged(path);
  return `moved it to ${basename(aside)}`;
}

/** Remove all but the newest `MAX_DAMAGED_KEPT` damaged copies of the index at `path`. */
function pruneDamaged(path: string): void {
  const dir = dirname(path);
  const prefix = basename(path) + DAMAGED_SUFFIX;
  try {
    const copies = readdirSync(dir)
      .filter((n) => n.startsWith(prefix) && !COMPANIONS.some((c) => n.endsWith(c)))
      .sort();
    for (const old of copies.slice(0, Math.max(0, copies.length - MAX_DAMAGED_KEPT)))
      for (const c of ['', ...COMPANIONS]) rmSync(join(dir, old + c), { force: true });
  } catch {
    // Only disk space suffers: the next rebuild tries again.
  }
}
