/**
 * Where Hermes Agent (Nous Research) keeps its sessions: one SQLite database, `state.db`, in its home
 * (`$HERMES_HOME`, a comma-separated list as ccusage reads it, else `~/.hermes`). A session is a row
 * of its `sessions` table, named `<state.db>#<id>` (see `../sqlite.ts`); its messages are rows of
 * `messages`. The fingerprint of a session moves with its token totals, its message count and its
 * newest message. Reading a session is not here (see `index.ts`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home } from '../fsutil.js';
import { columnsOf, type Database, tablesOnly } from '../sqlite.js';
import { databaseSessions, type SessionRow } from '../sqlite-sessions.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const DATABASE = 'state.db';

/** The tables read: anything else by these names (a view) makes the database a problem. */
export const TABLES = { required: ['sessions'], optional: ['messages'] } as const;

export function hermesRoots(env: Env): Root[] {
  const dirs = dirList(env.HERMES_HOME);
  if (dirs.length > 0) return dirs.map((path) => ({ path, origin: '$HERMES_HOME' }));
  return [{ path: join(home(env), '.hermes'), origin: 'default' }];
}

/** A column's value as a number, or 0 (the fingerprint only needs it to move). */
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Epoch seconds (Hermes's REAL times) or milliseconds, as milliseconds. */
export const epochMs = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? (v > 1e12 ? v : v * 1000) : null;

/** The sessions of one database: each row's fingerprint from its totals, message count and times. */
function sessionRows(db: Database): SessionRow[] {
  tablesOnly(db, TABLES.required, TABLES.optional);
  const cols = columnsOf(db, 'sessions');
  const has = (c: string) => (cols.has(c) ? c : '0');
  const tokens = [
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'reasoning_tokens',
  ]
    .map(has)
    .join(' + ');
  const rows = db
    .prepare(
      `SELECT id, ${tokens} AS tokens, ${has('message_count')} AS messages, ${has('started_at')} AS started,
      ${has('ended_at')} AS ended FROM sessions`,
    )
    .all() as { id: unknown; tokens: unknown; messages: unknown; started: unknown; ended: unknown }[];
  const newest = new Map<string, number>();
  const mcols = columnsOf(db, 'messages');
  if (mcols.has('session_id') && mcols.has('timestamp')) {
    for (const r of db
      .prepare(
        'SELECT session_id AS id, count(*) AS n, max(timestamp) AS at FROM messages GROUP BY session_id',
      )
      .all() as { id: unknown; n: unknown; at: unknown }[]) {
      if (typeof r.id === 'string') newest.set(r.id, (epochMs(r.at) ?? 0) + n(r.n));
    }
  }
  return rows.map((r) => {
    const times = [
      epochMs(r.started),
      epochMs(r.ended),
      (typeof r.id === 'string' ? newest.get(r.id) : undefined) ?? null,
    ].filter((t): t is number => t !== null);
    return {
      id: r.id,
      size: n(r.tokens) + n(r.messages),
      mtimeMs: times.length > 0 ? Math.max(...times) : null,
    };
  });
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) => {
    const path = join(root.path, DATABASE);
    // A home without a database has no sessions yet: not a problem.
    if (!existsSync(path)) return [];
    return databaseSessions('hermes', path, root.path, 'Hermes state database', problems, sessionRows);
  });
}

export const hermesPlace: ProviderPlace<'hermes'> = {
  id: 'hermes',
  label: 'Hermes Agent',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: hermesRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
