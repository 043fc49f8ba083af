/**
 * The search index's tables: the shape `search.sqlite` is made in, the settings it is opened with,
 * and how a transcript's row in `files` reads back as its state. It exists apart from `store.ts` so
 * that what the tables are (and when they are made again) reads in one place, and the store keeps
 * only what is written into them and asked of them.
 *
 * Not here: opening the file or setting a damaged one aside (`store.ts`), and any statement that
 * reads or writes rows beyond making the tables.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ProviderId } from '../model/facts.js';
import type { FileState } from './rows.js';

/**
 * Bumped when the tables change shape, or when the readers put different rows in them: an older
 * index is dropped and every transcript read again. 2: text a harness injected is no longer the
 * person's (`--role user` found Codex's AGENTS.md and Claude Code's command expansions). 3: every
 * turn's text is stored redacted (`secrets/redact.ts`), so an index written before kept secrets.
 */
export const SEARCH_SCHEMA = 3;

/** How long a writer waits for another cctop's transaction. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * The database's page size, SQLite's largest: FTS5 keeps a word's list of rows in pages of this
 * size, and a common word's list read through 4 KiB pages took twice as long (measured on the bench
 * history in a fresh process, where no page is cached yet). The index is also a tenth smaller.
 */
const PAGE_BYTES = 65_536;

/** What SQLite reads through a memory map (address space, not memory: the pages are the system's cache). */
const MAP_BYTES = 256 * 1024 * 1024;

const SCHEMA = `DROP TABLE IF EXISTS files;
  DROP TABLE IF EXISTS watched;
  DROP TABLE IF EXISTS turns;
  DROP TABLE IF EXISTS secrets;
  CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, provider TEXT NOT NULL,
    session TEXT NOT NULL, project TEXT, title TEXT, size INTEGER, mtime_ms REAL, ino INTEGER,
    resume_offset INTEGER NOT NULL DEFAULT 0, resume_seq INTEGER NOT NULL DEFAULT 0, mark TEXT);
  CREATE INDEX files_mtime ON files (mtime_ms);
  CREATE TABLE watched (path TEXT PRIMARY KEY, mtime_ms REAL);
  CREATE VIRTUAL TABLE turns USING fts5(text, role UNINDEXED, seq UNINDEXED, ts UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2');
  CREATE TABLE secrets (file INTEGER NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, head TEXT NOT NULL,
    tail TEXT NOT NULL, ts INTEGER);
  CREATE INDEX secrets_file ON secrets (file, seq);`;

/**
 * Set a connection's pragmas and make the tables when they are not this cctop's: the first open, an
 * older schema (dropped and made again, so every transcript is read again), or a newer one (refused).
 * Every turn is stored redacted, so tables written under other redaction rules (`rules`: secretlint's
 * preset and rules by their versions, `index/version.ts` `redactionRules`) are made again too: an
 * upgrade that finds a secret the old rules missed must not leave it in the index until its
 * transcript changes.
 */
export function prepareTables(db: BetterSqlite3.Database, rules: string): void {
  // Before the first table, or it has no effect: see `PAGE_BYTES`.
  db.pragma(`page_size = ${PAGE_BYTES}`);
  db.pragma('journal_mode = WAL');
  db.pragma(`mmap_size = ${MAP_BYTES}`);
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
    | { value: string }
    | undefined;
  const version = row ? Number(row.value) : null;
  if (version !== null && version > SEARCH_SCHEMA)
    throw new Error(`it was written by a newer cctop (schema ${version}); search with that cctop`);
  const redactedBy = db.prepare("SELECT value FROM meta WHERE key = 'rules'").get() as
    | { value: string }
    | undefined;
  if (version !== SEARCH_SCHEMA || redactedBy?.value !== rules) {
    db.transaction(() => {
      db.exec(SCHEMA);
      const set = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      set.run('schema', String(SEARCH_SCHEMA));
      set.run('rules', rules);
    }).immediate();
  }
}

export interface RawState {
  id: number;
  path: string;
  provider: string;
  size: number | null;
  mtime_ms: number | null;
  ino: number | null;
  resume_offset: number;
  resume_seq: number;
  mark: string | null;
}

export interface RawFile extends RawState {
  session: string;
  project: string | null;
  title: string | null;
}

export const STATE_COLUMNS = 'id, path, provider, size, mtime_ms, ino, resume_offset, resume_seq, mark';
export type StateTuple = [
  number,
  string,
  string,
  number | null,
  number | null,
  number | null,
  number,
  number,
  string | null,
];

export function stateOf(r: RawState): FileState {
  return {
    id: r.id,
    path: r.path,
    provider: r.provider as ProviderId,
    read:
      r.size === null || r.mtime_ms === null || r.ino === null
        ? null
        : {
            size: r.size,
            mtimeMs: r.mtime_ms,
            ino: r.ino,
            resume: { offset: r.resume_offset, seq: r.resume_seq },
            mark: r.mark,
          },
  };
}
