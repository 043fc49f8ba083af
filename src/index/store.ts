/**
 * The persistent index: one SQLite row per transcript with where reading stopped (offset, a hash of
 * the bytes before it), the parser's carried state, the facts so far and the request ledger. Prices
 * are not stored, tokens are: a price update or another `--plan` re-reads nothing.
 *
 * Several cctops share it at once (the live table, `serve`, a `--json` call): WAL mode, a busy
 * timeout, writes in one short transaction per scan. A database found corrupt, when it is opened or
 * at any later read or write, is moved aside (`index.sqlite.corrupt-<time>`, the newest
 * `MAX_DAMAGED_KEPT` of them kept for a bug report) and rebuilt once: the store remembers the damage
 * (`damaged`) so the caller can drop what it answered from it and ask again (`rebuild`). One written
 * by a newer cctop is left alone and bypassed, and so is one in a cache directory cctop cannot use
 * (a file, or a folder it may not write). Every time the user gets a one-line notice and a correct (if
 * slower) answer, never a crash.
 *
 * Not here: deciding what to re-read (`scan.ts`), parsing (the providers).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { encodeToolSets } from '../model/tool-sets.js';
import { privateDir, privateFile } from '../private.js';
import type { ParseResult, SourceFile } from '../providers/types.js';
import { sqliteModule } from '../sqlite-module.js';
import { cannotUse, isCorruption, NewerIndex, setAside, unusableDir } from './damage.js';
import { type DamagedRow, ROW_COLUMNS, type Row, type StoredFile, storedRow } from './file-row.js';
import { KEPT_TABLES, KeptTables } from './kept-store.js';
import { RowDamageCount, startRowDamage } from './row-damage.js';

export { isCorruption, MAX_DAMAGED_KEPT } from './damage.js';
export type { DamagedRow, StoredFile } from './file-row.js';

/**
 * Bumped when the tables change shape; an older index is rebuilt (or migrated, when only tables were
 * added), a newer one bypassed.
 */
export const SCHEMA_VERSION = 12;

/**
 * Schemas whose `files` table is still good: moving from them only replaces the kept sessions (the
 * next run builds them again from the stored rows, reading no transcript). 10: 11 keeps a patch's
 * sessions and files beside the build's pack (`kept-store.ts`). 11: 12 keeps every pack's message
 * keys in file order (a patch written whole into a pack left its files' keys last), which a patch's
 * proof now relies on (`kept.ts` `keyRange`).
 */
const SAME_FILES = new Set<number>([10, 11]);

/**
 * The database's page size. A kept session's row (its facts, about 2 KB, and its head) does not fit a
 * 4 KiB page with others, and reading 4,000 of them through overflow pages took 160 ms where 64 KiB
 * pages take 20 ms (measured on the 1.2 GiB bench history). SQLite's largest page size.
 */
const PAGE_BYTES = 65_536;

/** An index made with smaller pages, rewritten once with `PAGE_BYTES` (when it migrates anyway). */
function largerPages(db: BetterSqlite3.Database): void {
  if ((db.pragma('page_size', { simple: true }) as number) >= PAGE_BYTES) return;
  // The page size of a database in WAL mode cannot change: out of it, rewritten, and back.
  db.pragma('journal_mode = DELETE');
  db.pragma(`page_size = ${PAGE_BYTES}`);
  db.exec('VACUUM');
  db.pragma('journal_mode = WAL');
}

/**
 * How much of the index SQLite reads through a memory map rather than by copying pages: the kept
 * sessions (about 9 MB for 4,000) read in a third of the time (measured on the 1.2 GiB bench
 * history). Address space, not memory: pages are the operating system's cache. The index of a very
 * large history reads its tail the usual way.
 */
const MAP_BYTES = 256 * 1024 * 1024;

/**
 * SQLite's page cache for the index, in KiB (`PRAGMA cache_size` takes KiB when negative). The
 * SQLite cctop is built with caches 16 MB per connection, and a first build's writes filled it: the
 * rows of 3,800 transcripts, then the 11 MB of kept sessions held as dirty pages until their
 * transaction ended, on top of everything else the build holds (a first build on the 1.2 GiB bench
 * history peaked 15 MB higher). Reads do not need it: the file is read through the memory map
 * (`MAP_BYTES`), and a write transaction larger than the cache spills to the log as it goes. The
 * same CPU time either way (`bench/RESULTS.md`).
 */
