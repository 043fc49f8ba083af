/**
 * A harness that keeps each session as rows of one database (Goose, Hermes, ZCode, OpenClaw's store)
 * lists its sessions the same way, and that is here once: one source per session, a member of the
 * database (`sqlite-members.ts`), its fingerprint from the provider's own query. Reading one session
 * and its conversation are `sqlite-session-read.ts`, kept apart so a place (the light half of a
 * provider) does not load them.
 *
 * Not here: any query, table name or column (the provider's), nor opening the database
 * (`sqlite.ts`).
 */
import type { ProviderId } from '../model/facts.js';
import { describeFsError, type ProblemLog } from '../model/problems.js';
import { statOf } from './fsutil.js';
import { type Database, readOnly } from './sqlite.js';
import { memberPath, validMember } from './sqlite-members.js';
import type { SourceFile } from './types.js';

/** One session's row as a provider lists it: its id, and the fingerprint that moves with its rows. */
export interface SessionRow {
  id: unknown;
  /** Grows, or at least changes, whenever the session's rows do (counts and token totals summed). */
  size: number;
  /** The session's newest time, or null for the database file's. */
  mtimeMs: number | null;
}

/**
 * The sessions of the database at `path`, each a source named `<database>#<id>`; a database that cannot
 * be read is one problem naming `what` (the user's word for it), and no session.
 */
export function databaseSessions(
  provider: ProviderId,
  path: string,
  root: string,
  what: string,
  problems: ProblemLog,
  rows: (db: Database) => Iterable<SessionRow>,
): SourceFile[] {
  const st = statOf(path, problems);
  if (!st) return [];
  const out: SourceFile[] = [];
  try {
    for (const r of rows(readOnly(path))) {
      if (typeof r.id !== 'string' || !validMember(r.id) || r.id.includes('/')) continue;
      out.push({
        provider,
        path: memberPath(path, r.id),
        root,
        sessionHint: r.id,
        role: 'main',
        size: r.size,
        mtimeMs: r.mtimeMs ?? st.mtimeMs,
        ino: st.ino,
      });
    }
  } catch (err) {
    problems.add({
      kind: 'unreadable',
      path,
      count: null,
      detail: `the ${what} could not be read (${describeFsError(err)}); its sessions are not shown`,
    });
    return [];
  }
  return out;
}
