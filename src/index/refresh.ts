/**
 * The scan with its index: discover every transcript, reuse what the index already knows of the
 * files that did not change, read only the new bytes of the files that grew, re-read the ones that
 * were replaced or rewritten, and remember the files that disappeared.
 *
 * Deciding per file (append-only providers):
 *   same inode, size and mtime               → reuse the stored facts, read nothing
 *   same inode, grown, bytes before the old
 *     offset unchanged (hash of their tail)  → read from the stored offset only
 *   anything else (shrunk, replaced, edited) → read from zero
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { ProviderId } from '../model/facts.js';
import { ProblemLog } from '../model/problems.js';
import { recordListings } from '../providers/fsutil.js';
import type { Env, ParseResult, ProviderPlace, SourceFile } from '../providers/types.js';
import { crcPair } from './crc-pair.js';
import { type OnParsed, type ParseTask, parseMany, toRead } from './pool.js';
import { chosenProviders, type Discovery, discoverAll } from './scan.js';
import type { ParsedFile } from './sessions.js';
import type { DamagedRow, IndexStore, StoredFile } from './store.js';
import { parserVersion } from './version.js';

/** Bytes before the stored offset whose hash must still match for a grown file to be tailed. */
export const TAIL_HASH_BYTES = 4096;

/**
 * What every tail hash this code takes starts with. Older cctops stored a SHA-1 in base64, which has
 * no colon: such a row never matches, and its file is read once from the start, then tailed again.
 */
export const TAIL_HASH_PREFIX = 'c2:';

export interface ScanOptions {
  env: Env;
  providers: readonly ProviderId[] | null;
  /** Files last written before this are not read (the index still answers for them). */
  sinceMs: number | null;
  /** The open index, or null for a cold scan that neither reads nor writes it (`--no-cache`). */
  store: IndexStore | null;
  threads: number;
  /**
   * What a long-running cctop already holds from its last pass: used instead of loading the index,
   * which is then only written to (so other cctops see the new bytes too).
   */
  known?: Map<string, StoredFile>;
  /**
   * Answer from the index alone, reading nothing: a changed file is shown as the index last saw it
   * and a file it never saw is left out. For drawing at once, before the real pass.
   */
  indexOnly?: boolean;
  /**
   * Nothing will read these files again from what this pass learned (`--no-cache`, one shot): no
   * tail hashes are taken. A long-running view without an index still tails from what it keeps.
   */
  once?: boolean;
  /** Discovery the caller already ran, with the log its problems went to. */
  discovered?: { discovery: Discovery; problems: ProblemLog };
  /**
   * Told before the first file is read (with what the index already answers for) and after each batch
   * of files read, on this thread: a build goes on with what is read while the rest is being read.
   */
  onRead?: (r: ReadProgress) => void;
}

/** How far a pass's reading is, and the files it just brought up to date. */
export interface ReadProgress {
  /** Files read so far, of how many this pass reads. */
  files: number;
  filesTotal: number;
  /** Bytes read so far, of how many. */
  bytes: number;
  bytesTotal: number;
  /** The files that became known since the last call: first the reused ones, then each batch read. */
  fresh: readonly ParsedFile[];
  /** Every file this pass reads (the same list at every call). */
  reading: readonly SourceFile[];
}

export interface ScanOutcome {
  discovery: Discovery;
  files: ParsedFile[];
  problems: ProblemLog;
  stats: { reused: number; tailed: number; read: number; deleted: number; bytesRead: number; gone: number };
  /** Every file known after this pass, for the next one. */
  known: Map<string, StoredFile>;
  /** Every directory discovery listed (a long-running view watches them). */
  listed: Set<string>;
}

/**
 * Hash of up to `TAIL_HASH_BYTES` bytes before `offset`, or null at offset 0: their CRC-32 forward
 * and reversed (`crc-pair.ts`), a 64-bit check without loading `node:crypto`.
 */
export function tailHash(path: string, offset: number): string | null {
  if (offset <= 0) return null;
  const len = Math.min(TAIL_HASH_BYTES, offset);
  const buf = Buffer.allocUnsafe(len);
  const fd = openSync(path, 'r');
  try {
    const got = readSync(fd, buf, 0, len, offset - len);
    if (got !== len) return 'short';
  } finally {
    closeSync(fd);
  }
  const [forward, backward] = crcPair(buf);
  return `${TAIL_HASH_PREFIX}${forward.toString(16).padStart(8, '0')}${backward.toString(16).padStart(8, '0')}`;
}

