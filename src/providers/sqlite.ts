/**
 * Reading a harness's own SQLite database (OpenCode, Devin, Windsurf) without getting in its way, and
 * without creating, removing or writing any file in its folder (but the running agent's shared
 * memory, below).
 *
 * The agent is usually running while we read: connections are opened read-only (`query_only` on top,
 * so not even a stray pragma can write), wait only briefly on a lock, and run
 * short statements whose rows are collected at once, so no read transaction is left open to hold
 * back the agent's WAL checkpoints. One connection per database per thread is kept and reused:
 * opening a large database per session costs far more than the query (OpenCode's 555 MB database
 * spent seconds of kernel time in per-session opens).
 *
 * Where a connection points depends on what is beside the database (see `locate`):
 * - A rollback-journal database (header bytes 18 and 19 not 2, no `-wal`) is opened in place: a
 *   read-only connection to one creates nothing.
 * - A WAL database whose `-wal` and `-shm` both exist is opened in place: the agent has it open,
 *   and a reader shares the files the agent made (taking its read mark in the `-shm`, the shared
 *   memory every concurrent reader writes), adding none.
 * - Any other WAL database (the agent is stopped, or crashed and left a `-wal`) is read from a
 *   private copy in cctop's cache (see `privateCopy`). Opened in place, SQLite would create the
 *   `-wal` and `-shm` beside it, and the bundled better-sqlite3 takes no URI filenames, so
 *   `immutable=1` is not there to stop it. The copy costs a read of the database once per change
 *   (an agent that is not running does not change it) and is a clone on filesystems that have them.
 *
 * ponytail: two narrow cases remain. An agent that exits while cctop holds a connection in place is
 * not the last connection, so it leaves its own `-wal` and `-shm` for its next start instead of
 * checkpointing and removing them. And an agent that exits in the instant between `locate` seeing
 * its `-shm` and the open that follows has them recreated by that open: checking and opening are
 * not one step, and no flag of this build makes them one.
 *
 * A database holds many sessions, and the index keys everything by path. A session read from a
 * database is named `<database>#<member>` (see `memberPath`): the path before `#` is the file, the
 * member names the rows. Such a path cannot be opened or stat-ed; its `SourceFile` size, mtime and
 * inode are a fingerprint of those rows that the provider computes at discovery and returns unchanged
 * from `parse`, so the index re-reads a session exactly when its rows changed.
 *
 * A database is as untrusted as a transcript: anyone who can write a file where an agent keeps its
 * data can put a view where a table should be, and a view can run any query, one that never ends
 * included. So a provider reads only what `tablesOnly` confirmed to be tables (`columnsOf` sees a view
 * as no table at all), and a read runs within a time budget (`withinBudget`) that SQLite itself
 * enforces: each statement that may visit many rows calls `IN_BUDGET` for each row or group, which
 * stops the statement once the budget is spent. Past it, the read is a problem, not a hang.
 *
 * ponytail: the budget is checked between rows, not inside one. Over real tables a row costs at most
 * its own bytes, but a table without the index a grouped count expects is sorted whole before its
 * first group, so a hostile database of many gigabytes can take longer than the budget; it ends.
 * A worker thread would not do better: `Worker.terminate()` cannot stop a thread inside SQLite, and
 * the process then cannot exit either (tried: better-sqlite3 12 offers neither
 * `sqlite3_progress_handler` nor `sqlite3_interrupt`).
 *
 * Not here: any query. Each provider knows its own schema (and that the schema moves between
 * releases), and asks for columns defensively.
 */
