/**
 * The warm snapshot: beside the index, one file per scope holding what a warm one-shot prints, so
 * that `cctop --json`, `--list` or `cctop daily --json` with nothing changed costs one read, one freshness
 * check, the live fields joined and one write. It is written when a one-shot's refresh settles
 * (kept, patched or built) and holds, in the document's order, each session's sealed record (the
 * bytes the index keeps: facts as printed text, spend, usage cells) and what is shown of it without
 * parsing anything (its head), apart from them the few facts a `cctop --list` row reads (so the list
 * needs no session document), with the totals, the problems as a build keeps them, and, first,
 * what discovery saw: every directory it asked to list with the time it had, and every transcript
 * touched in the last hour with its size, time and inode (read and checked before the rest, which a
 * snapshot no longer fresh then never has read). A patched answer is not kept while transcripts are
 * still being written (`keep-one-shot.ts`).
 *
 * Fresh means: the same scope (options, roots, prices, code, settings, day), every directory with
 * the same time (nothing added, removed or renamed in it), every transcript touched in the last hour
 * with the same size, time and inode, and a full look (a refresh through the index, which lists every
 * directory and stats every transcript) at most a minute ago. Anything else declines with its reason
 * and the index answers, as it always did. What this can miss, and for how long, is in
 * docs/limits.md.
 *
 * Loads no SQLite, no provider and no parser: only the printer, the places (to know the roots) and
 * the scope. Not here: deciding when a refresh may use the index (`session-index.ts`), the document's
 * printing rules (`render.ts`), the file's layout (`warm-layout.ts`), answering from a fresh
 * snapshot (`warm-snapshot.ts`).
 */
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writevSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { LocalTime } from '../model/time.js';
import { totalsOfTallies } from '../model/totals.js';
import { totalTokens } from '../model/usage.js';
import { cacheDir } from '../paths.js';
import type { Env, SourceFile } from '../providers/types.js';
import type { KeptProblem } from './build-problems.js';
import { loadCatalogue } from './catalogue.js';
import { anyUnpriced, type Held } from './held.js';
import { chosenProviders } from './scan.js';
import { rootPaths, scopeOf } from './scope.js';
import { seenMoved } from './seen-moved.js';
import { GROWING_MS, SWEEP_EVERY_MS } from './warm-doc-layout.js';
import {
  DIGEST_CHARS,
  headerOf,
  type ListedRow,
  PREFIX_BYTES,
  SEEN_LENGTH_AT,
  seenOf,
  WARM_FORMAT,
  type WarmHeader,
  type WarmSeen,
  type WarmSession,
} from './warm-layout.js';
import { type WarmOptions, WarmSnapshot } from './warm-snapshot.js';

// The freshness rules, shared with the warm document's reader (`../warm-answer.ts`).
export { GROWING_MS, SWEEP_EVERY_MS };

// ---- Writing -----------------------------------------------------------------------------------

/** What a settled one-shot refresh hands over to be kept warm. */
export interface WarmAnswer {
  env: Env;
  scope: string;
  /** The discovery digest: a snapshot with the same one holds the same sessions. */
  digest: string;
  nowMs: number;
  /** When the last full look behind it was: the file's time, which the readers trust for `SWEEP_EVERY_MS`. */
  sweptAt: number;
  /** Whether the answer came from the kept build unchanged (then a snapshot of the same digest is it). */
  unchanged: boolean;
  looked: ReadonlyMap<string, number>;
  files: readonly SourceFile[];
  held: readonly Held[];
  problems: KeptProblem[];
}

export function warmPath(env: Env, scope: string): string {
  return join(cacheDir(env), `warm-${scope}.snap`);
}

/**
 * Keep `a` as the snapshot of its scope, or, when the snapshot there already holds this answer, only
 * mark it as looked at now (its file time is when the last full look was). Never throws: the
 * snapshot only saves time, and the index answered already.
 */
