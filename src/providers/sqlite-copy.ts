/**
 * The private copies of a stopped agent's WAL database, in cctop's cache, which `sqlite-place.ts`
 * sends a read to when opening the database in place would create its `-wal` and `-shm` beside it;
 * and the bound on what the copies add up to on disk.
 *
 * This is the one part of reading a harness's database that writes, and it writes only in cctop's own
 * cache folder: a copy under a temporary name, made self-contained there, then renamed.
 *
 * Not here: deciding whether a copy is needed (`locate`), nor opening it (`sqlite.ts`).
 */
import {
  constants,
  copyFileSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { later } from '../later.js';
import { cacheDir } from '../paths.js';
import { sqliteModule } from '../sqlite-module.js';
import { locate, type Place } from './sqlite-place.js';

/**
 * What the private copies in cctop's cache may add up to. A copy is as large as the agent's
 * database (OpenCode's reached 555 MB on one machine), so this holds the few databases a user has,
 * each a few times over, while keeping a database that only grows from doubling on disk without end.
 * Past it the least recently opened copies of other databases are removed first; a database whose
 * copy alone would pass it is not read while its agent is stopped (the problem says so), and is read
 * in place again once the agent runs.
 */
export const MAX_COPY_BYTES = 2 * 1024 ** 3;

/**
 * A temporary copy older than this was left by a cctop that died while copying; younger, another
 * cctop may still be writing it. An hour is far longer than copying the largest database allowed.
 */
export const ABANDONED_COPY_MS = 60 * 60_000;

/** The folder of the private copies, inside cctop's cache. */
const COPIES_DIR = 'sqlite-copies';

/** A published copy: `<digest of the source path>-<digest of its stamp>.db`. */
const COPY_NAME = /^([0-9a-f]{16})-[0-9a-f]{16}\.db$/;

/** A copy being taken (and SQLite's companions of it while it is made self-contained). */
const TEMP_NAME = /\.tmp(-wal|-shm|-journal)?$/;

const crypto = later<typeof import('node:crypto')>('node:crypto');
const digest = (text: string): string =>
  crypto().createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * The private copy of a stopped agent's WAL database, taken if it is not there yet, or null when the
 * database changed while it was copied. The copy is made self-contained (its WAL checkpointed,
 * switched to a rollback journal) under a temporary name and then renamed, so a concurrent cctop
 * finds a whole copy or none, and a read-only connection to it creates nothing even in our folder.
 * Copies are named by the source's path and stamp (device, inode, size, mtime of the database and of
 * its `-wal`): an unchanged database is copied once, by the first cctop to need it, and reused.
 */
export function privateCopy(place: Extract<Place, { kind: 'copy' }>): string | null {
  const dir = join(cacheDir(process.env), COPIES_DIR);
  const name = `${digest(place.file)}-${digest(place.stamp)}.db`;
  const copy = join(dir, name);
  try {
    const now = new Date();
    utimesSync(copy, now, now); // last opened, for `makeRoom`
    return copy;
  } catch {
    // not copied yet (or just removed to make room by another cctop)
  }
  if (place.bytes > MAX_COPY_BYTES) {
    throw new Error(
      `its agent is not running and it is ${megabytes(place.bytes)} MB, more than the ${megabytes(MAX_COPY_BYTES)} MB cctop copies to read it without touching the agent's folder; it is read again once the agent runs`,
    );
  }
  const temp = join(dir, `${name}.${process.pid}-${crypto().randomBytes(6).toString('hex')}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    makeRoom(dir, name, place.bytes);
    // A clone where the filesystem has them (btrfs, XFS, APFS), else a plain copy.
    const flags = constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE;
    copyFileSync(place.file, temp, flags);
    if (place.withWal) copyFileSync(`${place.file}-wal`, `${temp}-wal`, flags);
    if (locate(place.file).stamp !== place.stamp) return null;
    selfContained(temp);
    renameSync(temp, copy);
    return copy;
  } catch (err) {
    // Said here, or a full disk or an unwritable cache would read as the agent's folder refusing us.
    if (!cacheFault(err, dir)) throw err;
    throw new Error(
      `its agent is not running, and cctop could not copy it into ${dir} to read it without touching the agent's folder (${(err as Error).message}); free space there, or set CCTOP_CACHE_DIR to a folder cctop can write`,
    );
  } finally {
    for (const f of [temp, `${temp}-wal`, `${temp}-shm`, `${temp}-journal`]) rmSync(f, { force: true });
  }
}

/** Whether a failure while copying is the cache's (full, read-only, not ours to write) rather than the source's. */
function cacheFault(err: unknown, dir: string): boolean {
  const e = err as NodeJS.ErrnoException & { dest?: string };
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 'EROFS' || e.code === 'SQLITE_FULL')
    return true;
  // `copyfile` names both files without saying which failed; anything else names the one it touched.
  return e.dest === undefined && typeof e.path === 'string' && e.path.startsWith(dir);
}

const megabytes = (bytes: number): number => Math.ceil(bytes / 1024 ** 2);

/**
 * Fold a copy's `-wal` into it and switch it to a rollback journal, so that opening it read-only
 * needs no companion files. This writes only our own temporary copy.
 */
function selfContained(temp: string): void {
  const { Database: Sqlite, options } = sqliteModule();
  const db = new Sqlite(temp, { fileMustExist: true, ...options });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** A file in the copies folder. */
export interface CopyEntry {
  name: string;
  bytes: number;
  mtimeMs: number;
}

/**
 * What to remove from the copies folder before a copy of `incoming` bytes named `keep` is taken:
 * decided apart from the folder, so the bound can be tested without gigabytes.
 */
export function toRemove(
  entries: CopyEntry[],
  keep: string,
  incoming: number,
  nowMs: number,
  limit = MAX_COPY_BYTES,
): string[] {
  const source = COPY_NAME.exec(keep)?.[1];
  const gone: string[] = [];
  const kept: CopyEntry[] = [];
  let total = incoming;
  for (const e of entries) {
    const published = COPY_NAME.exec(e.name);
    if (TEMP_NAME.test(e.name)) {
      if (nowMs - e.mtimeMs > ABANDONED_COPY_MS) gone.push(e.name);
      else total += e.bytes; // another cctop's copy in progress: it will take this room
    } else if (published !== null && e.name !== keep) {
      // An older version of the same database is never opened again.
      if (published[1] === source) gone.push(e.name);
      else {
        kept.push(e);
        total += e.bytes;
      }
    }
    // Anything else in the folder is not ours to remove.
  }
  kept.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const e of kept) {
    if (total <= limit) break;
    gone.push(e.name);
    total -= e.bytes;
  }
  return gone;
}

/** Remove the stale copies of this source, abandoned temporaries, and the oldest copies past the bound. */
function makeRoom(dir: string, keep: string, incoming: number): void {
  const entries: CopyEntry[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isFile()) continue;
    const st = statSync(join(dir, e.name), { throwIfNoEntry: false });
    if (st) entries.push({ name: e.name, bytes: st.size, mtimeMs: st.mtimeMs });
  }
  for (const name of toRemove(entries, keep, incoming, Date.now())) {
    try {
      // A connection to a removed copy keeps reading it until closed (where the system allows removal).
      rmSync(join(dir, name), { force: true });
    } catch {
      // in use where removing an open file is refused (Windows): tried again at the next copy
    }
  }
}
