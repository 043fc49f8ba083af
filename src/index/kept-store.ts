/**
 * The index's table of built sessions: per scope one row of what the build saw and every session's
 * sealed record (packed: `packRows`). A full build replaces a scope's row; a patch writes it again
 * with its rebuilt sessions, and only over the very build it patched.
 *
 * Kept sessions only save time: a read that fails or finds a row this code did not write answers
 * null (the caller then builds), never a guess. Damage (SQLite saying the file is not sound) is
 * noted by the store (`watched`) so the caller can drop the answer and ask a rebuilt index.
 *
 * Not here: opening, healing and the transcripts' rows (`store.ts`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ProviderId } from '../model/facts.js';
import { type KeptFile, type KeptInputs, type KeptScope, MAX_KEPT_SCOPES, TITLES_UNKNOWN } from './kept.js';
import {
  decodeHeads,
  encodeRecord,
  type KeptHead,
  packRows,
  recordOfHead,
  type SessionRecord,
  unpackRows,
} from './session-record.js';
import type { KeptProblem } from './sessions.js';

/** The tables, as the store creates them for its schema. */
export const KEPT_TABLES = `DROP TABLE IF EXISTS scopes;
  DROP TABLE IF EXISTS sessions;
  CREATE TABLE scopes (scope TEXT PRIMARY KEY, digest TEXT NOT NULL, kept_at REAL NOT NULL, used_at REAL NOT NULL,
    problems TEXT NOT NULL, sessions BLOB NOT NULL, files TEXT NOT NULL, keys BLOB NOT NULL, masks BLOB NOT NULL,
    summaries TEXT NOT NULL);`;

/** What a build (or a patch) leaves of its scope besides the sessions. */
export interface ScopeWrite {
  digest: string;
  problems: KeptProblem[];
  inputs: KeptInputs;
}

export class KeptTables {
  constructor(
    private readonly db: BetterSqlite3.Database,
    /** Runs a use of the database, noting damage (the store's `watched`). */
    private readonly watched: <T>(use: () => T) => T,
  ) {}

  /** What the last build in `scope` saw and found, or null. */
  scope(scope: string): KeptScope | null {
    return this.quietly(() => {
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
    });
  }

  /**
   * The build kept for `scope`: what it saw, and every session's head, from one row (so two cctops'
   * writes never mix), or null when none is kept or a session does not read.
   */
  build(scope: string): { scope: KeptScope; heads: KeptHead[] } | null {
    const s = this.scope(scope);
    const heads = s === null ? null : this.heads(scope);
    return s === null || heads === null ? null : { scope: s, heads };
  }