export const INDEX_CACHE_KIB = 1024;

/** How long a writer waits for another cctop's transaction before giving up on this write. */
export const BUSY_TIMEOUT_MS = 5000;

export const INDEX_FILE = 'index.sqlite';

/**
 * An index to use, with a notice when it had to be rebuilt first; or none this run, and why.
 */
export type OpenResult =
  | { kind: 'open'; store: IndexStore; rebuilt: string | null }
  | { kind: 'bypassed'; notice: string };

export class IndexStore {
  private readonly upsert: BetterSqlite3.Statement;
  private readonly markDeleted: BetterSqlite3.Statement;
  private readonly drop: BetterSqlite3.Statement;
  private damage: string | null = null;
  /** Rows found too damaged to decode, counted when a save drops or rewrites them (`row-damage.ts`). */
  private readonly undecoded = new RowDamageCount();
  /** The built sessions kept per scope. */
  readonly kept: KeptTables;

  private constructor(
    readonly path: string,
    private readonly db: BetterSqlite3.Database,
    /** The inode opened, so a rebuild moves aside this file and not one another cctop just made. */
    private readonly ino: number,
  ) {
    this.upsert =
      db.prepare(`INSERT INTO files (path, provider, root, session_hint, role, parser, size, mtime_ms, ino, offset, pending,
        tail_hash, facts, carry, models, tools, ledger, deleted, seen_at)
      VALUES (@path, @provider, @root, @session_hint, @role, @parser, @size, @mtime_ms, @ino, @offset, @pending,
        @tail_hash, @facts, @carry, @models, @tools, @ledger, 0, @seen_at)
      ON CONFLICT(path) DO UPDATE SET provider=excluded.provider, root=excluded.root, session_hint=excluded.session_hint,
        role=excluded.role, parser=excluded.parser, size=excluded.size, mtime_ms=excluded.mtime_ms, ino=excluded.ino,
        offset=excluded.offset, pending=excluded.pending, tail_hash=excluded.tail_hash, facts=excluded.facts,
        carry=excluded.carry, models=excluded.models, tools=excluded.tools, ledger=excluded.ledger, deleted=0, seen_at=excluded.seen_at`);
    this.markDeleted = db.prepare('UPDATE files SET deleted = 1 WHERE path = ?');
    this.drop = db.prepare('DELETE FROM files WHERE path = ?');
    this.kept = new KeptTables(db, (use) => this.watched(use));
  }

  /**
   * What SQLite said when it found this index damaged, or null. Set by any read or write, including
   * those whose failure is otherwise shrugged off (kept sessions only save time): an answer given
   * from a damaged index is dropped and asked again of a rebuilt one (`rebuild`).
   */
  get damaged(): string | null {
    return this.damage;
  }

  /** Run `use` on the database, noting damage on the way out. */
  private watched<T>(use: () => T): T {
    try {
      return use();
    } catch (err) {
      if (isCorruption(err)) this.damage ??= (err as Error).message;
      throw err;
    }
  }

  /** Open (creating if needed) the index in `dir`; never throws. */
  static open(dir: string): OpenResult {
    const path = join(dir, INDEX_FILE);
    try {
      // Private: the index holds what every session said and did (`private.ts`).
      privateDir(dir);
    } catch (err) {
      return { kind: 'bypassed', notice: unusableDir(dir, err) };
    }
    let ino: number | null = null;
    try {
      ino = statSync(path, { throwIfNoEntry: false })?.ino ?? null;
      return { kind: 'open', store: IndexStore.attempt(path), rebuilt: null };
    } catch (err) {
      if (err instanceof NewerIndex) {
        return {
          kind: 'bypassed',
          notice: `the index at ${path} was written by a newer cctop (schema ${err.version}); reading without it`,
        };
      }
      if (!isCorruption(err)) return { kind: 'bypassed', notice: cannotUse(path, err) };
      return IndexStore.replace(path, ino, (err as Error).message);
    }
  }

