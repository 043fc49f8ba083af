/**
 * Bringing the search index up to what is on disk, before a search answers, within a time budget.
 *
 * Looking is cheap and reading is not, so it looks first. The quick look stats every transcript
 * the index holds and every folder (and database) it watches: a transcript that grew is read from
 * where it may be read again (`TurnFeed`: from the last person's message, numbered as a read from the
 * top numbers it), one that shrank or was replaced is read again whole, and a watched folder that
 * changed means transcripts came or went, so the session index is asked for every session and its
 * main transcript (the one `cctop chat` reads). Nothing here runs on the warm path of `--json`,
 * `--list` or the statusline: only `search` (and serve's search route) calls it.
 *
 * Transcripts are read newest first, through each provider's own conversation reader and the fence,
 * one transaction each, until the budget is spent; what is left is counted (`behind`) and read by
 * the next search. A listing of every session is not cut short (it is the session index's refresh,
 * fast when that index is warm), so a first search of a large history takes what that takes.
 *
 * Not here: what a query means or how it is run (`query.ts`, `store.ts`).
 */
import { statSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { splitMember } from '../providers/sqlite-members.js';
import type { Env } from '../providers/types.js';
import { redact } from '../secrets/redact.js';
import { readers, readInto, type Stat } from './read.js';
import type { FileMeta, FileState } from './rows.js';
import type { SearchDb } from './store.js';

/** What was left unread when the budget ran out. */
export interface Behind {
  files: number;
  bytes: number;
}

export interface CaughtUp {
  /** null: every transcript the index knows is read to its end. */
  behind: Behind | null;
  /** Transcripts read (or read on) this time, and their new bytes. */
  read: Behind;
  /** Whether every session was listed this time (a watched folder changed, or a first search). */
  listed: boolean;
  /** Why the session index could not be used, told once (its own notice). */
  notice: string | null;
}

/**
 * Transcript bytes read into one transaction. Larger batches write fewer FTS5 segments (a first build
 * of the bench history took a fifth less time at 64 MiB than with one transcript a transaction), and
 * the budget is still looked at between transcripts.
 */
const BATCH_BYTES = 64 * 1024 * 1024;

/**
 * How often a search stats every transcript the index holds. In between it stats the `HOT_FILES`
 * most recently written (where work is going on) and every folder it watches (where new sessions
 * appear): a heavy user's 4,000 stats cost as much as the query itself (40 ms on the bench machine,
 * half a bare `node -e 0`), which a search typed a few seconds after the last need not pay again.
 * So a session resumed after weeks of quiet is seen by the first search a minute after the last
 * full look, or at once when its folder changes.
 */
export const FULL_LOOK_MS = 60_000;

/** Transcripts a search stats between full looks: the most recently written, a week's work and more. */
export const HOT_FILES = 512;

/** The stat of a path, or null when it is not there (or cannot be looked at). */
function statOf(path: string): Stat | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } : null;
  } catch {
    return null;
  }
}

const mtimeOf = (path: string): number | null => statOf(path)?.mtimeMs ?? null;

/**
 * The paths whose change means transcripts came or went: every folder from a transcript up to (not
 * including) its root, a root that holds no transcript yet, and for a session kept inside a
 * database, the database and its log.
 *
 * known limit: a root that holds transcripts is not watched itself, because harnesses rewrite their
 * settings and state files there all day (`~/.codex` keeps a database whose log comes and goes) and
 * each would start a listing. A transcript in a new folder directly under such a root (Codex's first
 * `archived_sessions`) is found by the next listing, which any new session starts.
 */
export function watchList(roots: readonly string[], paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  const used = new Set<string>();
  for (const path of paths) {
    const member = splitMember(path);
    if (member !== null) {
      out.add(member.database);
      out.add(`${member.database}-wal`);
      continue;
    }
    const root = roots.find((r) => path.startsWith(r + sep)) ?? null;
    if (root !== null) used.add(root);
    for (let dir = dirname(path); !out.has(dir); dir = dirname(dir)) {
      if (dir === root) break;
      out.add(dir);
      if (root === null || dirname(dir) === dir) break;
    }
  }
  for (const r of roots) if (!used.has(r)) out.add(r);
  return out;
}