  /** Every kept session's head in `scope`, or null when one does not read as this code writes it. */
  heads(scope: string): KeptHead[] | null {
    return this.quietly(() => {
      const row = this.db.prepare('SELECT sessions FROM scopes WHERE scope = ?').get(scope) as
        | { sessions: Buffer }
        | undefined;
      const rows = row ? unpackRows(row.sessions) : null;
      return rows === null ? null : decodeHeads(rows);
    });
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

  /** What the last build in `scope` decided across files, or null when damaged or absent. */
  inputs(scope: string): KeptInputs | null {
    return this.quietly(() => {
      const row = this.db
        .prepare('SELECT files, keys, masks, summaries FROM scopes WHERE scope = ?')
        .get(scope) as { files: string; keys: Buffer; masks: Buffer; summaries: string } | undefined;
      if (!row || row.keys.byteLength % 12 !== 0) return null;
      const rows = JSON.parse(row.files) as unknown;
      if (!Array.isArray(rows) || !rows.every(isFileRow)) return null;
      const files = rows.map(fileOf);
      const masks: Uint8Array = row.masks;
      if (files.reduce((n, f) => n + f.records, 0) !== masks.length) return null;
      return {
        files,
        keys: words(row.keys),
        masks,
        summaries: JSON.parse(row.summaries) as [number, string][],
      };
    });
  }

  /**
   * Record a full build: what it saw, its problems and every session (`pack`: `packRows` or
   * `packRecords`), replacing what the scope held (in one transaction, so two cctops keeping at once leave one of their builds, never a mix).
   * Scopes beyond `MAX_KEPT_SCOPES` are forgotten, least recently used first.
   */
  keep(scope: string, w: ScopeWrite, pack: Buffer, nowMs: number): void {
    const write = this.db.transaction(() => {
      this.writeScope(scope, w, pack, nowMs);
      const evicted = this.db
        .prepare('SELECT scope FROM scopes ORDER BY used_at DESC LIMIT -1 OFFSET ?')
        .all(MAX_KEPT_SCOPES) as { scope: string }[];
      for (const e of evicted) {
        this.db.prepare('DELETE FROM scopes WHERE scope = ?').run(e.scope);
      }
    });
    this.watched(() => write.immediate());
  }

  /**
   * Record a patch over the build kept at `basedOn`: the sessions it kept as they were (`unchanged`,
   * written again as sealed), the ones it rebuilt, and the scope's new digest, problems and inputs.
   * Returns false, writing nothing, when another cctop kept a different build meanwhile (a patch of
   * an older build must not overwrite it).
   */
  keepPatch(
    scope: string,
    basedOn: number,
    w: ScopeWrite,
    unchanged: readonly KeptHead[],
    changed: readonly SessionRecord[],
    nowMs: number,
  ): boolean {
    const write = this.db.transaction(() => {
      const row = this.db.prepare('SELECT kept_at FROM scopes WHERE scope = ?').get(scope) as
        | { kept_at: number }
        | undefined;
      if (row?.kept_at !== basedOn) return false;
      const sessions = packRows([...unchanged.map((h) => h.sealed), ...changed.map(encodeRecord)]);
      this.writeScope(scope, w, sessions, nowMs);
      return true;
    });
    return this.watched(() => write.immediate());
  }

  /** Mark a scope used, so a busy one is not the next forgotten. */
  touch(scope: string, nowMs: number): void {
    this.watched(() => this.db.prepare('UPDATE scopes SET used_at = ? WHERE scope = ?').run(nowMs, scope));
  }

  private writeScope(scope: string, w: ScopeWrite, sessions: Buffer, nowMs: number): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO scopes (scope, digest, kept_at, used_at, problems, sessions, files, keys, masks,
          summaries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        scope,
        w.digest,
        nowMs,
        nowMs,
        JSON.stringify(w.problems),
        sessions,
        JSON.stringify(w.inputs.files.map(fileRow)),
        bytesOf(w.inputs.keys),
        bytesOf(w.inputs.masks),
        JSON.stringify(w.inputs.summaries),
      );
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

/**
 * A kept file as stored: a short array rather than an object per file (4,000 of them per scope).
 * The last field is the digest of its summaries, or 0 for none (1, from before the digest: some).
 */
type FileRow = [string, ProviderId, string, number, number, number, 0 | 1, 0 | 1, number, string | 0 | 1];

const FILE_FIELDS = 10;

const isFileRow = (r: unknown): r is FileRow => Array.isArray(r) && r.length === FILE_FIELDS;

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
  f.titles ?? 0,
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
  titles: titlesOfRow(r[9]),
});

/** A stored summaries field as a digest: anything but a digest or 0 reads as summaries unknown. */
function titlesOfRow(v: unknown): string | null {
  if (typeof v === 'string') return v;
  return v === 0 ? null : TITLES_UNKNOWN;
}

const bytesOf = (a: Uint32Array | Uint8Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** A blob of 32-bit numbers, copied so it is aligned whatever SQLite handed back. */
function words(blob: Buffer): Uint32Array {
  const n = Math.floor(blob.byteLength / 4);
  const out = new Uint32Array(n);
  new Uint8Array(out.buffer).set(blob.subarray(0, n * 4));
  return out;
}
