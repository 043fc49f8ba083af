/**
 * The index's tables of built sessions. Per scope: what its last write saw (`scopes`: the discovery
 * digest, the problems, when it was kept), the build's sessions and cross-file inputs (`packs`: every
 * session's sealed record in one value, `packRows`), and what patches changed since that build
 * (`patched_sessions`: a row per session rebuilt or gone; `patched_files`: a row per file read). A
 * full build replaces the scope's pack and forgets its patches; a patch writes only its own rows and
 * the scope's small row, and only over the very build (or patch) it patched (`basedOn`). A reader
 * sees the pack with the patches laid over it, in the order a pack written afresh would hold them.
 * Once the patches grow past `MAX_PATCHED_ROWS`, the next patch writes the whole pack again instead.
 *
 * Kept sessions only save time: a read that fails or finds a row this code did not write answers
 * null (the caller then builds), never a guess. Damage (SQLite saying the file is not sound) is
 * noted by the store (`watched`) so the caller can drop the answer and ask a rebuilt index. Every
 * write is one transaction, and every read of a scope one read transaction: two cctops keeping at
 * once leave one of their writes, and a reader sees one of them, never a mix.
 *
 * Not here: opening, healing and the transcripts' rows (`store.ts`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  type KeptFile,
  type KeptFileChange,
  type KeptInputs,
  type KeptScope,
  MAX_KEPT_SCOPES,
  withChanges,
} from './kept.js';
import { bytesOf, fileOf, fileRow, isFileRow, sortedKeys, words } from './kept-rows.js';
import {
  decodeHeads,
  encodeRecord,
  type KeptHead,
  packRows,
  recordOfHead,
  type SealedRow,
  type SessionRecord,
  unpackRows,
} from './session-record.js';
import type { KeptProblem } from './sessions.js';

/** The tables, as the store creates them for its schema (`sessions` is the table of schemas before 3). */
export const KEPT_TABLES = `DROP TABLE IF EXISTS scopes;
  DROP TABLE IF EXISTS sessions;
  DROP TABLE IF EXISTS packs;
  DROP TABLE IF EXISTS patched_sessions;
  DROP TABLE IF EXISTS patched_files;
  CREATE TABLE scopes (scope TEXT PRIMARY KEY, digest TEXT NOT NULL, kept_at REAL NOT NULL, used_at REAL NOT NULL,
    problems TEXT NOT NULL);
  CREATE TABLE packs (scope TEXT PRIMARY KEY, sessions BLOB NOT NULL, files TEXT NOT NULL, keys BLOB NOT NULL,
    sorted BLOB NOT NULL, masks BLOB NOT NULL, summaries TEXT NOT NULL);
  CREATE TABLE patched_sessions (scope TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, record BLOB,
    crc INTEGER, PRIMARY KEY (scope, key));
  CREATE TABLE patched_files (scope TEXT NOT NULL, file INTEGER NOT NULL, row TEXT NOT NULL, mask BLOB NOT NULL,
    keys BLOB NOT NULL, PRIMARY KEY (scope, file));`;

/**
 * Patched rows (sessions and files) a scope holds beside its pack before a patch writes the whole
 * pack again. Each row costs every later read a value out of SQLite and a Buffer (about 15 µs: 4,000
 * rows cost a warm run 60 ms when sessions were kept a row each, 1.2 GiB bench history), so 512 cost
 * about 8 ms, while writing the pack again costs about 70 ms of CPU and 15 MB of disk for 4,000
 * sessions. An agent at work patches the same few sessions and files again and again, replacing
 * their rows: it never gets near this.
 */
export const MAX_PATCHED_ROWS = 512;

/** What a build (or a patch) leaves of its scope besides the sessions. */
export interface ScopeWrite {
  digest: string;
  problems: KeptProblem[];
  inputs: KeptInputs;
}

/** The build a patch read: what it patched, to be written over only if it is still the one kept. */
export interface PatchBase {
  keptAt: number;
  /** Every session it held, in its order. */
  heads: readonly KeptHead[];
  inputs: KeptInputs;
}

/** What a patch changed. */
export interface PatchWrite {
  digest: string;
  problems: KeptProblem[];
  /** The sessions it rebuilt, in its order. */
  changed: readonly SessionRecord[];
  /** The keys of the sessions that no longer exist. */
  removed: readonly string[];
  /** The files it read (`patch.ts` `files`). */
  files: readonly KeptFileChange[];
}

export class KeptTables {
  constructor(
    private readonly db: BetterSqlite3.Database,
    /** Runs a use of the database, noting damage (the store's `watched`). */
    private readonly watched: <T>(use: () => T) => T,
  ) {}