function unchanged(f: SourceFile, r: ParseResult): boolean {
  return f.ino === r.ino && f.size === r.size && f.mtimeMs === r.mtimeMs;
}

export function asParsed(row: StoredFile, deleted: boolean): ParsedFile {
  return {
    file: {
      provider: row.provider,
      path: row.path,
      root: row.root,
      sessionHint: row.sessionHint,
      role: row.role,
      size: row.result.size,
      mtimeMs: row.result.mtimeMs,
      ino: row.result.ino,
    },
    result: row.result,
    deleted,
  };
}

/**
 * What is known of the files under `roots`: what the last pass left (`known`), or the index's rows,
 * with those it holds but cannot decode (`DamagedRow`): a file still here is then read again and its
 * row written anew; a file gone has its row dropped.
 */
function storedUnder(
  o: ScanOptions,
  roots: readonly string[],
): { stored: Map<string, StoredFile>; damaged: DamagedRow[] } {
  if (o.known !== undefined) return { stored: o.known, damaged: [] };
  const stored = new Map<string, StoredFile>();
  const damaged: DamagedRow[] = [];
  for (const row of o.store?.load(roots, damaged) ?? []) stored.set(row.path, row);
  return { stored, damaged };
}

/** The damaged rows to drop: those of files gone, of a harness this pass reads (nothing can read them again). */
function droppedRows(
  damaged: readonly DamagedRow[],
  seen: Set<string>,
  providers: readonly ProviderPlace[],
): string[] {
  return damaged
    .filter((d) => !seen.has(d.path) && providers.some((p) => p.id === d.provider))
    .map((d) => d.path);
}

export async function scanFiles(o: ScanOptions): Promise<ScanOutcome> {
  const problems = o.discovered?.problems ?? new ProblemLog();
  const providers: ProviderPlace[] = chosenProviders(o.providers);
  const byId = new Map(providers.map((p) => [p.id, p]));
  const listed = new Set<string>();
  const discovery =
    o.discovered?.discovery ?? recordListings(listed, () => discoverAll(o.env, providers, problems));
  const stats = { reused: 0, tailed: 0, read: 0, deleted: 0, bytesRead: 0, gone: 0 };

  const store = o.store;
  {
    const roots = [...new Set(discovery.roots.map((r) => r.path))];
    const { stored, damaged } = storedUnder(o, roots);
    const damagedPaths = new Set(damaged.map((d) => d.path));
    const known = new Map<string, StoredFile>();

    const out: ParsedFile[] = [];
    const tasks: ParseTask[] = [];
    const seen = new Set<string>();
    for (const f of discovery.files) {
      seen.add(f.path);
      const row = stored.get(f.path);
      const current =
        row !== undefined &&
        !row.deleted &&
        row.parser === parserVersion(f.provider) &&
        row.provider === f.provider;
      if (current && (unchanged(f, row.result) || o.indexOnly === true)) {
        out.push({ file: f, result: row.result });
        known.set(f.path, row);
        stats.reused++;
        continue;
      }
      if (o.indexOnly === true) continue;
      // Not in the index and too old to matter for --since: not worth reading. A damaged row's file
      // is in the index, and is read: left damaged, its row would be counted but never loaded.
      if (row === undefined && !damagedPaths.has(f.path) && o.sinceMs !== null && f.mtimeMs < o.sinceMs)
        continue;
      const task = taskFor(f, current ? row : undefined, byId.get(f.provider)?.appendOnly === true, store);
      tasks.push(task);
      if (task.previous) stats.tailed++;
      else stats.read++;
      stats.bytesRead += f.size - (task.previous?.offset ?? 0);
    }

    const reading = tasks.map((t) => t.file);
    const progress = {
      files: 0,
      filesTotal: tasks.length,
      bytes: 0,
      bytesTotal: tasks.reduce((n, t) => n + toRead(t), 0),
      reading,
    };
    o.onRead?.({ ...progress, fresh: out.slice() });
    // Each batch is written to the index as it comes back, while the workers read the next ones,
    // rather than all of it after the last: the first failure stops the writing (said once, below).
    const saving: { error: Error | null } = { error: null };
    const save = (batch: readonly Fresh[], gone: readonly string[], dropped: readonly string[]): void => {
      if (store === null || saving.error !== null || batch.length + gone.length + dropped.length === 0)
        return;
      try {
        store.save([...batch], gone, dropped);
      } catch (err) {
        saving.error = err as Error;
      }
    };
    const onFresh = (batch: readonly Fresh[], done: readonly number[]): void => {
      save(batch, [], []);
      if (o.onRead === undefined) return;
      for (const i of done) {
        progress.files++;
        progress.bytes += toRead(tasks[i]!);
      }
      o.onRead({ ...progress, fresh: batch.map((r) => ({ file: r.file, result: r.result })) });
    };
    const fresh = await parseTasks(tasks, o.threads, problems, store !== null || o.once !== true, onFresh);
    for (const r of fresh) {
      out.push({ file: r.file, result: r.result });
      known.set(r.file.path, storedOf(r));
    }

    const gone: string[] = [];
    for (const row of stored.values()) {
      if (seen.has(row.path) || !byId.has(row.provider)) continue;
      if (!row.deleted) gone.push(row.path);
      out.push(asParsed(row, true));
      known.set(row.path, { ...row, deleted: true });
      stats.deleted++;
    }
    stats.gone = gone.length;
    save([], gone, droppedRows(damaged, seen, providers));
    if (store && saving.error !== null) {
      // Another cctop held the index too long, or the disk is full: this answer is still right.
      problems.add({
        kind: 'cache',
        path: store.path,
        count: null,
        detail: `could not update the index: ${saving.error.message}`,
      });
    }
    return { discovery, files: out, problems, stats, known, listed };
  }
}

