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
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { FileFacts, ProviderId } from '../model/facts.js';
import { type Ledger, RECORD_FIELDS } from '../model/ledger.js';
import { describeFsError } from '../model/problems.js';
import type { ParseResult, SourceFile } from '../providers/types.js';
import {
  type KeptFile,
  type KeptInputs,
  type KeptScope,
  type KeptSessions,
  MAX_KEPT_SCOPES,
} from './built.js';

/**
 * Bumped when the tables change shape; an older index is rebuilt (or migrated, when only tables were
 * added), a newer one bypassed.
 */
export const SCHEMA_VERSION = 8;

/** Schemas whose `files` table is still good: moving from them only replaces the kept sessions. */
const SAME_FILES = new Set([1, 2, 3, 4, 5, 6, 7]);

/** How long a writer waits for another cctop's transaction before giving up on this write. */
export const BUSY_TIMEOUT_MS = 5000;

export const INDEX_FILE = 'index.sqlite';

/**
 * Damaged indexes kept beside the new one (`index.sqlite.corrupt-<time>`, each with its `-wal`): the
 * newest is what a bug report needs, the one before says whether the damage came back. Each is as
 * large as the index (tens of megabytes on a large history), so keeping every one would let a failing
 * disk fill the cache a copy at a time.
 */
export const MAX_DAMAGED_KEPT = 2;

/** What a damaged index is renamed to: the time makes the names sort oldest first. */
const DAMAGED_SUFFIX = '.corrupt-';

/** SQLite's own files beside a database, moved and removed with it. */
const COMPANIONS = ['-wal', '-shm'] as const;

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

export interface StoredFile {
  path: string;
  provider: ProviderId;
  root: string;
  sessionHint: string | null;
  role: SourceFile['role'];
  parser: string;
  tailHash: string | null;
  deleted: boolean;
  result: ParseResult;
}

interface Row {
  path: string;
  provider: string;
  root: string;
  session_hint: string | null;
  role: string;
  parser: string;
  size: number;
  mtime_ms: number;
  ino: number;
  offset: number;
  pending: number;
  tail_hash: string | null;
  facts: string;
  models: string;
  ledger: Buffer;
  deleted: number;
}

/**
 * An index to use, with a notice when it had to be rebuilt first; or none this run, and why.
 */
export type OpenResult =
  | { kind: 'open'; store: IndexStore; rebuilt: string | null }
  | { kind: 'bypassed'; notice: string };

const require = createRequire(import.meta.url);

/**
 * A blob of 32-bit numbers as an array: a Buffer of its own and 4-byte aligned is viewed in place
 * (what SQLite hands back usually is), anything else copied. A trailing partial number is dropped.
 */
function words<T extends Uint32Array | Int32Array>(
  blob: Buffer,
  Kind: new (b: ArrayBuffer, o: number, n: number) => T,
): T {
  const n = Math.floor(blob.byteLength / 4);
  if (blob.byteOffset % 4 === 0 && blob.buffer.byteLength === blob.byteLength)
    return new Kind(blob.buffer as ArrayBuffer, blob.byteOffset, n);
  const copy = new Kind(new ArrayBuffer(n * 4), 0, n);
  new Uint8Array(copy.buffer).set(blob.subarray(0, n * 4));
  return copy;
}

function ledgerOf(models: string, blob: Buffer): Ledger {
  if (blob.byteLength % 4 !== 0) throw new Error('ledger blob of the wrong size');
  const data = words(blob, Uint32Array);
  if (data.length % RECORD_FIELDS !== 0) throw new Error('ledger blob of the wrong size');
  return { models: JSON.parse(models) as string[], data };
}

const ROW_COLUMNS =
  'path, provider, root, session_hint, role, parser, size, mtime_ms, ino, offset, pending, tail_hash, facts, models, ledger, deleted';

/** A row as the scan uses it, or null when it is damaged (the file is then simply read again). */
function storedRow(r: Row): StoredFile | null {
  try {
    return {
      path: r.path,
      provider: r.provider as ProviderId,
      root: r.root,
      sessionHint: r.session_hint,
      role: r.role as SourceFile['role'],
      parser: r.parser,
      tailHash: r.tail_hash,
      deleted: r.deleted === 1,
      result: {
        facts: JSON.parse(r.facts) as FileFacts,
        // The carried parser state is only needed to continue a file: fetched then (`carryOf`).
        carry: null,
        ledger: ledgerOf(r.models, r.ledger),
        offset: r.offset,
        size: r.size,
        mtimeMs: r.mtime_ms,
        ino: r.ino,
        pendingBytes: r.pending,
      },
    };
  } catch {
    return null;
  }
}

export class IndexStore {
  private readonly upsert: BetterSqlite3.Statement;
  private readonly markDeleted: BetterSqlite3.Statement;
  private damage: string | null = null;

