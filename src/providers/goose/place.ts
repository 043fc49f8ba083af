/**
 * Where Goose (Block) keeps its sessions: one SQLite database, `sessions/sessions.db`, under its data
 * folder: `$GOOSE_PATH_ROOT/data`, else `~/.local/share/goose` (`~/Library/Application
 * Support/goose` on macOS; `~/.local/share/Block/goose` for older builds), the places ccusage looks.
 * A session is a row of its `sessions` table, named `<sessions.db>#<id>` (see `../sqlite.ts`); its
 * messages are rows of `messages`. The fingerprint of a session moves with its token totals, its
 * last update and its newest message. Reading a session is not here (see `index.ts`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { home } from '../fsutil.js';
import { columnsOf, type Database, tablesOnly } from '../sqlite.js';
import { databaseSessions, type SessionRow } from '../sqlite-sessions.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const DATABASE = 'sessions.db';

/** The tables read: anything else by these names (a view) makes the database a problem. */
export const TABLES = { required: ['sessions'], optional: ['messages'] } as const;

export function gooseRoots(env: Env): Root[] {
  const root = env.GOOSE_PATH_ROOT?.trim();
  if (root) return [{ path: join(root, 'data', 'sessions'), origin: '$GOOSE_PATH_ROOT' }];
  const h = home(env);
  return [
    join(h, '.local', 'share', 'goose', 'sessions'),
    join(h, 'Library', 'Application Support', 'goose', 'sessions'),
    join(h, '.local', 'share', 'Block', 'goose', 'sessions'),
  ].map((path) => ({ path, origin: 'default' }));
}

/**
 * A Goose time as milliseconds: SQLite's `CURRENT_TIMESTAMP` text (`2026-01-12 08:15:00`, UTC), an
 * ISO time, or epoch seconds or milliseconds.
 */
export function gooseMs(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? (v > 1e12 ? v : v * 1000) : null;
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) return gooseMs(Number(t));
  const sqlite = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/.exec(t);
  const ms = Date.parse(sqlite ? `${sqlite[1]}T${sqlite[2]}Z` : t);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The sessions of one database: each row's fingerprint from its totals, times and messages. */
function sessionRows(db: Database): SessionRow[] {
  tablesOnly(db, TABLES.required, TABLES.optional);
  const cols = columnsOf(db, 'sessions');
  const has = (c: string) => (cols.has(c) ? c : '0');
  const rows = db
    .prepare(
      `SELECT id, ${has('accumulated_total_tokens')} + ${has('accumulated_input_tokens')} + ${has('accumulated_output_tokens')}
      + ${has('total_tokens')} AS tokens, ${has('created_at')} AS created, ${has('updated_at')} AS updated FROM sessions`,
    )
    .all() as { id: unknown; tokens: unknown; created: unknown; updated: unknown }[];
  const messages = new Map<string, { n: number; at: number | null }>();
  const mcols = columnsOf(db, 'messages');
  if (mcols.has('session_id') && mcols.has('created_timestamp')) {
    for (const r of db
      .prepare(
        'SELECT session_id AS id, count(*) AS n, max(created_timestamp) AS at FROM messages GROUP BY session_id',
      )
      .all() as { id: unknown; n: unknown; at: unknown }[]) {
      if (typeof r.id === 'string') messages.set(r.id, { n: n(r.n), at: gooseMs(r.at) });
    }
  }
  return rows.map((r) => {
    const said = typeof r.id === 'string' ? messages.get(r.id) : undefined;
    const times = [gooseMs(r.created), gooseMs(r.updated), said?.at ?? null].filter(
      (t): t is number => t !== null,
    );
    return {
      id: r.id,
      size: n(r.tokens) + (said?.n ?? 0),
      mtimeMs: times.length > 0 ? Math.max(...times) : null,
    };
  });
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) => {
    const path = join(root.path, DATABASE);
    // A folder without a database has no sessions yet: not a problem.
    if (!existsSync(path)) return [];
    return databaseSessions('goose', path, root.path, 'Goose session database', problems, sessionRows);
  });
}

export const goosePlace: ProviderPlace<'goose'> = {
  id: 'goose',
  label: 'Goose',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: gooseRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