  /** What the last write in `scope` saw and found, or null. */
  scope(scope: string): KeptScope | null {
    return this.quietly(() => this.scopeRow(scope));
  }

  /**
   * The build kept for `scope` (with its patches): what it saw, and every session's head, read in
   * one transaction (so two cctops' writes never mix), or null when none is kept or a session does
   * not read.
   */
  build(scope: string): { scope: KeptScope; heads: KeptHead[] } | null {
    return this.reading(() => {
      const s = this.scopeRow(scope);
      const heads = s === null ? null : this.headsOf(scope);
      return s === null || heads === null ? null : { scope: s, heads };
    });
  }

  /** Every kept session's head in `scope`, or null when one does not read as this code writes it. */
  heads(scope: string): KeptHead[] | null {
    return this.reading(() => this.headsOf(scope));
  }

  /** Every kept record in `scope`, or null when one does not read as this code writes it. */
  records(scope: string): SessionRecord[] | null {
    const heads = this.heads(scope);
    if (heads === null) return null;
    const out: SessionRecord[] = [];
    for (const h of heads) {
      const r = recordOfHead(h);
      if (r === null) return null;
      out.push(r);
    }
    return out;
  }

  /**
   * What the build in `scope` (with its patches) decided across files, or null when damaged or
   * absent; with `keptAt`, also null unless that is still the write kept (so a patch reads the
   * inputs of the very build whose sessions it read).
   */
  inputs(scope: string, keptAt?: number): KeptInputs | null {
    return this.reading(() => {
      const at = this.keptAtOf(scope);
      if (keptAt !== undefined && at !== keptAt) return null;
      const base = this.packInputs(scope, at);
      const changes = base === null ? null : this.patchedFiles(scope);
      return base === null || changes === null ? null : withChanges(base, changes);
    });
  }

  /**
   * Record a full build: what it saw, its problems and every session (`pack`: `packRows` or
   * `packRecords`), replacing what the scope held, its patches too. Scopes beyond `MAX_KEPT_SCOPES`
   * are forgotten, least recently used first.
   */
  keep(scope: string, w: ScopeWrite, pack: Buffer, nowMs: number): void {
    const write = this.db.transaction(() => {
      this.writeScope(scope, w, pack, nowMs);
      const evicted = this.db
        .prepare('SELECT scope FROM scopes ORDER BY used_at DESC LIMIT -1 OFFSET ?')
        .all(MAX_KEPT_SCOPES) as { scope: string }[];
      for (const e of evicted) {
        this.db.prepare('DELETE FROM scopes WHERE scope = ?').run(e.scope);
        this.db.prepare('DELETE FROM packs WHERE scope = ?').run(e.scope);
        this.forgetPatches(e.scope);
      }
    });
    this.watched(() => write.immediate());
  }

  /**
   * Record a patch over `base`: its rebuilt sessions, the keys of the gone ones and the files it
   * read, beside the pack, with the scope's new digest and problems; or, once the scope holds
   * `MAX_PATCHED_ROWS` patched rows, every session and the whole inputs as a new pack. Returns
   * false, writing nothing, when another cctop kept a different build or patch meanwhile (a patch
   * of an older build must not overwrite it).
   */
  keepPatch(scope: string, base: PatchBase, w: PatchWrite, nowMs: number): boolean {
    const write = this.db.transaction(() => {
      if (this.keptAtOf(scope) !== base.keptAt) return false;
      const { n } = this.db
        .prepare(
          `SELECT (SELECT count(*) FROM patched_sessions WHERE scope = ?)
            + (SELECT count(*) FROM patched_files WHERE scope = ?) AS n`,
        )
        .get(scope, scope) as { n: number };
      // At most this many after the patch: a row written again replaces its own.
      if (n + w.changed.length + w.removed.length + w.files.length > MAX_PATCHED_ROWS)
        return this.fold(scope, base, w, nowMs);
      this.db
        .prepare('UPDATE scopes SET digest = ?, kept_at = ?, used_at = ?, problems = ? WHERE scope = ?')
        .run(w.digest, nowMs, nowMs, JSON.stringify(w.problems), scope);
      const { last } = this.db
        .prepare('SELECT coalesce(max(seq), 0) AS last FROM patched_sessions WHERE scope = ?')
        .get(scope) as { last: number };
      const put = this.db.prepare(
        'INSERT OR REPLACE INTO patched_sessions (scope, key, seq, record, crc) VALUES (?, ?, ?, ?, ?)',
      );
      // In the order a pack written afresh holds them: what the patch left, then what it rebuilt.
      let seq = last;
      for (const key of w.removed) put.run(scope, key, ++seq, null, null);
      for (const r of w.changed) {
        const sealed = encodeRecord(r);
        put.run(scope, r.key, ++seq, sealed.record, sealed.crc);
      }
      const file = this.db.prepare(
        'INSERT OR REPLACE INTO patched_files (scope, file, row, mask, keys) VALUES (?, ?, ?, ?, ?)',
      );
      for (const c of w.files)
        file.run(scope, c.index, JSON.stringify(fileRow(c.file)), bytesOf(c.mask), bytesOf(c.keys));
      return true;
    });
    return this.watched(() => write.immediate());
  }

