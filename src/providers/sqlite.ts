/**
 * Reading a harness's own SQLite database (OpenCode, Devin, Windsurf) without getting in its way, and
 * without creating, removing or writing any file in its folder (but the running agent's shared
 * memory, see `sqlite-place.ts`).
 *
 * The agent is usually running while we read: connections are opened read-only (`query_only` on top,
 * so not even a stray pragma can write), wait only briefly on a lock, and run
 * short statements whose rows are collected at once, so no read transaction is left open to hold
 * back the agent's WAL checkpoints. One connection per database per thread is kept and reused:
 * opening a large database per session costs far more than the query (OpenCode's 555 MB database
 * spent seconds of kernel time in per-session opens).
 *
 * This module holds the connections and is the public face of the rest, re-exported so a provider
 * imports one module: where a connection reads from (`sqlite-place.ts`) and the private copy of a
 * stopped agent's database (`sqlite-copy.ts`); how a session inside a database is named
 * (`sqlite-members.ts`); and, since a database is as untrusted as a transcript, reading only what
 * is a table (`sqlite-schema.ts`) within a time budget (`sqlite-budget.ts`).
 *
 * Not here: any query. Each provider knows its own schema (and that the schema moves between
 * releases), and asks for columns defensively.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { sqliteModule } from '../sqlite-module.js';
import { addBudgetCheck } from './sqlite-budget.js';
import { privateCopy } from './sqlite-copy.js';
import { locate } from './sqlite-place.js';

export { DB_READ_BUDGET_MS, IN_BUDGET, withinBudget } from './sqlite-budget.js';
export { ABANDONED_COPY_MS, type CopyEntry, MAX_COPY_BYTES, toRemove } from './sqlite-copy.js';
export { MAX_MEMBER_CHARS, memberPath, splitMember, validMember } from './sqlite-members.js';
export { columnsOf, tablesOnly } from './sqlite-schema.js';

export type Database = BetterSqlite3.Database;

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

/**
 * Copies of one database tried before giving up: a copy is thrown away when the database changed
 * while it was taken (the agent started, or wrote), and the next try usually finds the agent running
 * and reads in place.
 */
export const MAX_COPY_ATTEMPTS = 3;

interface Held {
  db: Database;
  stamp: string;
}

const open = new Map<string, Held>();

/**
 * A read-only connection to the database at `path`, reused while it reads the same thing: the same
 * file in place whose size and times stand still (a running agent's appends to its `-wal` do not move
 * them), or the copy of the same version of it. A file rewritten since is opened anew, as SQLite
 * would go on answering from the pages it cached when another program rewrote it (`stampOf` in
 * `sqlite-place.ts` says why).
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
  const { Database: Sqlite, options } = sqliteModule();
  const db = guarded(
    new Sqlite(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS, ...options }),
  );
  open.set(path, { db, stamp });
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
    addBudgetCheck(db);
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
