/**
 * The search index's database: `search.sqlite`, beside the session index in cctop's cache directory
 * and apart from it, so that its size, its schema and its damage never touch what `--json`, `--list`
 * and the statusline read. It holds, per transcript, the session it belongs to and how far it was
 * read (`files`), the folders and databases whose change means new transcripts (`watched`), and an
 * FTS5 table of words: a row per turn's text, a row per turn's calls (their names and what they
 * were called on), and a row for the session's title.
 *
 * A file's rows have ids of their own range (`ROW_SLOTS` per file), so the rows of a grown
 * transcript from some turn on are replaced without a scan of the table, and a result names its file
 * without a join on a text column.
 *
 * Several cctops may share it (WAL, a busy timeout, one short transaction per transcript). Found
 * damaged when opened it is moved aside (as the session index is, `index/damage.ts`) and started
 * again; one written by a newer cctop is left alone and search says so.
 *
 * Not here: the tables' shape and settings (`tables.ts`), deciding what to read (`catch-up.ts`) or
 * what a query means (`query.ts`).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { isCorruption, setAside } from '../index/damage.js';
import { redactionRules } from '../index/version.js';
import type { ReadPoint } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import { describeFsError } from '../model/problems.js';
import { privateDir, privateFile } from '../private.js';
import { sqliteModule } from '../sqlite-module.js';
import { rankedQuery } from './ranked.js';
import {
  type FileMeta,
  type FileRow,
  type FileState,
  type Filters,
  type FoundRow,
  type FoundSecret,
  MAX_TURNS_INDEXED,
  type ReadState,
  ROW_SLOTS,
  type RowRole,
  type SecretRow,
  type TurnRow,
} from './rows.js';
import {
  BUSY_TIMEOUT_MS,
  prepareTables,
  type RawFile,
  STATE_COLUMNS,
  type StateTuple,
  stateOf,
} from './tables.js';

export const SEARCH_FILE = 'search.sqlite';

/**
 * A row id as SQL must read it. better-sqlite3 binds a JavaScript number as a REAL, and FTS5 answers
 * a rowid range given in REALs by scanning the whole table (30 ms a transcript on the bench history,
 * against a hundredth of that), so every bound rowid is cast back in the statement.
 */
const ROWID = 'CAST(? AS INTEGER)';

export type SearchOpen =
  | { kind: 'open'; db: SearchDb; notice: string | null }
  | { kind: 'unavailable'; why: string };

/** The snippet's marks around a matched word: controls no transcript text keeps (`indexText`). */
export const MARK_OPEN = '\u0002';
export const MARK_CLOSE = '\u0003';

/** Why search cannot use its index, and what to do. */
const cannotUse = (path: string, err: unknown): string =>
  `search cannot use its index at ${path} (${describeFsError(err)}); set CCTOP_CACHE_DIR to a directory cctop can write`;

/** Text as the index keeps it: without the two controls that mark a match in a snippet. */
export const indexText = (s: string): string => s.replace(/[\u0002\u0003]/g, ' ');

export class SearchDb {
  /** The statements a read into the index uses, prepared once and only by a search that writes. */
  private writes: {
    insert: BetterSqlite3.Statement;
    dropRange: BetterSqlite3.Statement;
    dropOne: BetterSqlite3.Statement;
    readTo: BetterSqlite3.Statement;
    secret: BetterSqlite3.Statement;
    dropSecrets: BetterSqlite3.Statement;
  } | null = null;

  private constructor(
    readonly path: string,
    private readonly db: BetterSqlite3.Database,
  ) {}