/**
 * How to bring a file up to date from its stored row (one this parser wrote, or none): from the
 * stored offset when the file only grew, else from the start.
 */
export function taskFor(
  f: SourceFile,
  row: StoredFile | undefined,
  appendOnly: boolean,
  store: IndexStore | null,
): ParseTask {
  const tailable =
    row !== undefined &&
    appendOnly &&
    f.ino === row.result.ino &&
    f.size >= row.result.offset &&
    row.result.offset > 0 &&
    tailHashOrNull(f.path, row.result.offset) === row.tailHash;
  if (!tailable) return { file: f, previous: null };
  // Rows loaded from the index leave their carried state behind until it is needed: now. A file
  // this process read itself still holds it.
  const carry = row.result.carry ?? store?.carryOf(f.path) ?? null;
  return { file: f, previous: { ...row.result, carry } };
}

export interface Fresh {
  file: SourceFile;
  parser: string;
  tailHash: string | null;
  result: ParseResult;
}

/**
 * Parse the tasks; what could not be read is logged in `problems` and left out. The tail hashes a
 * later pass checks before tailing are taken only when something will keep them (`hashTails`).
 */
export async function parseTasks(
  tasks: ParseTask[],
  threads: number,
  problems: ProblemLog,
  hashTails = true,
  /** Told of each batch as it is read (the files read, and their indexes into `tasks`). */
  onFresh?: (batch: readonly Fresh[], done: readonly number[]) => void,
): Promise<Fresh[]> {
  const byTask: (Fresh | null)[] = new Array(tasks.length).fill(null);
  const freshOf = (i: number, result: ParseResult): Fresh => {
    const file = tasks[i]!.file;
    const tailHash = hashTails ? tailHashOrNull(file.path, result.offset) : null;
    return { file, parser: parserVersion(file.provider), tailHash, result };
  };
  const onParsed: OnParsed | undefined =
    onFresh === undefined
      ? undefined
      : (done, results) => {
          const batch: Fresh[] = [];
          for (const i of done) {
            const result = results[i];
            if (!result) continue;
            byTask[i] = freshOf(i, result);
            batch.push(byTask[i]!);
          }
          onFresh(batch, done);
        };
  const results = await parseMany(tasks, threads, problems, onParsed);
  const fresh: Fresh[] = [];
  results.forEach((result, i) => {
    if (result === null) return;
    fresh.push(byTask[i] ?? freshOf(i, result));
  });
  return fresh;
}

/** The index row of a file just parsed. */
export function storedOf(r: Fresh): StoredFile {
  return {
    path: r.file.path,
    provider: r.file.provider,
    root: r.file.root,
    sessionHint: r.file.sessionHint,
    role: r.file.role,
    parser: r.parser,
    tailHash: r.tailHash,
    deleted: false,
    result: r.result,
  };
}

function tailHashOrNull(path: string, offset: number): string | null {
  try {
    return tailHash(path, offset);
  } catch {
    return null;
  }
}