  private constructor(
    readonly path: string,
    private readonly db: BetterSqlite3.Database,
    /** The inode opened, so a rebuild moves aside this file and not one another cctop just made. */
    private readonly ino: number,
  ) {
    this.upsert =
      db.prepare(`INSERT INTO files (path, provider, root, session_hint, role, parser, size, mtime_ms, ino, offset, pending,
        tail_hash, facts, carry, models, ledger, deleted, seen_at)
      VALUES (@path, @provider, @root, @session_hint, @role, @parser, @size, @mtime_ms, @ino, @offset, @pending,
        @tail_hash, @facts, @carry, @models, @ledger, 0, @seen_at)
      ON CONFLICT(path) DO UPDATE SET provider=excluded.provider, root=excluded.root, session_hint=excluded.session_hint,
        role=excluded.role, parser=excluded.parser, size=excluded.size, mtime_ms=excluded.mtime_ms, ino=excluded.ino,
        offset=excluded.offset, pending=excluded.pending, tail_hash=excluded.tail_hash, facts=excluded.facts,
        carry=excluded.carry, models=excluded.models, ledger=excluded.ledger, deleted=0, seen_at=excluded.seen_at`);
    this.markDeleted = db.prepare('UPDATE files SET deleted = 1 WHERE path = ?');
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
      mkdirSync(dir, { recursive: true });
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
    const Database = require('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
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
            models TEXT NOT NULL, ledger BLOB NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, seen_at REAL NOT NULL);
          CREATE INDEX IF NOT EXISTS files_root ON files (root);
          DROP TABLE IF EXISTS prices;
          CREATE TABLE prices (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      }
      if (version !== SCHEMA_VERSION) {
        // Schemas 2 to 8 only added and changed the kept sessions: an older index keeps its files.
        // A row's columns are read in order, through every page of the large ones before: the
        // small ones come first, then what an unchanged run reads, then what only a patch needs.
        db.exec(`DROP TABLE IF EXISTS scopes;
          CREATE TABLE scopes (scope TEXT PRIMARY KEY, digest TEXT NOT NULL, hour_start REAL NOT NULL,
            kept_at REAL NOT NULL, used_at REAL NOT NULL, crc INTEGER NOT NULL, problems TEXT NOT NULL,
            heads TEXT NOT NULL, spans BLOB NOT NULL, docs BLOB NOT NULL, rest TEXT NOT NULL, files TEXT NOT NULL,
            keys BLOB NOT NULL, masks BLOB NOT NULL, summaries TEXT NOT NULL);`);
        db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(
          String(SCHEMA_VERSION),
        );
      }
      return new IndexStore(path, db, statSync(path).ino);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Every stored file under the given roots. */
  load(roots: readonly string[]): StoredFile[] {
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
      }
      return out;
    });
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

  /** Record fresh parses and files that disappeared, in one transaction. */
  save(
    parsed: { file: SourceFile; parser: string; tailHash: string | null; result: ParseResult }[],
    deleted: readonly string[],
  ): void {
    const now = Date.now();
    const write = this.db.transaction(() => {
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
          ledger: Buffer.from(l.data.buffer, l.data.byteOffset, l.data.byteLength),
          seen_at: now,
        });
      }
      for (const path of deleted) this.markDeleted.run(path);
    });
    this.watched(() => write.immediate());
  }

  /**
   * Run `read` on one consistent view of the index (a read transaction): what it reads of a scope in
   * several statements cannot mix two cctops' writes.
   */
  reading<T>(read: () => T): T {
    return this.watched(() => this.db.transaction(read).deferred());
  }

  /** What the last build in `scope` saw and found, or null when nothing is kept for it. */
  keptScope(scope: string): (KeptScope & { keptAt: number; usedAt: number }) | null {
    // Kept sessions only save time: anything wrong with them means building again, never failing.
    try {
      const row = this.watched(
        () =>
          this.db
            .prepare('SELECT digest, hour_start, problems, kept_at, used_at FROM scopes WHERE scope = ?')
            .get(scope) as
            | { digest: string; hour_start: number; problems: string; kept_at: number; used_at: number }
            | undefined,
      );
      if (!row) return null;
      return {
        digest: row.digest,
        hourStart: row.hour_start,
        keptAt: row.kept_at,
        usedAt: row.used_at,
        problems: JSON.parse(row.problems) as KeptScope['problems'],
      };
    } catch {
      return null;
    }
  }

  /** The sessions kept in `scope`, or null. */
  keptSessions(scope: string): KeptSessions | null {
    let row: { docs: Buffer; crc: number; spans: Buffer; heads: string; rest: string } | undefined;
    try {
      row = this.watched(
        () =>
          this.db
            .prepare('SELECT docs, crc, spans, heads, rest FROM scopes WHERE scope = ?')
            .get(scope) as typeof row,
      );
    } catch {
      return null;
    }
    if (!row || row.spans.byteLength % 4 !== 0) return null;
    return {
      docs: row.docs,
      crc: row.crc,
      spans: words(row.spans, Int32Array),
      heads: row.heads,
      rest: row.rest,
    };
  }

  /**
   * Record a build: what it saw, the problems it found and its sessions, in one row (so two cctops
   * keeping at once leave one of their sets, never a mix). Scopes beyond `MAX_KEPT_SCOPES` are
   * forgotten, least recently used first.
   */
  keep(scope: string, kept: KeptScope, sessions: KeptSessions, inputs: KeptInputs, nowMs: number): void {
    const write = this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT OR REPLACE INTO scopes (scope, digest, hour_start, problems, docs, crc, spans, heads, rest, files,
            keys, masks, summaries, kept_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          scope,
          kept.digest,
          kept.hourStart,
          JSON.stringify(kept.problems),
          sessions.docs,
          sessions.crc,
          bytesOf(sessions.spans),
          sessions.heads,
          sessions.rest,
          JSON.stringify(inputs.files.map(fileRow)),
          bytesOf(inputs.keys),
          bytesOf(inputs.masks),
          JSON.stringify(inputs.summaries),
          nowMs,
          nowMs,
        );
      this.db
        .prepare(
          'DELETE FROM scopes WHERE scope IN (SELECT scope FROM scopes ORDER BY used_at DESC LIMIT -1 OFFSET ?)',
        )
        .run(MAX_KEPT_SCOPES);
    });
    this.watched(() => write.immediate());
  }

  /** What the last build in `scope` decided across files, or null when damaged or absent. */
  keptInputs(scope: string): KeptInputs | null {
    try {
      const row = this.watched(
        () =>
          this.db.prepare('SELECT files, keys, masks, summaries FROM scopes WHERE scope = ?').get(scope) as
            | { files: string; keys: Buffer; masks: Buffer; summaries: string }
            | undefined,
      );
      if (!row || row.keys.byteLength % 12 !== 0) return null;
      const keys = words(row.keys, Uint32Array);
      const rows = JSON.parse(row.files) as FileRow[];
      if (!rows.every((r) => Array.isArray(r) && r.length === FILE_FIELDS)) return null;
      const files = rows.map(fileOf);
      const masks: Uint8Array = row.masks;
      if (files.reduce((n, f) => n + f.records, 0) !== masks.length) return null;
      return { files, keys, masks, summaries: JSON.parse(row.summaries) as [number, string][] };
    } catch {
      return null;
    }
  }

  /** Replace a scope's sessions and hour (its files and problems stay): the same build an hour on. */
  rehour(
    scope: string,
    from: Pick<KeptScope, 'digest' | 'hourStart'> & { keptAt: number },
    hourStart: number,
    sessions: KeptSessions,
    nowMs: number,
  ): void {
    // Only over the very build these sessions were moved from: another cctop may have kept a newer
    // one meanwhile, which must not be overwritten by older sessions.
    this.watched(() =>
      this.db
        .prepare(
          `UPDATE scopes SET hour_start = ?, docs = ?, crc = ?, spans = ?, heads = ?, rest = ?, used_at = ?
            WHERE scope = ? AND digest = ? AND hour_start = ? AND kept_at = ?`,
        )
        .run(
          hourStart,
          sessions.docs,
          sessions.crc,
          bytesOf(sessions.spans),
          sessions.heads,
          sessions.rest,
          nowMs,
          scope,
          from.digest,
          from.hourStart,
          from.keptAt,
        ),
    );
  }

  /** Mark a scope used, so a busy one is not the next forgotten. */
  touchScope(scope: string, nowMs: number): void {
    this.watched(() => this.db.prepare('UPDATE scopes SET used_at = ? WHERE scope = ?').run(nowMs, scope));
  }

  /** Close the connection (again is harmless). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** A kept file as stored: a short array rather than an object per file. */
