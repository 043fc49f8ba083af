/**
 * The warm snapshot: beside the index, one file per scope holding what a warm one-shot prints, so
 * that `cctop --json`, `--list` or `cctop daily --json` with nothing changed costs one read, one freshness
 * check, the live fields joined and one write. It is written when a one-shot's refresh settles
 * (kept, patched or built) and holds, in the document's order, each session's sealed record (the
 * bytes the index keeps: facts as printed text, spend, usage cells) and what is shown of it without
 * parsing anything (its head), apart from them the few facts a `cctop --list` row reads (so the list
 * needs no session document), with the totals, the problems as a build keeps them, and what
 * discovery saw: every directory it asked to list with the time it had, and every transcript with
 * its size, time and inode.
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
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
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
import type { Held } from './held.js';
import { chosenProviders } from './scan.js';
import { rootPaths, scopeOf } from './scope.js';
import { seenMoved } from './seen-moved.js';
import { GROWING_MS, SWEEP_EVERY_MS } from './warm-doc-layout.js';
import {
  DIGEST_CHARS,
  headerOf,
  type ListedRow,
  PREFIX_BYTES,
  WARM_FORMAT,
  type WarmHeader,
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
      utimesSync(path, a.nowMs / 1000, a.nowMs / 1000);
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
        h.tally.unpricedTokens > 0,
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
    const header: WarmHeader = {
      format: WARM_FORMAT,
      scope: a.scope,
      takenAt: a.nowMs,
      dirs: [...a.looked],
      files: a.files.map((f) => [f.path, f.size, f.mtimeMs, f.ino]),
      problems: a.problems,
      totals: totalsOfTallies(a.held.map((h) => h.tally)),
      sessions,
      listedBytes: list.length,
    };
    // Session text is ASCII already (the records are); the header's paths may not be.
    const head = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(PREFIX_BYTES);
    const body = Buffer.concat([head, list, ...records]);
    prefix.writeUInt32LE(head.length, 0);
    prefix.writeUInt32LE(crc32(body) >>> 0, 4);
    prefix.write(a.digest.slice(0, DIGEST_CHARS).padEnd(DIGEST_CHARS), 8, 'latin1');
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([prefix, body]));
    utimesSync(tmp, a.nowMs / 1000, a.nowMs / 1000);
    renameSync(tmp, path);
    forgetOthers(cacheDir(a.env));
  } catch {
    // A full disk or a read-only cache: every run then answers through the index, as before.
  }
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
    return readSync(fd, b, 0, PREFIX_BYTES, 0) === PREFIX_BYTES ? b.toString('latin1', 8).trimEnd() : null;
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
  let b: Buffer;
  let sweptAt: number;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Nothing kept warm for these options yet.
    return declined('no snapshot is kept for these options');
  }
  try {
    // The time and the bytes of one file: a snapshot replaced meanwhile is not judged by the new one's time.
    sweptAt = fstatSync(fd).mtimeMs;
    b = readFileSync(fd);
  } catch {
    // Unreadable: the index answers, and writes it again.
    return declined('the snapshot cannot be read');
  } finally {
    closeSync(fd);
  }
  if (o.nowMs - sweptAt > SWEEP_EVERY_MS || o.nowMs < sweptAt)
    return declined('the last full look at the transcripts is over a minute old');
  if (b.length < PREFIX_BYTES) return discarded(path, 'the snapshot is damaged');
  const headBytes = b.readUInt32LE(0);
  if (PREFIX_BYTES + headBytes > b.length || crc32(b.subarray(PREFIX_BYTES)) >>> 0 !== b.readUInt32LE(4))
    return discarded(path, 'the snapshot is damaged');
  const header = headerOf(b.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headBytes));
  if (header === null) return discarded(path, 'the snapshot is of another version');
  if (header.scope !== scope) return discarded(path, 'the snapshot is of other options');
  const listAt = PREFIX_BYTES + headBytes;
  if (listAt + header.listedBytes > b.length) return discarded(path, 'the snapshot is damaged');
  const moved = seenMoved(header.dirs, header.files, o.nowMs);
  if (moved !== null) return declined(moved);
  const list = b.subarray(listAt, listAt + header.listedBytes);
  return {
    kind: 'answered',
    snapshot: new WarmSnapshot(header, list, b.subarray(listAt + header.listedBytes), time, o),
  };
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
