/**
 * `check_conflicts`: which running sessions have read or written the files an agent is about to
 * touch (paths, or every file under a directory), each file with how often and when last. The files
 * are what each harness's calls say they read and wrote (`Call.files`), made absolute against the
 * session's directory, as the collision rule reads them (`live/collisions.ts`); a file changed through
 * a shell command is not a call's file and is not seen.
 *
 * What a call costs: one full read of the calls of each running session, newest activity first, within
 * the bounds of `cctop --json`'s collisions (`ONCE_MAX_SESSIONS`, `ONCE_MAX_BYTES`,
 * `ONCE_MAX_TOTAL_BYTES`: about two seconds at worst); a session past them is named in `notRead`, so
 * the caller knows the answer is partial.
 *
 * Not here: the collisions cctop shows itself between running sessions (`live/collisions.ts`).
 */
import { statSync } from 'node:fs';
import { absolutePath } from '../live/collisions.js';
import { ONCE_MAX_BYTES, ONCE_MAX_SESSIONS, ONCE_MAX_TOTAL_BYTES } from '../live/collisions-once.js';
import type { SessionDoc } from '../model/document.js';
import { dataResult, fitList, type ToolResult } from './data.js';
import { briefOf, within } from './sessions.js';
import type { Picture } from './source.js';

/** What was asked: exact files, and directories whose files all count. */
export interface Asked {
  paths: readonly string[];
  directories: readonly string[];
  /** A session id (or its start) to leave out: the caller's own. */
  exclude: string | null;
}

/** Files listed per session, the most recently touched first (`filesTouched` counts them all). */
const FILES_SHOWN = 50;

interface Touch {
  path: string;
  reads: number;
  writes: number;
  lastMs: number | null;
}

/** Why a running session's calls were not read. */
type NotRead =
  | 'too many sessions'
  | 'transcript too large'
  | 'read budget spent'
  | 'transcript not there'
  | 'unreadable';

const sizeOf = (file: string): number | null => {
  try {
    return statSync(file, { throwIfNoEntry: false })?.size ?? null;
  } catch {
    return null;
  }
};

/** Whether a file a call names is one of those asked about. */
const isAsked = (a: Asked, path: string): boolean =>
  a.paths.includes(path) || a.directories.some((d) => within(path, d));

/** The files of `asked` a session's calls touched, the most recent first. */
async function touchesOf(s: SessionDoc, asked: Asked): Promise<Touch[] | 'unreadable'> {
  const { callsOf, providerById } = await import('../providers/index.js');
  const calls = callsOf(providerById(s.provider), s.file);
  if (calls.kind !== 'answered') return 'unreadable';
  const byPath = new Map<string, Touch>();
  for (const call of calls.value.calls) {
    const ms = call.startMs ?? call.endMs;
    for (const f of call.files) {
      const path = absolutePath(f.path, s.project);
      if (path === null || !isAsked(asked, path)) continue;
      const t = byPath.get(path) ?? { path, reads: 0, writes: 0, lastMs: null };
      if (f.write) t.writes++;
      else t.reads++;
      if (ms !== null && (t.lastMs === null || ms > t.lastMs)) t.lastMs = ms;
      byPath.set(path, t);
    }
  }
  return [...byPath.values()].sort((a, b) => (b.lastMs ?? 0) - (a.lastMs ?? 0));
}

/** `check_conflicts` over the running sessions of `p`. */
export async function checkConflicts(p: Picture, asked: Asked): Promise<ToolResult> {
  const running = p.sessions
    .filter((s) => s.running === true && !s.deleted)
    .filter((s) => asked.exclude === null || !s.id.startsWith(asked.exclude))
    .sort((a, b) => (a.lastActiveAt! < b.lastActiveAt! ? 1 : a.lastActiveAt! > b.lastActiveAt! ? -1 : 0));
  const found: {
    session: ReturnType<typeof briefOf>;
    filesTouched: number;
    files: ReturnType<typeof fileRow>[];
  }[] = [];
  const notRead: { id: string; harness: string; why: NotRead }[] = [];
  let budget = ONCE_MAX_TOTAL_BYTES;
  let read = 0;
  for (const s of running) {
    const size = sizeOf(s.file);
    const why: NotRead | null =
      read >= ONCE_MAX_SESSIONS
        ? 'too many sessions'
        : size === null
          ? 'transcript not there'
          : size > ONCE_MAX_BYTES
            ? 'transcript too large'
            : size > budget
              ? 'read budget spent'
              : null;
    if (why !== null || size === null) {
      notRead.push({ id: s.id, harness: s.provider, why: why ?? 'transcript not there' });
      continue;
    }
    budget -= size;
    read++;
    const touches = await touchesOf(s, asked);
    if (touches === 'unreadable') notRead.push({ id: s.id, harness: s.provider, why: 'unreadable' });
    else if (touches.length > 0)
      found.push({
        session: briefOf(s),
        filesTouched: touches.length,
        files: touches.slice(0, FILES_SHOWN).map(fileRow),
      });
  }
  const head = {
    asked: { paths: asked.paths, directories: asked.directories },
    runningSessions: running.length,
    conflict: found.length > 0,
    notRead,
  };
  return dataResult(fitList(head, 'sessions', found));
}

const fileRow = (t: Touch) => ({
  path: t.path,
  reads: t.reads,
  writes: t.writes,
  lastAt: t.lastMs === null ? null : new Date(t.lastMs).toISOString(),
});
