/**
 * What the index did with the rows it could not decode (a torn write, a bad disk): dropped, when the
 * transcript was gone, or read again from the transcript. A build heals them silently and answers
 * as a cold read would; `cctop doctor` says it happened, so a disk that tears writes is noticed.
 *
 * The counts live in the index's own `meta` table, written in the transaction that drops or rewrites
 * the rows: the build that healed them is often a plain `cctop --json` that prints nothing of it,
 * and the doctor run after it must still know. In the index, the counts cannot disagree with what
 * was done (a write that fails leaves both as they were), go with the index when it is set aside or
 * rebuilt (a new index has met no damage), and need no file of their own to keep private.
 *
 * Only a row a build loads is checked, and only one it then drops or rewrites is counted: an index
 * made by a cctop before this record has none, and doctor then says nothing rather than a zero it
 * never counted. Not here: deciding what to drop or read again (`refresh.ts`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { parseJson } from '../model/json.js';
import { sqliteModule } from '../sqlite-module.js';
import { type DamagedRow, damagedRow, ROW_COLUMNS, type Row, storedRow } from './file-row.js';

/** The `meta` key the counts are kept under. */
export const ROW_DAMAGE_KEY = 'damaged-rows';

export interface RowDamage {
  /** Rows dropped: their transcript was gone, so nothing could read them again. */
  dropped: number;
  /** Rows whose transcript was read again from its start, and the row written anew. */
  readAgain: number;
  /** Counted since the index was made, or since this time (ms) on an index made before the count. */
  since: 'made' | number;
}

/** What a new index records: nothing met yet, counted from its start. */
export const NO_DAMAGE_YET: RowDamage = { dropped: 0, readAgain: 0, since: 'made' };

const counted = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;

/** The counts as the `meta` table holds them, or null when there are none (or they do not read). */
export function readRowDamage(value: string | undefined): RowDamage | null {
  if (value === undefined) return null;
  const v = parseJson(value);
  if (typeof v !== 'object' || v === null) return null;
  const dropped = counted(Reflect.get(v, 'dropped'));
  const readAgain = counted(Reflect.get(v, 'readAgain'));
  const since: unknown = Reflect.get(v, 'since');
  const from = since === 'made' ? 'made' : counted(since);
  // A time doctor can print: past the last date JavaScript holds, `toISOString` throws.
  if (typeof from === 'number' && Number.isNaN(new Date(from).getTime())) return null;
  if (dropped === null || readAgain === null || from === null) return null;
  return { dropped, readAgain, since: from };
}

/** `before` with these rows added; counted from `nowMs` when nothing was counted before. */
export function addRowDamage(
  before: RowDamage | null,
  dropped: number,
  readAgain: number,
  nowMs: number,
): RowDamage {
  const b = before ?? { dropped: 0, readAgain: 0, since: nowMs };
  return { dropped: b.dropped + dropped, readAgain: b.readAgain + readAgain, since: b.since };
}

const writeRowDamage = (db: BetterSqlite3.Database, d: RowDamage): void => {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(ROW_DAMAGE_KEY, JSON.stringify(d));
};

/** A new `files` table: none of its rows damaged yet, and damage counted from here. */
export function startRowDamage(db: BetterSqlite3.Database): void {
  writeRowDamage(db, NO_DAMAGE_YET);
}

/** A file a save writes: its row is rewritten. */
type Rewritten = { file: { path: string } };

/**
 * The rows one connection found too damaged to decode, and their count once a save acts on them: a
 * row it rewrites (read again) or drops, still damaged as it writes (another cctop that healed it
 * first counted it itself). Empty, and costing nothing, but for an index that holds such rows.
 */
export class RowDamageCount {
  private readonly paths = new Set<string>();

  /** A row that did not decode (by the columns that still name its file). */
  found(r: Row): DamagedRow {
    this.paths.add(r.path);
    return damagedRow(r);
  }

  /** Inside a save's transaction, before its writes: add the rows it heals to the index's counts. */
  count(
    db: BetterSqlite3.Database,
    rewritten: readonly Rewritten[],
    dropped: readonly string[],
    nowMs: number,
  ): void {
    if (this.paths.size === 0) return;
    const get = db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE path = ?`);
    const stillDamaged = (path: string): boolean => {
      if (!this.paths.has(path)) return false;
      const r = get.get(path) as Row | undefined;
      return r !== undefined && storedRow(r) === null;
    };
    const readAgain = rewritten.filter((p) => stillDamaged(p.file.path)).length;
    const gone = dropped.filter(stillDamaged).length;
    if (readAgain + gone === 0) return;
    const row: unknown = db.prepare('SELECT value FROM meta WHERE key = ?').get(ROW_DAMAGE_KEY);
    const value: unknown = typeof row === 'object' && row !== null ? Reflect.get(row, 'value') : undefined;
    const before = readRowDamage(typeof value === 'string' ? value : undefined);
    writeRowDamage(db, addRowDamage(before, gone, readAgain, nowMs));
  }

  /** After a save is written: its rows are healed. */
  settled(rewritten: readonly Rewritten[], dropped: readonly string[]): void {
    if (this.paths.size === 0) return;
    for (const p of rewritten) this.paths.delete(p.file.path);
    for (const path of dropped) this.paths.delete(path);
  }
}

/**
 * What the index at `path` recorded (`cctop doctor`), read without writing; null when it recorded
 * nothing or cannot be read (a missing or damaged index is doctor's `Index` problem, said there).
 */
export function recordedRowDamage(path: string): RowDamage | null {
  const { Database, options } = sqliteModule();
  let db: InstanceType<typeof Database> | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, ...options });
    const row: unknown = db.prepare('SELECT value FROM meta WHERE key = ?').get(ROW_DAMAGE_KEY);
    const value: unknown = typeof row === 'object' && row !== null ? Reflect.get(row, 'value') : undefined;
    return readRowDamage(typeof value === 'string' ? value : undefined);
  } catch {
    // No index yet, one from before the meta table, or one that cannot be opened: nothing recorded
    // here, and whatever is wrong with the index is reported by the run's own use of it.
    return null;
  } finally {
    db?.close();
  }
}