  /**
   * Move a damaged index aside and start a new one in its place (`store` is closed first). Only the
   * file `store` opened is moved: when another cctop got there first, its new index is used as it is.
   */
  static rebuild(dir: string, store: IndexStore): OpenResult {
    store.close();
    return IndexStore.replace(join(dir, INDEX_FILE), store.ino, store.damage ?? 'damaged');
  }

  private static replace(path: string, ino: number | null, why: string): OpenResult {
    let done: string;
    try {
      done = setAside(path, ino);
    } catch (err) {
      return { kind: 'bypassed', notice: cannotUse(path, err) };
    }
    try {
      const store = IndexStore.attempt(path);
      return {
        kind: 'open',
        store,
        rebuilt: `the index at ${path} was damaged (${why}); ${done} and rebuilt it from the transcripts`,
      };
    } catch (again) {
      return { kind: 'bypassed', notice: cannotUse(path, again) };
    }
  }

  private static attempt(path: string): IndexStore {
    const { Database, options } = sqliteModule();
    privateFile(path);
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS, ...options });
    try {
      // The page size takes effect on a new file only (before its first table); an older index gets
      // it when it migrates (`largerPages`). One `exec` for all: each `pragma()` call prepares and
      // steps a statement of its own, and nothing here reads what they answer.
      db.exec(`PRAGMA page_size = ${PAGE_BYTES};
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        PRAGMA mmap_size = ${MAP_BYTES};
        PRAGMA cache_size = -${INDEX_CACHE_KIB};
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
        | { value: string }
        | undefined;
      const version = row ? Number(row.value) : null;
      if (version !== null && version > SCHEMA_VERSION) throw new NewerIndex(version);
      if (version !== SCHEMA_VERSION && !(version !== null && SAME_FILES.has(version))) {
        db.exec(`DROP TABLE IF EXISTS files;
          CREATE TABLE files (path TEXT PRIMARY KEY, provider TEXT NOT NULL, root TEXT NOT NULL, session_hint TEXT,
            role TEXT NOT NULL, parser TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, ino INTEGER NOT NULL,
            offset INTEGER NOT NULL, pending INTEGER NOT NULL, tail_hash TEXT, facts TEXT NOT NULL, carry TEXT NOT NULL,
            models TEXT NOT NULL, tools TEXT NOT NULL, ledger BLOB NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, seen_at REAL NOT NULL);
          DROP TABLE IF EXISTS prices;
          CREATE TABLE prices (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
        startRowDamage(db);
      }
      if (version !== SCHEMA_VERSION) {
        // Schemas 2 to 9, 11 and 12 only added and changed the kept sessions; 10 re-reads the files (`SAME_FILES`).
        // 12 indexes the files by root and provider: a run through the index counts them
        // (`countFiles`) from the index alone, where reading 3,800 rows took 2.5 ms (1.2 GiB bench
        // history); the index serves a lookup by root as well as the one by root alone did.
        db.exec(`DROP INDEX IF EXISTS files_root;
          CREATE INDEX IF NOT EXISTS files_root_provider ON files (root, provider);`);
        db.exec(KEPT_TABLES);
        db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(
          String(SCHEMA_VERSION),
        );
        largerPages(db);
      }
      return new IndexStore(path, db, statSync(path).ino);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Every stored file under the given roots. A row that does not decode is left out, and, when
   * `damaged` is given, listed there: the scan reads its file again, or drops the row (`dropped` in
   * `save`) when the file is gone.
   */
  load(roots: readonly string[], damaged?: DamagedRow[]): StoredFile[] {
    if (roots.length === 0) return [];
    return this.watched(() => {
      // Row by row, so the whole table is never held twice (as rows and as what they become).
      const rows = this.db
        .prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE root IN (${roots.map(() => '?').join(',')})`)
        .iterate(...roots) as IterableIterator<Row>;
      const out: StoredFile[] = [];
      for (const r of rows) {
        const row = storedRow(r);
        if (row) out.push(row);
        else damaged?.push(this.undecoded.found(r));
      }
      return out;
    });
  }

  /** Whether the index knows no transcript yet (a first run, or one after it was rebuilt). */
  isEmpty(): boolean {
    try {
      return this.watched(() => this.db.prepare('SELECT 1 FROM files LIMIT 1').get() === undefined);
    } catch {
      return true;
    }
  }

  /** The stored rows of these paths (those the index has). */
  loadPaths(paths: readonly string[]): Map<string, StoredFile> {
    return this.watched(() => {
      const get = this.db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE path = ?`);
      const out = new Map<string, StoredFile>();
      for (const path of paths) {
        const r = get.get(path) as Row | undefined;
        const row = r ? storedRow(r) : null;
        if (row) out.set(path, row);
        else if (r) this.undecoded.found(r);
      }
      return out;
    });
  }

  /**
   * How many files the index holds under these roots for these providers: every one a full build of
   * them reads (`scan.ts`), on disk or deleted. A kept build that lists fewer misses one some other
   * run stored (`kept.ts` `keptDigest`).
   */
  countFiles(roots: readonly string[], providers: readonly string[]): number {
    if (roots.length === 0 || providers.length === 0) return 0;
    const marks = (n: number) => Array.from({ length: n }, () => '?').join(',');
    const row = this.watched(
      () =>
        this.db
          .prepare(
            `SELECT count(*) AS n FROM files WHERE root IN (${marks(roots.length)}) AND provider IN (${marks(providers.length)})`,
          )
          .get(...roots, ...providers) as { n: number },
    );
    return row.n;
  }

  /** The parser state stored for `path`, to continue reading it from its offset. */
  carryOf(path: string): unknown {
    const row = this.watched(
      () =>
        this.db.prepare('SELECT carry FROM files WHERE path = ?').get(path) as { carry: string } | undefined,
    );
    return row ? (JSON.parse(row.carry) as unknown) : null;
  }

  /** Every cached price (a few hundred entries at most). */
  loadPrices(): Map<string, string> {
    const rows = this.watched(
      () => this.db.prepare('SELECT key, value FROM prices').all() as { key: string; value: string }[],
    );
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  savePrices(entries: Iterable<[string, string]>): void {
    this.watched(() => {
      const put = this.db.prepare('INSERT OR REPLACE INTO prices (key, value) VALUES (?, ?)');
      this.db.transaction(() => {
        for (const [k, v] of entries) put.run(k, v);
      })();
    });
  }

  /**
   * Record fresh parses and files that disappeared, in one transaction; `dropped` are rows removed
   * outright (a damaged row whose file is gone: nothing could ever read it again).
   */
  save(
    parsed: { file: SourceFile; parser: string; tailHash: string | null; result: ParseResult }[],
    deleted: readonly string[],
    dropped: readonly string[] = [],
  ): void {
    const now = Date.now();
    const write = this.db.transaction(() => {
      this.undecoded.count(this.db, parsed, dropped, now);
      for (const p of parsed) {
        const l = p.result.ledger;
        this.upsert.run({
          path: p.file.path,
          provider: p.file.provider,
          root: p.file.root,
          session_hint: p.file.sessionHint,
          role: p.file.role,
          parser: p.parser,
          size: p.result.size,
          mtime_ms: p.result.mtimeMs,
          ino: p.result.ino,
          offset: p.result.offset,
          pending: p.result.pendingBytes,
          tail_hash: p.tailHash,
          facts: JSON.stringify(p.result.facts),
          carry: JSON.stringify(p.result.carry ?? null),
          models: JSON.stringify(l.models),
          tools: encodeToolSets(l.toolSets),
          ledger: Buffer.from(l.data.buffer, l.data.byteOffset, l.data.byteLength),
          seen_at: now,
        });
      }
      for (const path of deleted) this.markDeleted.run(path);
      for (const path of dropped) this.drop.run(path);
    });
    this.watched(() => write.immediate());
    this.undecoded.settled(parsed, dropped);
  }

  /**
   * Run `read` on one consistent view of the index (a read transaction): what it reads of a scope in
   * several statements cannot mix two cctops' writes.
   */
  reading<T>(read: () => T): T {
    return this.watched(() => this.db.transaction(read).deferred());
  }

  /** Close the connection (again is harmless). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