export function keepWarm(a: WarmAnswer): void {
  const path = warmPath(a.env, a.scope);
  try {
    if (a.unchanged && digestOf(path) === a.digest) {
      utimesSync(path, a.sweptAt / 1000, a.sweptAt / 1000);
      return;
    }
    const sessions: WarmSession[] = [];
    const records: Buffer[] = [];
    const listed: ListedRow[] = [];
    let at = 0;
    for (const h of a.held) {
      const record = h.sealed();
      const l = h.listed();
      listed.push([
        l.startedAt,
        l.title,
        l.model,
        l.used,
        l.compactAt,
        totalTokens(h.tally.tokens),
        h.tally.included,
        anyUnpriced(h),
        l.rateLimits ?? null,
      ]);
      sessions.push({
        provider: h.provider,
        id: h.id,
        file: h.file,
        project: h.project,
        lastActiveAt: h.lastActiveAt,
        deleted: h.deleted,
        live: h.live,
        usd: h.tally.usd,
        start: at,
        length: record.length,
      });
      records.push(record);
      at += record.length;
    }
    const list = Buffer.from(JSON.stringify(listed));
    // Only the transcripts the reader checks (`seenMoved`): one older than `GROWING_MS` now is older then.
    const seen: WarmSeen = {
      dirs: [...a.looked],
      files: a.files
        .filter((f) => a.nowMs - f.mtimeMs <= GROWING_MS)
        .map((f) => [f.path, f.size, f.mtimeMs, f.ino]),
    };
    const seenBytes = Buffer.from(JSON.stringify(seen));
    const header: WarmHeader = {
      format: WARM_FORMAT,
      scope: a.scope,
      takenAt: a.nowMs,
      problems: a.problems,
      totals: totalsOfTallies(a.held.map((h) => h.tally)),
      sessions,
      listedBytes: list.length,
    };
    // Session text is ASCII already (the records are); the header's paths may not be.
    const head = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(PREFIX_BYTES);
    // The body is never joined into one buffer (11 MB for 4,000 sessions, at a first build's memory
    // peak): its CRC runs over the parts in turn and they are written as they are.
    const body = [seenBytes, head, list, ...records];
    let crc = 0;
    for (const part of body) crc = crc32(part, crc);
    prefix.writeUInt32LE(head.length, 0);
    prefix.writeUInt32LE(crc >>> 0, 4);
    prefix.write(a.digest.slice(0, DIGEST_CHARS).padEnd(DIGEST_CHARS), 8, 'latin1');
    prefix.writeUInt32LE(seenBytes.length, SEEN_LENGTH_AT);
    const tmp = `${path}.${process.pid}.tmp`;
    writeParts(tmp, [prefix, ...body]);
    utimesSync(tmp, a.sweptAt / 1000, a.sweptAt / 1000);
    renameSync(tmp, path);
    forgetOthers(cacheDir(a.env));
  } catch {
    // A full disk or a read-only cache: every run then answers through the index, as before.
  }
}

/**
 * Write `parts` one after the other as the whole of a new file at `path`, in one gathered write
 * (libuv writes every part, in batches of the system's limit, or fails). A short write is an error:
 * the caller then keeps no snapshot, and the partial file is removed.
 */
function writeParts(path: string, parts: readonly Buffer[]): void {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const fd = openSync(path, 'w');
  try {
    const wrote = writevSync(fd, parts);
    if (wrote !== total) throw new Error(`wrote ${wrote} of ${total} bytes`);
  } catch (err) {
    closeSync(fd);
    unlinkSync(path);
    throw err;
  }
  closeSync(fd);
}

/**
 * Snapshots kept at once, as the index keeps scopes (`MAX_KEPT_SCOPES`): a new day is a new scope, and
 * a snapshot is the size of the index's records (11 MB for 4,000 sessions), so the least recently
 * looked at go first.
 */
export const MAX_WARM_SNAPSHOTS = 4;