  /** Mark a scope used, so a busy one is not the next forgotten. */
  touch(scope: string, nowMs: number): void {
    this.watched(() => this.db.prepare('UPDATE scopes SET used_at = ? WHERE scope = ?').run(nowMs, scope));
  }

  /** `keepPatch` writing the patched build as a new pack (inside its transaction). */
  private fold(scope: string, base: PatchBase, w: PatchWrite, nowMs: number): boolean {
    const inputs = withChanges(base.inputs, w.files);
    if (inputs === null) return false;
    const gone = new Set([...w.removed, ...w.changed.map((r) => r.key)]);
    const rows: SealedRow[] = [];
    for (const h of base.heads) if (!gone.has(h.key)) rows.push(h.sealed);
    for (const r of w.changed) rows.push(encodeRecord(r));
    this.writeScope(scope, { digest: w.digest, problems: w.problems, inputs }, packRows(rows), nowMs);
    return true;
  }

  private forgetPatches(scope: string): void {
    this.db.prepare('DELETE FROM patched_sessions WHERE scope = ?').run(scope);
    this.db.prepare('DELETE FROM patched_files WHERE scope = ?').run(scope);
  }

  private writeScope(scope: string, w: ScopeWrite, sessions: Buffer, nowMs: number): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO scopes (scope, digest, kept_at, used_at, problems) VALUES (?, ?, ?, ?, ?)',
      )
      .run(scope, w.digest, nowMs, nowMs, JSON.stringify(w.problems));
    this.db
      .prepare(
        'INSERT OR REPLACE INTO packs (scope, sessions, files, keys, sorted, masks, summaries) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        scope,
        sessions,
        JSON.stringify(w.inputs.files.map(fileRow)),
        bytesOf(w.inputs.keys),
        bytesOf(sortedKeys(w.inputs.keys)),
        bytesOf(w.inputs.masks),
        JSON.stringify(w.inputs.summaries),
      );
    this.forgetPatches(scope);
  }

  private scopeRow(scope: string): KeptScope | null {
    const row = this.db
      .prepare('SELECT digest, problems, kept_at, used_at FROM scopes WHERE scope = ?')
      .get(scope) as { digest: string; problems: string; kept_at: number; used_at: number } | undefined;
    if (!row) return null;
    const problems = JSON.parse(row.problems) as unknown;
    if (!Array.isArray(problems)) return null;
    return {
      digest: row.digest,
      problems: problems as KeptProblem[],
      keptAt: row.kept_at,
      usedAt: row.used_at,
    };
  }

  /**
   * The pack's heads with the patched sessions laid over them: the pack's sessions that no patch
   * rebuilt or removed, in the pack's order, then the rebuilt ones in the order they were written.
   * That is the order a patch writing the whole pack gives (`fold`), and no reader depends on more:
   * every answer sorts its sessions (`render.ts` `sortSessions`).
   */
  private headsOf(scope: string): KeptHead[] | null {
    const row = this.db.prepare('SELECT sessions FROM packs WHERE scope = ?').get(scope) as
      | { sessions: Buffer }
      | undefined;
    const rows = row ? unpackRows(row.sessions) : null;
    if (rows === null) return null;
    const patched = this.db
      .prepare('SELECT key, record, crc FROM patched_sessions WHERE scope = ? ORDER BY seq')
      .all(scope) as { key: unknown; record: unknown; crc: unknown }[];
    if (patched.length === 0) return decodeHeads(rows);
    const gone = new Set<string>();
    const rebuilt: { key: string; row: SealedRow }[] = [];
    for (const p of patched) {
      if (typeof p.key !== 'string') return null;
      gone.add(p.key);
      if (p.record === null && p.crc === null) continue;
      if (!Buffer.isBuffer(p.record) || typeof p.crc !== 'number') return null;
      rebuilt.push({ key: p.key, row: { record: p.record, crc: p.crc } });
    }
    const heads = decodeHeads([...rows, ...rebuilt.map((r) => r.row)]);
    if (heads === null) return null;
    const out = heads.slice(0, rows.length).filter((h) => !gone.has(h.key));
    for (const [i, r] of rebuilt.entries()) {
      const h = heads[rows.length + i]!;
      // A row under another session's key was not written by this code.
      if (h.key !== r.key) return null;
      out.push(h);
    }
    return out;
  }

  /** When the scope's last write was, or undefined when it holds none. */
  private keptAtOf(scope: string): number | undefined {
    return (this.db.prepare('SELECT kept_at FROM scopes WHERE scope = ?').get(scope) as { kept_at?: number })
      ?.kept_at;
  }

  /**
   * The inputs of the scope's pack, before its patches; `keptAt`: when the scope was last written, by
   * which its sorted keys are read later as this pack's, or not at all.
   */
  private packInputs(scope: string, keptAt: number | undefined): KeptInputs | null {
    const row = this.db
      .prepare('SELECT files, keys, length(sorted) AS sorted, masks, summaries FROM packs WHERE scope = ?')
      .get(scope) as
      | { files: string; keys: Buffer; sorted: number; masks: Buffer; summaries: string }
      | undefined;
    // Every key triple's key once in the sorted pairs.
    if (!row || row.keys.byteLength % 12 !== 0 || row.sorted * 3 !== row.keys.byteLength * 2) return null;
    const rows = JSON.parse(row.files) as unknown;
    if (!Array.isArray(rows)) return null;
    // One pass over the 3,800 rows (bench history): checked, read and their records counted.
    const files: KeptFile[] = new Array(rows.length);
    let records = 0;
    for (let i = 0; i < rows.length; i++) {
      const r: unknown = rows[i];
      if (!isFileRow(r)) return null;
      files[i] = fileOf(r);
      records += files[i]!.records;
    }
    const masks: Uint8Array = row.masks;
    if (records !== masks.length) return null;
    const keys = words(row.keys);
    return {
      files,
      keys,
      masks,
      summaries: JSON.parse(row.summaries) as [number, string][],
      index: { base: keys, sorted: this.sortedLater(scope, keptAt, row.sorted), patched: new Set() },
    };
  }

  /**
   * The pack's sorted keys (`bytes` of them), read when first asked and only if the scope still holds
   * the write they were counted in (`keptAt`); else null, and the proof looks at every triple instead.
   * A large append never asks: its 2.9 MB (1.2 GiB bench history) are then not copied out of SQLite.
   */
  private sortedLater(scope: string, keptAt: number | undefined, bytes: number): () => Uint32Array | null {
    const read = () => {
      if (keptAt === undefined || this.keptAtOf(scope) !== keptAt) return null;
      const b: unknown = this.db.prepare('SELECT sorted FROM packs WHERE scope = ?').pluck().get(scope);
      return Buffer.isBuffer(b) && b.byteLength === bytes ? words(b) : null;
    };
    let sorted: Uint32Array | null | undefined;
    return () => (sorted ??= this.reading(read));
  }

  /** The files patched since the pack, in `files` order, or null when one is not as this code writes it. */
  private patchedFiles(scope: string): KeptFileChange[] | null {
    const rows = this.db
      .prepare('SELECT file, row, mask, keys FROM patched_files WHERE scope = ? ORDER BY file')
      .all(scope) as { file: unknown; row: unknown; mask: unknown; keys: unknown }[];
    const out: KeptFileChange[] = [];
    for (const r of rows) {
      if (typeof r.file !== 'number' || typeof r.row !== 'string') return null;
      if (!Buffer.isBuffer(r.mask) || !Buffer.isBuffer(r.keys) || r.keys.byteLength % 12 !== 0) return null;
      const stored = JSON.parse(r.row) as unknown;
      if (!isFileRow(stored)) return null;
      const keys = words(r.keys);
      // Every key triple names its own file.
      for (let t = 0; t < keys.length; t += 3) if (keys[t] !== r.file) return null;
      out.push({ index: r.file, file: fileOf(stored), mask: r.mask, keys });
    }
    return out;
  }

  /** `read`'s answer in one read transaction, or null when it throws. */
  private reading<T>(read: () => T | null): T | null {
    return this.quietly(() => this.db.transaction(read)());
  }

  /** `read`'s answer, or null when it throws: kept sessions that do not read are not used. */
  private quietly<T>(read: () => T | null): T | null {
    try {
      return this.watched(read);
    } catch {
      return null;
    }
  }
}
