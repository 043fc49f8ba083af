/**
 * The collisions of a one-shot answer (`cctop --json`): the calls of the sessions a process runs,
 * read here and now. The live views keep them current off the main thread (`collision-watch.ts`); a
 * one-shot command has no thread to spare and answers once, so it reads within bounds instead.
 *
 * What a run costs: nothing when fewer than two sessions a process runs wrote anything in the window
 * (the usual case: one agent running `cctop --json` itself); else one full read of each such
 * transcript, at most `ONCE_MAX_SESSIONS` of them, none larger than `ONCE_MAX_BYTES`, and
 * `ONCE_MAX_TOTAL_BYTES` in all (calls are read at 30 to 60 MB/s: about two seconds at worst).
 *
 * The sessions come from the annotator (`noteRunning`), which sees every session's live fields
 * without building its document; titles are looked up only for sessions found in a collision.
 *
 * Not here: the rule (`collisions.ts`).
 */
import { statSync } from 'node:fs';
import type { Collision } from '../model/collision.js';
import type { Annotator, SessionDoc, SessionLiveFields } from '../model/document.js';
import { COLLISION_WINDOW_MS, findCollisions, type RootOf, recentWrites } from './collisions.js';
import { RepoRoots } from './repo-root.js';

/**
 * Transcripts read for one answer, the most recently active first. More agents than this writing in
 * the same half hour is rare; the bound keeps a busy machine's `--json` from reading each of them.
 */
export const ONCE_MAX_SESSIONS = 8;

/**
 * A transcript larger than this is not read for a one-shot answer (its collisions show in the live
 * views, which read off the main thread). known limit: such a session's collisions are missing from
 * `--json`.
 */
export const ONCE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Bytes of transcript read for one answer in all, the most recently active sessions first: calls
 * are read at 30 to 60 MB/s, so this keeps the collisions of a busy machine's `--json` near a
 * second or two. Past it the rest are not read.
 */
export const ONCE_MAX_TOTAL_BYTES = 64 * 1024 * 1024;

/** What the one-shot needs of a session: its live fields as the annotator settled them. */
export type LiveSession = Pick<
  SessionLiveFields,
  'provider' | 'id' | 'file' | 'project' | 'lastActiveAt' | 'deleted' | 'running'
>;

/**
 * The annotator, noting into `into` every session it found running: the one-shot's list of who to
 * read, taken without building any session's document.
 */
export function noteRunning(inner: Annotator, into: LiveSession[]): Annotator {
  return (doc) => {
    const changed = inner(doc);
    into.length = 0;
    for (const s of doc.sessions) if (s.running === true && !s.deleted) into.push(s);
    return changed;
  };
}

export interface OnceOptions {
  nowMs: number;
  /** For tests: where a path's repository is (else `.git` is looked for on disk). */
  rootOf?: RootOf;
}

/**
 * The collisions among the running `sessions`, each writer titled from `titled` (asked only when
 * there is a collision: it builds every session's document).
 */
export async function collisionsFor(
  sessions: readonly LiveSession[],
  titled: () => readonly Pick<SessionDoc, 'provider' | 'id' | 'title'>[],
  o: OnceOptions,
): Promise<Collision[]> {
  const found = await collisionsOnce(sessions, o);
  return found.length === 0 ? found : withTitles(found, titled());
}

/** The collisions among `sessions`, with no titles yet (`withTitles`). */
export async function collisionsOnce(sessions: readonly LiveSession[], o: OnceOptions): Promise<Collision[]> {
  const since = o.nowMs - COLLISION_WINDOW_MS;
  const candidates = sessions
    .filter(
      (s) =>
        s.running === true && !s.deleted && s.lastActiveAt !== null && Date.parse(s.lastActiveAt) >= since,
    )
    .sort((a, b) => (a.lastActiveAt! < b.lastActiveAt! ? 1 : a.lastActiveAt! > b.lastActiveAt! ? -1 : 0));
  // One session alone collides with nobody: nothing is read, not even a size.
  if (candidates.length < 2) return [];
  const recent: LiveSession[] = [];
  let budget = ONCE_MAX_TOTAL_BYTES;
  for (const s of candidates) {
    if (recent.length >= ONCE_MAX_SESSIONS) break;
    const size = sizeOf(s.file);
    if (size === null || size > ONCE_MAX_BYTES || size > budget) continue;
    budget -= size;
    recent.push(s);
  }
  if (recent.length < 2) return [];
  // The readers load only now: a warm `--json` with one agent running loads none of them.
  const { callsOf, providerById } = await import('../providers/index.js');
  const roots = new RepoRoots();
  const rootOf = o.rootOf ?? ((path: string) => roots.of(path));
  const writers = recent.map((s) => {
    const calls = callsOf(providerById(s.provider), s.file);
    const writes = calls.kind === 'answered' ? recentWrites(calls.value, s.project, o.nowMs, rootOf) : [];
    return { ...s, title: null, writes };
  });
  return findCollisions(writers, o.nowMs);
}

/** A transcript's size, or null when it is not there to read. */
function sizeOf(file: string): number | null {
  try {
    return statSync(file, { throwIfNoEntry: false })?.size ?? null;
  } catch {
    return null;
  }
}

/** The collisions with each session's title, from the sessions of the document. */
export function withTitles(
  collisions: Collision[],
  sessions: readonly Pick<SessionDoc, 'provider' | 'id' | 'title'>[],
): Collision[] {
  if (collisions.length === 0) return collisions;
  const titles = new Map(sessions.map((s) => [`${s.provider}\u0000${s.id}`, s.title]));
  return collisions.map((c) => ({
    ...c,
    sessions: c.sessions.map((w) => ({ ...w, title: titles.get(`${w.provider}\u0000${w.id}`) ?? null })),
  }));
}
