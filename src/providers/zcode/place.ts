/**
 * Where ZCode's usage is and which sessions it lists: one SQLite database, `cli/db/db.sqlite` under
 * `~/.zcode` or each of the comma-separated roots `$ZCODE_HOME` names, as ccusage reads it. Its
 * `model_usage` table holds one row per model request (`session_id`, `started_at` in milliseconds,
 * `model_id`, `status`, the token columns) and `session` the session's `directory`. A session is
 * named `<database>#<id>`, as every database-kept session is. Listing them is a query, so this
 * needs `../sqlite.ts`; reading one session is `parse.ts`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home } from '../fsutil.js';
import { type Database, tablesOnly } from '../sqlite.js';
import { databaseSessions, type SessionRow } from '../sqlite-sessions.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

/** The database under a root. */
export const DATABASE = join('cli', 'db', 'db.sqlite');

/** The tables read: anything else by these names (a view) makes the database a problem (`../sqlite.ts`). */
export const TABLES = { required: ['model_usage'], optional: ['session'] } as const;

export function zcodeRoots(env: Env): Root[] {
  const set = dirList(env.ZCODE_HOME);
  if (set.length > 0) return set.map((path) => ({ path, origin: '$ZCODE_HOME' }));
  return [{ path: join(home(env), '.zcode'), origin: 'default' }];
}

/**
 * A session's fingerprint: its request count and tokens, and its newest request. A request added or
 * finished changes one of them, and only that session is read again.
 */
function sessionRows(db: Database): SessionRow[] {
  tablesOnly(db, TABLES.required, TABLES.optional);
  const rows = db
    .prepare(
      `SELECT session_id AS id, count(*) AS n, coalesce(sum(input_tokens), 0) + coalesce(sum(output_tokens), 0) AS tokens,
        max(started_at) AS last FROM model_usage GROUP BY session_id`,
    )
    .all() as { id: unknown; n: number; tokens: number; last: unknown }[];
  return rows.map((r) => ({
    id: r.id,
    size: r.n + (Number.isFinite(r.tokens) ? r.tokens : 0),
    mtimeMs: typeof r.last === 'number' && r.last > 0 ? r.last : null,
  }));
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) => {
    const path = join(root.path, DATABASE);
    // No database yet is no ZCode here, not a problem.
    if (!existsSync(path)) return [];
    return databaseSessions('zcode', path, root.path, 'ZCode usage database', problems, sessionRows);
  });
}

export const zcodePlace: ProviderPlace<'zcode'> = {
  id: 'zcode',
  label: 'ZCode',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: zcodeRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  noConversation: "ZCode's usage database holds no conversation; cctop reads its usage only",
};
