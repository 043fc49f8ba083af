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