/** Every session's main transcript, as the session index lists them, with the stats it saw. */
async function listSessions(env: Env): Promise<{
  metas: FileMeta[];
  stats: Map<string, Stat>;
  roots: string[];
  notice: string | null;
}> {
  const { SessionIndex } = await import('../index/session-index.js');
  const index = SessionIndex.open({
    env,
    plan: 'retail',
    providers: null,
    sinceMs: null,
    untilMs: null,
    oneRefresh: true,
  });
  await index.refresh();
  index.close();
  const metas: FileMeta[] = [];
  for (const s of index.sessions())
    if (!s.deleted && s.file.length > 0)
      metas.push({
        path: s.file,
        provider: s.provider,
        session: s.id,
        project: s.project,
        title: s.title === null ? null : redact(s.title),
      });
  const stats = new Map<string, Stat>();
  for (const f of index.discovery.files) stats.set(f.path, { size: f.size, mtimeMs: f.mtimeMs, ino: f.ino });
  return { metas, stats, roots: index.discovery.roots.map((r) => r.path), notice: index.notice };
}

/** Whether a transcript must be read (again), given what it is now; null `now`: gone, or not a file. */
function stale(file: FileState, now: Stat | null): boolean {
  if (now === null) return false;
  const r = file.read;
  return r === null || r.size !== now.size || r.mtimeMs !== now.mtimeMs || r.ino !== now.ino;
}

/** A transcript's stat now; a session inside a database is not a file (it changed when its database did). */
const fileStat = (path: string): Stat | null => (splitMember(path) === null ? statOf(path) : null);

export interface CatchUpOptions {
  env: Env;
  /** When to stop reading (a `performance.now()`-like clock and its limit); Infinity: read everything. */
  deadline: number;
  clock: () => number;
}

/** Ask the session index for every session when a watched path changed (or none is watched yet). */
async function relistIfMoved(
  db: SearchDb,
  env: Env,
): Promise<{ listed: Map<string, Stat> | null; notice: string | null }> {
  const watched = db.watched();
  let moved = watched.size === 0;
  for (const [path, mtime] of watched) {
    if (moved) break;
    moved = mtimeOf(path) !== mtime;
  }
  if (!moved) return { listed: null, notice: null };
  // Looked at before listing, so a change made while the listing runs is seen by the next look.
  const before = new Map([...watched.keys()].map((p) => [p, mtimeOf(p)]));
  const l = await listSessions(env);
  const wanted = new Set(l.metas.map((m) => m.path));
  const gone = db.states().filter((f) => !wanted.has(f.path));
  const paths = watchList(l.roots, [...wanted]);
  const mtimes = new Map([...paths].map((p) => [p, before.has(p) ? before.get(p)! : mtimeOf(p)]));
  db.relist(l.metas, gone, mtimes);
  return { listed: l.stats, notice: l.notice };
}

/**
 * The transcripts to read and their stats now, newest first: after a listing, all of them (the
 * listing stat'ed them); after `FULL_LOOK_MS`, all of them again; else the unread and the hot ones.
 */
function toRead(db: SearchDb, listed: Map<string, Stat> | null): { file: FileState; now: Stat }[] {
  const nowMs = Date.now();
  const full = listed !== null || !(nowMs - db.lookedAt() < FULL_LOOK_MS);
  const look = full ? db.states() : db.hotStates(HOT_FILES);
  const out: { file: FileState; now: Stat }[] = [];
  for (const file of look) {
    const now = listed?.get(file.path) ?? fileStat(file.path);
    if (now !== null && stale(file, now)) out.push({ file, now });
  }
  if (full) db.setLookedAt(nowMs);
  return out.sort((a, b) => b.now.mtimeMs - a.now.mtimeMs);
}

/** Bring the index up to date, newest transcripts first, until `o.deadline`. */
export async function catchUp(db: SearchDb, o: CatchUpOptions): Promise<CaughtUp> {
  const { listed, notice } = await relistIfMoved(db, o.env);
  const todo = toRead(db, listed);
  const done: Behind = { files: 0, bytes: 0 };
  const r = todo.length > 0 ? await readers() : null;
  let i = 0;
  // The clock is looked at once before each transcript, and a batch is committed every BATCH_BYTES.
  let open = r !== null && i < todo.length && o.clock() < o.deadline;
  while (r !== null && open) {
    db.batch(() => {
      let bytes = 0;
      while (open && bytes < BATCH_BYTES) {
        const { file, now } = todo[i++]!;
        const row = db.file(file.id);
        const n = row === null ? 0 : readInto(db, r.providerOf(row.provider), row, now, r.read);
        bytes += n;
        done.bytes += n;
        done.files += row === null ? 0 : 1;
        open = i < todo.length && o.clock() < o.deadline;
      }
    });
  }
  const left: Behind = { files: 0, bytes: 0 };
  for (const { file, now } of todo.slice(i)) {
    left.files++;
    left.bytes += Math.max(0, now.size - (file.read?.resume.offset ?? 0));
  }
  return { behind: left.files > 0 ? left : null, read: done, listed: listed !== null, notice };
}