  private get w(): NonNullable<SearchDb['writes']> {
    this.writes ??= {
      insert: this.db.prepare(`INSERT INTO turns (rowid, text, role, seq, ts) VALUES (${ROWID}, ?, ?, ?, ?)`),
      dropRange: this.db.prepare(`DELETE FROM turns WHERE rowid >= ${ROWID} AND rowid < ${ROWID}`),
      dropOne: this.db.prepare(`DELETE FROM turns WHERE rowid = ${ROWID}`),
      readTo: this.db.prepare(
        'UPDATE files SET size = ?, mtime_ms = ?, ino = ?, resume_offset = ?, resume_seq = ?, mark = ? WHERE id = ?',
      ),
      secret: this.db.prepare(
        'INSERT INTO secrets (file, seq, kind, head, tail, ts) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      dropSecrets: this.db.prepare('DELETE FROM secrets WHERE file = ? AND seq >= ?'),
    };
    return this.writes;
  }

  /** Open (creating, or starting again from a damaged one) the search index in `dir`; never throws. */
  static open(dir: string): SearchOpen {
    const path = join(dir, SEARCH_FILE);
    try {
      // Private: the index holds what every session said and did (`private.ts`).
      privateDir(dir);
    } catch (err) {
      return { kind: 'unavailable', why: cannotUse(dir, err) };
    }
    const ino = statSync(path, { throwIfNoEntry: false })?.ino ?? null;
    try {
      return { kind: 'open', db: SearchDb.attempt(path), notice: null };
    } catch (err) {
      if (!isCorruption(err)) return { kind: 'unavailable', why: cannotUse(path, err) };
      return SearchDb.again(path, ino, (err as Error).message);
    }
  }

  /** Move a damaged index aside and start an empty one in its place. */
  static again(path: string, ino: number | null, why: string): SearchOpen {
    try {
      const done = setAside(path, ino);
      return {
        kind: 'open',
        db: SearchDb.attempt(path),
        notice: `the search index at ${path} was damaged (${why}); ${done} and started it again from the transcripts`,
      };
    } catch (err) {
      return { kind: 'unavailable', why: cannotUse(path, err) };
    }
  }

  private static attempt(path: string): SearchDb {
    const { Database, options } = sqliteModule();
    privateFile(path);
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS, ...options });
    try {
      prepareTables(db, redactionRules());
      return new SearchDb(path, db);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The inode of the file opened, for setting it aside when it turns out damaged. */
  ino(): number | null {
    return statSync(this.path, { throwIfNoEntry: false })?.ino ?? null;
  }

  /**
   * Every transcript's state; not their sessions and titles, which only a read needs (the quick look
   * reads this every search).
   */
  states(): FileState[] {
    return this.stateRows(`SELECT ${STATE_COLUMNS} FROM files`);
  }

  private stateRows(sql: string, ...params: unknown[]): FileState[] {
    const out: FileState[] = [];
    // Rows as arrays: a heavy user's four thousand objects built by SQLite's binding cost a fifth of a search.
    const rows = this.db
      .prepare(sql)
      .raw(true)
      .all(...params) as StateTuple[];
    for (const [id, path, provider, size, mtime_ms, ino, resume_offset, resume_seq, mark] of rows)
      out.push(stateOf({ id, path, provider, size, mtime_ms, ino, resume_offset, resume_seq, mark }));
    return out;
  }

  /** The unread transcripts and the `n` most recently written (as last read). */
  hotStates(n: number): FileState[] {
    return this.stateRows(
      `SELECT ${STATE_COLUMNS} FROM files WHERE mtime_ms IS NULL
        UNION ALL SELECT * FROM (SELECT ${STATE_COLUMNS} FROM files WHERE mtime_ms IS NOT NULL ORDER BY mtime_ms DESC LIMIT ?)`,
      n,
    );
  }

  /** When a search last stat'ed every transcript (0: never). */
  lookedAt(): number {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'looked'").get() as
      | { value: string }
      | undefined;
    const ms = Number(row?.value);
    return Number.isFinite(ms) ? ms : 0;
  }

  setLookedAt(ms: number): void {
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('looked', ?)").run(String(ms));
  }

  /** One transcript with its session, to read it. */
  file(id: number): FileRow | null {
    const r = this.db.prepare('SELECT * FROM files WHERE id = ?').get(id) as RawFile | undefined;
    return r === undefined ? null : { ...stateOf(r), session: r.session, project: r.project, title: r.title };
  }

  /** Every watched folder or database and its mtime when last looked at (null: it did not exist). */
  watched(): Map<string, number | null> {
    const rows = this.db.prepare('SELECT path, mtime_ms FROM watched').raw(true).all() as [
      string,
      number | null,
    ][];
    return new Map(rows);
  }

  /**
   * After a look at every transcript: the transcripts now (new ones listed unread, changed session
   * facts updated), the ones gone dropped with their rows, and the watched paths replaced.
   */
  relist(
    metas: readonly FileMeta[],
    gone: readonly FileState[],
    watched: ReadonlyMap<string, number | null>,
  ): void {
    const upsert =
      this.db.prepare(`INSERT INTO files (path, provider, session, project, title) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(path) DO UPDATE SET provider = excluded.provider, session = excluded.session,
        project = excluded.project, title = excluded.title`);
    const dropFile = this.db.prepare('DELETE FROM files WHERE id = ?');
    const watch = this.db.prepare('INSERT INTO watched (path, mtime_ms) VALUES (?, ?)');
    this.db
      .transaction(() => {
        for (const f of gone) {
          this.w.dropRange.run(f.id * ROW_SLOTS, (f.id + 1) * ROW_SLOTS);
          this.w.dropSecrets.run(f.id, 0);
          dropFile.run(f.id);
        }
        for (const m of metas) upsert.run(m.path, m.provider, m.session, m.project, m.title);
        this.db.exec('DELETE FROM watched');
        for (const [path, mtime] of watched) watch.run(path, mtime);
      })
      .immediate();
  }

  /**
   * A transcript read from `from` on: its rows and secrets from that turn replaced by `rows` and
   * `secrets`, its title row written again, and where it was read to.
   */
  replace(
    file: FileRow,
    from: ReadPoint,
    rows: readonly TurnRow[],
    state: ReadState,
    secrets: readonly SecretRow[] = [],
  ): void {
    const base = file.id * ROW_SLOTS;
    this.db
      .transaction(() => {
        this.w.dropOne.run(base);
        this.w.dropRange.run(base + 1 + 2 * Math.min(from.seq, MAX_TURNS_INDEXED), base + ROW_SLOTS);
        if (file.title !== null) this.w.insert.run(base, indexText(file.title), 'title', null, null);
        for (const r of rows) {
          if (r.seq >= MAX_TURNS_INDEXED) continue;
          const slot = 1 + 2 * r.seq + (r.role === 'tool' ? 1 : 0);
          this.w.insert.run(base + slot, indexText(r.text), r.role, r.seq, r.tsMs);
        }
        this.w.dropSecrets.run(file.id, from.seq);
        for (const x of secrets) this.w.secret.run(file.id, x.seq, x.kind, x.head, x.tail, x.tsMs);
        this.w.readTo.run(
          state.size,
          state.mtimeMs,
          state.ino,
          state.resume.offset,
          state.resume.seq,
          state.mark,
          file.id,
        );
      })
      .immediate();
  }

  /**
   * The best `limit` rows for an FTS5 `match` under `filters`, best first (bm25), each with a snippet
   * whose matched words sit between `MARK_OPEN` and `MARK_CLOSE`.
   */
  query(match: string, f: Filters, limit: number, snippetTokens: number): FoundRow[] {
    const { sql, params } = rankedQuery(match, f, limit, snippetTokens);
    return this.db.prepare(sql).all(params) as FoundRow[];
  }

  /**
   * Run `write` (several `replace`s) as one transaction: FTS5 writes a new segment at each commit and
   * merges them as they pile up, so a commit per transcript cost a fifth of a first build.
   */
  batch(write: () => void): void {
    this.db.transaction(write).immediate();
  }

  /** What the index holds of one transcript, in turn order (to check a read against another). */
  rowsOf(path: string): { seq: number | null; role: RowRole; text: string }[] {
    const f = this.db.prepare('SELECT id FROM files WHERE path = ?').get(path) as { id: number } | undefined;
    if (f === undefined) return [];
    return this.db
      .prepare(
        `SELECT seq, role, text FROM turns WHERE rowid >= ${ROWID} AND rowid < ${ROWID} ORDER BY rowid`,
      )
      .all(f.id * ROW_SLOTS, (f.id + 1) * ROW_SLOTS) as { seq: number | null; role: RowRole; text: string }[];
  }

  /** Every secret found in the transcripts read, newest first. */
  secrets(): FoundSecret[] {
    const rows = this.db
      .prepare(
        `SELECT f.provider, f.session, f.project, f.path, s.seq, s.kind, s.head, s.tail, s.ts
          FROM secrets s JOIN files f ON f.id = s.file ORDER BY s.ts IS NULL, s.ts DESC, f.session, s.seq`,
      )
      .raw(true)
      .all() as [ProviderId, string, string | null, string, number, string, string, string, number | null][];
    return rows.map(([provider, session, project, path, seq, kind, head, tail, tsMs]) => ({
      provider,
      session,
      project,
      path,
      seq,
      kind,
      head,
      tail,
      tsMs,
    }));
  }

  /** How many secrets the index holds (`cctop doctor`), without reading anything more. */
  secretCount(): number {
    const r = this.db.prepare('SELECT count(*) AS n FROM secrets').get() as { n: number };
    return r.n;
  }

  /** The database's size on disk, with its log. */
  bytes(): number {
    let n = 0;
    for (const suffix of ['', '-wal'])
      n += statSync(this.path + suffix, { throwIfNoEntry: false })?.size ?? 0;
    return n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