function forgetOthers(dir: string): void {
  const kept = readdirSync(dir)
    .filter((n) => n.startsWith('warm-') && n.endsWith('.snap'))
    .map((n) => ({ path: join(dir, n), at: statSync(join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((x, y) => y.at - x.at);
  for (const k of kept.slice(MAX_WARM_SNAPSHOTS)) unlinkSync(k.path);
}

/** The discovery digest a snapshot was written for, or null when there is none. */
function digestOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // No snapshot yet.
    return null;
  }
  try {
    const b = Buffer.alloc(PREFIX_BYTES);
    return readSync(fd, b, 0, PREFIX_BYTES, 0) === PREFIX_BYTES
      ? b.toString('latin1', 8, 8 + DIGEST_CHARS).trimEnd()
      : null;
  } finally {
    closeSync(fd);
  }
}

// ---- Reading -----------------------------------------------------------------------------------

export type WarmReading =
  | { kind: 'answered'; snapshot: WarmSnapshot }
  | { kind: 'declined'; strategy: 'snapshot'; reason: string };

const declined = (reason: string): WarmReading => ({ kind: 'declined', strategy: 'snapshot', reason });

/** The snapshot of these options, when it can be proved fresh now; else why not. */
export function readWarm(o: WarmOptions): WarmReading {
  const time = new LocalTime(o.timeZone);
  const places = chosenProviders(o.providers);
  const catalogue = loadCatalogue(o.env);
  const scope = scopeOf(o, places, rootPaths(o.env, places), catalogue.digest, time, o.nowMs);
  const path = warmPath(o.env, scope);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Nothing kept warm for these options yet.
    return declined('no snapshot is kept for these options');
  }
  // What was seen is read and checked first: a snapshot that is no longer fresh is left unread.
  let opened: Opened;
  try {
    opened = openedSnapshot(fd, o.nowMs);
  } catch {
    // Unreadable: the index answers, and writes it again.
    return declined('the snapshot cannot be read');
  } finally {
    closeSync(fd);
  }
  if (opened.kind === 'declined') return declined(opened.reason);
  if (opened.kind === 'damaged') return discarded(path, opened.reason);
  const { b, seenBytes } = opened;
  const headBytes = b.readUInt32LE(0);
  const headAt = PREFIX_BYTES + seenBytes;
  if (headAt + headBytes > b.length || crc32(b.subarray(PREFIX_BYTES)) >>> 0 !== b.readUInt32LE(4))
    return discarded(path, 'the snapshot is damaged');
  const header = headerOf(b.toString('utf8', headAt, headAt + headBytes));
  if (header === null) return discarded(path, 'the snapshot is of another version');
  if (header.scope !== scope) return discarded(path, 'the snapshot is of other options');
  const listAt = headAt + headBytes;
  if (listAt + header.listedBytes > b.length) return discarded(path, 'the snapshot is damaged');
  const list = b.subarray(listAt, listAt + header.listedBytes);
  return {
    kind: 'answered',
    snapshot: new WarmSnapshot(header, list, b.subarray(listAt + header.listedBytes), time, o),
  };
}

type Opened =
  | { kind: 'fresh'; b: Buffer; seenBytes: number }
  | { kind: 'declined'; reason: string }
  | { kind: 'damaged'; reason: string };

/**
 * The snapshot open at `fd` read whole, when what it saw has not moved and its last full look is
 * recent; else why not, having read only its prefix and what it saw. Its CRC is the caller's to check.
 */
function openedSnapshot(fd: number, nowMs: number): Opened {
  const st = fstatSync(fd);
  // The time and the bytes of one file: a snapshot replaced meanwhile is not judged by the new one's time.
  if (nowMs - st.mtimeMs > SWEEP_EVERY_MS || nowMs < st.mtimeMs)
    return { kind: 'declined', reason: 'the last full look at the transcripts is over a minute old' };
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if (st.size < PREFIX_BYTES || readSync(fd, prefix, 0, PREFIX_BYTES, 0) !== PREFIX_BYTES)
    return { kind: 'damaged', reason: 'the snapshot is damaged' };
  const seenBytes = prefix.readUInt32LE(SEEN_LENGTH_AT);
  if (PREFIX_BYTES + seenBytes > st.size) return { kind: 'damaged', reason: 'the snapshot is damaged' };
  const seenText = Buffer.alloc(seenBytes);
  if (readSync(fd, seenText, 0, seenBytes, PREFIX_BYTES) !== seenBytes)
    return { kind: 'damaged', reason: 'the snapshot is damaged' };
  const seen = seenOf(seenText.toString('utf8'));
  if (seen === null) return { kind: 'damaged', reason: 'the snapshot is of another version' };
  const moved = seenMoved(seen.dirs, seen.files, nowMs);
  if (moved !== null) return { kind: 'declined', reason: moved };
  const b = Buffer.allocUnsafe(st.size);
  let at = 0;
  while (at < b.length) {
    const n = readSync(fd, b, at, b.length - at, at);
    if (n === 0) return { kind: 'damaged', reason: 'the snapshot is damaged' };
    at += n;
  }
  return { kind: 'fresh', b, seenBytes };
}

/**
 * Declined, and the file removed: the next answer through the index writes it whole (a snapshot
 * kept as it is would otherwise only have its time renewed while nothing changes).
 */
function discarded(path: string, reason: string): WarmReading {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove: the next writer replaces it anyway.
  }
  return declined(reason);
}