const FILE_FIELDS = 10;

type FileRow = [string, ProviderId, string, number, number, number, 0 | 1, 0 | 1, number, 0 | 1];

const fileRow = (f: KeptFile): FileRow => [
  f.path,
  f.provider,
  f.session,
  f.size,
  f.mtimeMs,
  f.ino,
  f.deleted ? 1 : 0,
  f.grouped ? 1 : 0,
  f.records,
  f.titled ? 1 : 0,
];

const fileOf = (r: FileRow): KeptFile => ({
  path: r[0],
  provider: r[1],
  session: r[2],
  size: r[3],
  mtimeMs: r[4],
  ino: r[5],
  deleted: r[6] === 1,
  grouped: r[7] === 1,
  records: r[8],
  titled: r[9] === 1,
});

const bytesOf = (a: Uint32Array | Int32Array | Uint8Array): Buffer =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength);

class NewerIndex extends Error {
  constructor(readonly version: number) {
    super(`schema ${version}`);
  }
}

/** The notice for a cache directory that cannot hold the index. */
function unusableDir(dir: string, err: unknown): string {
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
function cannotUse(path: string, err: unknown): string {
  return `the index at ${path} cannot be used (${describeFsError(err)}); reading without it`;
}

/**
 * Rename the damaged index at `path` (and its `-wal` and `-shm`) to `<path>.corrupt-<time>`, keeping
 * the newest `MAX_DAMAGED_KEPT`; says what it did. Leaves `path` alone when it is no longer the file
 * found damaged (`ino`): another cctop moved it first. Throws when it can be neither moved nor removed.
 */
function setAside(path: string, ino: number | null): string {
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
