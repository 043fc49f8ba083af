/**
 * Finding one session from what a user typed: its id, or a prefix of it unique enough to name one.
 */
import type { SessionDoc, SessionDocument } from '../model/document.js';

export type Found =
  | { kind: 'one'; session: SessionDoc }
  | { kind: 'none' }
  | { kind: 'many'; candidates: SessionDoc[] };

/** Candidates listed when a prefix is ambiguous. */
export const MAX_CANDIDATES = 10;

/** `query` null means the most recently active session. */
export function findSession(doc: Pick<SessionDocument, 'sessions'>, query: string | null): Found {
  if (query === null || query.length === 0) {
    const newest = doc.sessions.find((s) => !s.deleted) ?? doc.sessions[0];
    return newest ? { kind: 'one', session: newest } : { kind: 'none' };
  }
  const exact = doc.sessions.filter((s) => s.id === query);
  if (exact.length === 1) return { kind: 'one', session: exact[0]! };
  const matches = exact.length > 1 ? exact : doc.sessions.filter((s) => s.id.startsWith(query));
  if (matches.length === 1) return { kind: 'one', session: matches[0]! };
  if (matches.length === 0) return { kind: 'none' };
  return { kind: 'many', candidates: matches.slice(0, MAX_CANDIDATES) };
}

/** The shortest a short id gets: fewer characters would collide as soon as a history grows. */
export const MIN_SHORT_ID = 4;

/**
 * The longest a short id gets: a Codex id's first 13 characters are the millisecond it was created
 * (UUID v7), so two ids alike that far are rare, and a column wider than that crowds the title. Ids
 * still alike past it are shown cut; typed, such a prefix is refused naming both sessions.
 */
export const MAX_SHORT_ID = 13;

/**
 * The short id of each session (as `gh … list` and `git log --oneline` show one): the same number
 * of leading characters for every id, as few as keep each one apart from every other id of
 * `sessions`, so that each is a prefix `findSession` resolves to its session alone.
 */
export function shortIds(sessions: readonly Pick<SessionDoc, 'id'>[]): {
  length: number;
  of(id: string): string;
} {
  const ids = [...new Set(sessions.map((s) => s.id))].sort();
  let length = MIN_SHORT_ID;
  // Sorted, an id shares its longest prefix with a neighbour: one past that keeps it apart.
  for (let i = 1; i < ids.length; i++) {
    const a = ids[i - 1]!;
    const b = ids[i]!;
    let same = 0;
    while (same < a.length && same < b.length && a[same] === b[same]) same++;
    length = Math.max(length, same + 1);
  }
  length = Math.min(length, MAX_SHORT_ID);
  return { length, of: (id) => id.slice(0, length) };
}