import {
  type BigIntStats,
  closeSync,
  constants,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { later } from '../later.js';
import { cacheDir } from '../paths.js';

export type Database = BetterSqlite3.Database;

const require = createRequire(import.meta.url);

/**
 * Databases kept open per thread. A user has one OpenCode and one Devin database, and Windsurf one
 * per workspace; past this the least recently used is closed, so a scan over fifty workspaces does
 * not hold fifty file handles.
 */
export const MAX_OPEN_DATABASES = 8;

/**
 * How long a read waits when the agent holds a lock. WAL readers are not blocked by writers, so
 * this only matters for a database in rollback mode being written (Windsurf's `state.vscdb`); a
 * monitor would rather skip a beat than stall.
 */
export const BUSY_TIMEOUT_MS = 500;

/** Member names (session ids, tab ids) past this length are refused rather than shortened. */
export const MAX_MEMBER_CHARS = 256;

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
 * Copies of one database tried before giving up: a copy is thrown away when the database changed
 * while it was taken (the agent started, or wrote), and the next try usually finds the agent running
 * and reads in place.
 */
export const MAX_COPY_ATTEMPTS = 3;

/**
 * A temporary copy older than this was left by a cctop that died while copying; younger, another
 * cctop may still be writing it. An hour is far longer than copying the largest database allowed.
 */
export const ABANDONED_COPY_MS = 60 * 60_000;

/**
 * How long one read of a harness's database may take: listing its sessions, or reading one session
 * or its conversation. Listing an OpenCode database of 100,000 messages and 500,000 parts took 0.06 s
 * here, and a session is a small part of that: 10 s is over a hundred times the largest read measured
 * and still short of when a person gives up on `cctop --list`, and it turns a read that would never
 * end (a view over an endless query) into a problem.
 */
export const DB_READ_BUDGET_MS = 10_000;

/**
 * The SQL that keeps a statement within the budget: true while time is left, an error once it is
 * spent. Put where SQLite evaluates it for each row or group (`WHERE`, `HAVING`) of a statement that
 * may visit many.
 */
export const IN_BUDGET = 'cctop_in_budget()';

/** When the read under way must stop (a monotonic time in ms); none outside `withinBudget`. */
let deadline = Number.POSITIVE_INFINITY;

/** Thrown by `IN_BUDGET` inside SQLite, which stops the statement and hands it back. */
class OverBudget extends Error {}

/**
 * Run `read` (which queries through `readOnly` connections) within `budgetMs`. Past it, the statement
 * under way stops and this throws an error that says so. A read inside another keeps the outer budget.
 */
export function withinBudget<T>(read: () => T, budgetMs = DB_READ_BUDGET_MS): T {
  if (deadline !== Number.POSITIVE_INFINITY) return read();
  deadline = performance.now() + budgetMs;
  try {
    return read();
  } catch (err) {
    if (err instanceof OverBudget)
      throw new Error(
        `reading it took longer than ${budgetMs / 1000} s, the budget for one read of an agent's database; it is skipped this time`,
      );
    throw err;
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
}

function inBudget(): 1 {
  if (performance.now() > deadline) throw new OverBudget('over budget');
  return 1;
}

/**
 * Refuse to read `db` unless each of `required` is a table, and each of `optional` a table or absent.
 * A view (or anything else by that name) makes the whole database a problem: it is not what the
 * agent wrote, and it could run any query.
 */
export function tablesOnly(
  db: Database,
  required: readonly string[],
  optional: readonly string[] = [],
): void {
  const kindOf = db.prepare('SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE');
  for (const name of [...required, ...optional]) {
    const kind = (kindOf.get(name) as { type: string } | undefined)?.type;
    if (kind === undefined && optional.includes(name)) continue;
    if (kind === 'table') continue;
    throw new Error(
      kind === undefined
        ? `it has no \`${name}\` table`
        : `its \`${name}\` is a ${kind}, not a table; cctop reads only the tables an agent writes`,
    );
  }
}

/** The database header up to its file format bytes: 18 (write version) and 19 (read version). */
const HEADER_BYTES = 20;

/** The folder of the private copies, inside cctop's cache. */
const COPIES_DIR = 'sqlite-copies';

/** A published copy: `<digest of the source path>-<digest of its stamp>.db`. */
const COPY_NAME = /^([0-9a-f]{16})-[0-9a-f]{16}\.db$/;

/** A copy being taken (and SQLite's companions of it while it is made self-contained). */
const TEMP_NAME = /\.tmp(-wal|-shm|-journal)?$/;

/** Where a connection to a database reads from, and the stamp that says when to open it again. */
type Place =
  | { kind: 'in-place'; file: string; stamp: string }
  | { kind: 'copy'; file: string; stamp: string; bytes: number; withWal: boolean };

interface Held {
  db: Database;
  stamp: string;
}

const open = new Map<string, Held>();

/**
 * A read-only connection to the database at `path`, reused while it reads the same thing: the same
 * file in place, or the copy of the same version of it.
 */
export function readOnly(path: string): Database {
  for (let attempt = 1; ; attempt++) {
    const place = locate(path);
    const held = open.get(path);
    if (held !== undefined) {
      open.delete(path);
      if (held.stamp === place.stamp && held.db.open) {
        open.set(path, held); // most recently used last
        return held.db;
      }
      held.db.close();
    }
    const file = place.kind === 'in-place' ? place.file : privateCopy(place);
    if (file !== null) return hold(path, place.stamp, file);
    if (attempt >= MAX_COPY_ATTEMPTS) {
      throw new Error(
        `it changed each of the ${MAX_COPY_ATTEMPTS} times cctop copied it while its agent was stopped; it is read again at the next scan`,
      );
    }
  }
}

function hold(path: string, stamp: string, file: string): Database {
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = guarded(new Sqlite(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }));
  open.set(path, { db, stamp });
  while (open.size > MAX_OPEN_DATABASES) {
    const [oldest, h] = open.entries().next().value as [string, Held];
    open.delete(oldest);
    h.db.close();
  }
  return db;
}

/**
 * Whether `path` can be opened in place without SQLite creating a file beside it. SQLite names the
 * companions after the resolved file, so a database reached through a symbolic link is judged, and
 * copied, where it really is.
 */
function locate(path: string): Place {
  const file = realpathSync(path);
  const st = statSync(file, { bigint: true });
  const wal = statSync(`${file}-wal`, { bigint: true, throwIfNoEntry: false }) ?? null;
  const shm = statSync(`${file}-shm`, { bigint: true, throwIfNoEntry: false }) ?? null;
  const inPlace: Place = { kind: 'in-place', file, stamp: `in-place:${st.dev}:${st.ino}` };
  // The agent has it open: both companions are there to share.
  if (wal !== null && shm !== null) return inPlace;
  // A `-wal` is opened (and its `-shm` created) whatever the header says; without one, a
  // rollback-journal database is read through the database file alone.
  if (wal === null && !walHeader(file)) return inPlace;
  return {
    kind: 'copy',
    file,
    stamp: `copy:${file}:${stampOf(st)}:${wal === null ? '-' : stampOf(wal)}`,
    bytes: Number(st.size) + Number(wal?.size ?? 0n),
    withWal: wal !== null,
  };
}

const stampOf = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;

/**
 * Whether the header says WAL. SQLite opens a WAL on a read version (byte 19) of 2; a write version
 * (byte 18) of 2 is counted too, since copying is always safe and guessing wrong in place is not. A
 * file too short to have a header is not yet a database, and reading it creates nothing.
 */
function walHeader(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) < HEADER_BYTES) return false;
    return head[18] === 2 || head[19] === 2;
  } finally {
    closeSync(fd);
  }
}

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
function privateCopy(place: Extract<Place, { kind: 'copy' }>): string | null {
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
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Sqlite(temp, { fileMustExist: true });
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

function guarded(db: Database): Database {
  try {
    db.pragma('query_only = ON');
    db.function('cctop_in_budget', { deterministic: false, directOnly: true }, inBudget);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Close every connection this thread holds (tests; a long-lived process never needs to). */
export function closeAll(): void {
  for (const h of open.values()) h.db.close();
  open.clear();
}

/**
 * The columns a table has, or an empty set when it does not exist (schemas move between releases). A
 * view is not a table: its columns are not listed, so a caller asking before it reads treats it as
 * absent.
 */
export function columnsOf(db: Database, table: string): Set<string> {
  try {
    const kind = db.prepare('SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE').get(table) as
      | { type: string }
      | undefined;
    if (kind?.type !== 'table') return new Set();
    const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[];
    return new Set(rows.map((r) => r.name));
  } catch {
    return new Set();
  }
}

const SEPARATOR = '#';

/** The path of one member (a session, a chat tab) of a database. */
export const memberPath = (database: string, member: string): string => `${database}${SEPARATOR}${member}`;

/** A member id fit to name: bounded, one line, no separator. */
export const validMember = (member: string): boolean =>
  member.length > 0 &&
  member.length <= MAX_MEMBER_CHARS &&
  !member.includes(SEPARATOR) &&
  !/[\u0000-\u001f]/.test(member);

/** Split a member path back into the database file and the member, or null for a plain file path. */
export function splitMember(path: string): { database: string; member: string } | null {
  const at = path.lastIndexOf(SEPARATOR);
  if (at <= 0) return null;
  const member = path.slice(at + 1);
  if (!validMember(member) || member.includes('/')) return null;
  return { database: path.slice(0, at), member };
}
