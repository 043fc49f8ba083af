/**
 * Where Devin's session database is, which sessions it lists (with the fingerprint each carries) and
 * how they are sized: the half of the provider a run answering from the index needs. Listing the
 * sessions is a query of the database, so this needs `../sqlite.ts`; reading a session's trajectory
 * or conversation is not here (see `index.ts`).
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { home, isFile, list, statOf } from '../fsutil.js';
import { columnsOf, memberPath, readOnly, tablesOnly, validMember } from '../sqlite.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

/** Where the database is: the one file Devin keeps its sessions in. */
export function devinDatabase(env: Env): { path: string; origin: string } {
  const set = first(env.CHISEL_SESSION_DB);
  if (set) return { path: set, origin: '$CHISEL_SESSION_DB' };
  const xdg = first(env.XDG_DATA_HOME);
  if (xdg) return { path: join(xdg, 'devin', 'cli', 'sessions.db'), origin: '$XDG_DATA_HOME' };
  return { path: join(home(env), '.local', 'share', 'devin', 'cli', 'sessions.db'), origin: 'default' };
}

export function devinRoots(env: Env): Root[] {
  const db = devinDatabase(env);
  return [{ path: dirname(db.path), origin: db.origin }];
}

/** The tables read: anything else by these names (a view) makes the database a problem (`../sqlite.ts`). */
export const TABLES = { required: ['sessions'], optional: ['tool_call_state'] } as const;

/**
 * The session databases in a root: `sessions.db`, or whatever `$CHISEL_SESSION_DB` named, told apart
 * from other databases by Devin's `sessions` table.
 */
function databasesIn(root: Root, problems: ProblemLog): string[] {
  const out: string[] = [];
  for (const e of list(root.path, problems) ?? []) {
    if (!e.name.endsWith('.db') || !isFile(root.path, e)) continue;
    const path = join(root.path, e.name);
    if (e.name === 'sessions.db') out.push(path);
    else {
      try {
        const cols = columnsOf(readOnly(path), 'sessions');
        if (cols.has('id') && cols.has('working_directory')) out.push(path);
      } catch {
        // not a database, or not one we may read: not Devin's
      }
    }
  }
  return out;
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    for (const path of databasesIn(root, problems)) readDatabase(root, path, problems, out);
  }
  return out;
}

function readDatabase(root: Root, path: string, problems: ProblemLog, out: SourceFile[]): void {
  const st = statOf(path, problems);
  if (!st) return;
  try {
    const db = readOnly(path);
    tablesOnly(db, TABLES.required, TABLES.optional);
    const cols = columnsOf(db, 'sessions');
    const hidden = cols.has('hidden') ? 'hidden' : '0';
    const last = cols.has('last_activity_at') ? 'last_activity_at' : 'NULL';
    const rows = db.prepare(`SELECT id, ${last} AS last, ${hidden} AS hidden FROM sessions`).all() as {
      id: unknown;
      last: unknown;
      hidden: unknown;
    }[];
    const calls = new Map<string, number>();
    if (columnsOf(db, 'tool_call_state').has('session_id')) {
      for (const r of db
        .prepare(
          'SELECT session_id AS id, count(*) + coalesce(sum(length(tool_call_update_json)), 0) AS n FROM tool_call_state GROUP BY session_id',
        )
        .all() as { id: string; n: number }[]) {
        calls.set(r.id, r.n);
      }
    }
    for (const r of rows) {
      if (typeof r.id !== 'string' || !validMember(r.id) || r.id.includes('/')) continue;
      if (r.hidden === 1 || r.hidden === true) continue;
      const transcript = statSync(join(root.path, 'transcripts', `${r.id}.json`), { throwIfNoEntry: false });
      const lastMs = typeof r.last === 'number' ? (r.last > 1e12 ? r.last : r.last * 1000) : 0;
      out.push({
        provider: 'devin',
        path: memberPath(path, r.id),
        root: root.path,
        sessionHint: r.id,
        role: 'main',
        size: (transcript?.size ?? 0) + (calls.get(r.id) ?? 0),
        mtimeMs: Math.max(transcript?.mtimeMs ?? 0, lastMs),
        ino: transcript?.ino ?? st.ino,
      });
    }
  } catch (err) {
    problems.add({
      kind: 'unreadable',
      path,
      count: null,
      detail: `the Devin session database could not be read (${describeFsError(err)}); its sessions are not shown`,
    });
  }
}

export const devinPlace: ProviderPlace<'devin'> = {
  id: 'devin',
  label: 'Devin',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: devinRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
