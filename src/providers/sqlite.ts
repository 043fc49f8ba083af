/**
 * Reading a harness's own SQLite database (OpenCode, Devin, Windsurf) without getting in its way.
 *
 * The agent is usually running while we read: connections are opened read-only (`query_only` on top,
 * so not even a stray pragma can write), wait only briefly on a lock, and run
 * short statements whose rows are collected at once, so no read transaction is left open to hold
 * back the agent's WAL checkpoints. One connection per database per thread is kept and reused:
 * opening a large database per session costs far more than the query (OpenCode's 555 MB database
 * spent seconds of kernel time in per-session opens).
 *
 * ponytail: the database itself is never written, but SQLite's read-only connection to a WAL
 * database needs the `-wal` and `-shm` files beside it and creates them (empty) when the agent is
 * not running. That is what any SQLite reader does and what the agent recreates itself when it
 * opens the database; they cannot be avoided here, because the bundled better-sqlite3 opens no URI
 * filenames (so no `immutable=1`), and removing them afterwards could race an agent starting up.
 *
 * A database holds many sessions, and the index keys everything by path. A session read from a
 * database is named `<database>#<member>` (see `memberPath`): the path before `#` is the file, the
 * member names the rows. Such a path cannot be opened or stat-ed; its `SourceFile` size, mtime and
 * inode are a fingerprint of those rows that the provider computes at discovery and returns unchanged
 * from `parse`, so the index re-reads a session exactly when its rows changed.
 *
 * Not here: any query. Each provider knows its own schema (and that the schema moves between
 * releases), and asks for columns defensively.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

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

interface Held {
  db: Database;
  ino: number;
}

const open = new Map<string, Held>();

/** A read-only connection to `path`, reused while the file is the same one (same inode). */
export function readOnly(path: string): Database {
  const ino = statSync(path).ino;
  const held = open.get(path);
  if (held !== undefined) {
    open.delete(path);
    if (held.ino === ino && held.db.open) {
      open.set(path, held); // most recently used last
      return held.db;
    }
    held.db.close();
  }
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = guarded(new Sqlite(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }));
  open.set(path, { db, ino });
  while (open.size > MAX_OPEN_DATABASES) {
    const [oldest, h] = open.entries().next().value as [string, Held];
    open.delete(oldest);
    h.db.close();
  }
  return db;
}

function guarded(db: Database): Database {
  try {
    db.pragma('query_only = ON');
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

/** The columns a table has, or an empty set when it does not exist (schemas move between releases). */
export function columnsOf(db: Database, table: string): Set<string> {
  try {
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
