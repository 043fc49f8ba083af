/**
 * Where OpenCode's sessions are, from its database and from the older `storage/` tree, each with the
 * fingerprint its `SourceFile` carries, and how they are sized: the half of the provider a run
 * answering from the index needs. Listing database sessions is a query (`../sqlite.ts`); a legacy
 * session is known by reading its session file (`record.ts` reads its id and parent). Reading a
 * session's messages or its conversation is not here (see `db.ts`, `storage.ts`, `index.ts`): a warm
 * run never reads one, so it should not load them to find the sessions.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BAD_LINE_REASON, type JsonObject, obj, type Reading, readJson } from '../../model/json.js';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { nodeRuns, programName } from '../argv.js';
import { home, isDir, isFile, list, statOf } from '../fsutil.js';
import {
  columnsOf,
  IN_BUDGET,
  memberPath,
  readOnly,
  tablesOnly,
  validMember,
  withinBudget,
} from '../sqlite.js';
import {
  type Env,
  type ProcessRule,
  type ProviderPlace,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';
import { sessionFrom } from './record.js';

/** Database file names OpenCode uses (`opencode.db`, and per-channel names like `opencode-beta.db`). */
export const DATABASE_NAME = /^opencode.*\.db$/;

/**
 * The tables cctop reads: `part` is optional (a session without one still has its messages). Anything
 * else by these names (a view) makes the database a problem, never a query (see `../sqlite.ts`).
 */
export const TABLES = { required: ['session', 'message'], optional: ['part'] } as const;

/** A child session (a subagent's task) nests at most this deep before it is counted on its own. */
export const MAX_NESTING = 16;

export interface SessionFingerprint {
  path: string;
  id: string;
  /** The session at the top of its chain of parents (itself when it has none). */
  root: string;
  isChild: boolean;
  /** Newest update of the session or any of its messages (ms). */
  updatedMs: number;
  /** Messages and parts the session has. */
  rows: number;
}

interface SessionRow {
  id: string;
  parent: string | null;
  updated: number | null;
}

const numberOr = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;

/** The database and its write-ahead log together: either changing is a change. */
function fileStamp(path: string): string {
  const st = statSync(path);
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  return `${st.ino}:${st.size}:${st.mtimeMs}:${wal?.size ?? -1}:${wal?.mtimeMs ?? -1}`;
}

/**
 * The last listing of each database, reused while its files are unchanged: a long-running view
 * discovers every few seconds, and an idle OpenCode should cost it a stat, not a scan of `message`.
 */
const listings = new Map<string, { stamp: string; sessions: SessionFingerprint[] }>();

/** Every session in the database, with the fingerprint its `SourceFile` carries. */
export function listSessions(path: string): SessionFingerprint[] {
  const stamp = fileStamp(path);
  const known = listings.get(path);
  if (known?.stamp === stamp) return known.sessions;
  const sessions = withinBudget(() => querySessions(path));
  listings.set(path, { stamp, sessions });
  return sessions;
}

function querySessions(path: string): SessionFingerprint[] {
  const db = readOnly(path);
  tablesOnly(db, TABLES.required, TABLES.optional);
  const cols = columnsOf(db, 'session');
  const parent = cols.has('parent_id') ? 'parent_id' : 'NULL';
  const updated = cols.has('time_updated') ? 'time_updated' : 'NULL';
  const sessions = db
    .prepare(`SELECT id, ${parent} AS parent, ${updated} AS updated FROM session WHERE ${IN_BUDGET}`)
    .all() as SessionRow[];
  const messages = new Map<string, { n: number; t: number | null }>();
  for (const r of db
    .prepare(
      `SELECT session_id AS id, count(*) AS n, max(${columnsOf(db, 'message').has('time_updated') ? 'time_updated' : 'NULL'}) AS t FROM message GROUP BY session_id HAVING ${IN_BUDGET}`,
    )
    .all() as { id: string; n: number; t: number | null }[]) {
    messages.set(r.id, r);
  }
  const parts = new Map<string, number>();
  if (columnsOf(db, 'part').has('session_id')) {
    // Answered from the `part_session_idx` index alone: no part's `data` is touched. The budget is
    // checked per session (a check per row would cost a warm run ~0.1 µs a part).
    for (const r of db
      .prepare(`SELECT session_id AS id, count(*) AS n FROM part GROUP BY session_id HAVING ${IN_BUDGET}`)
      .all() as {
      id: string;
      n: number;
    }[]) {
      parts.set(r.id, r.n);
    }
  }
  const parentOf = new Map(sessions.map((s) => [s.id, s.parent]));
  const top = (id: string): string => {
    let at = id;
    for (let i = 0; i < MAX_NESTING; i++) {
      const p = parentOf.get(at);
      if (p === null || p === undefined || !parentOf.has(p)) return at;
      at = p;
    }
    return at;
  };
  const out: SessionFingerprint[] = [];
  for (const s of sessions) {
    if (typeof s.id !== 'string' || !validMember(s.id) || s.id.includes('/')) continue;
    const m = messages.get(s.id);
    out.push({
      path: memberPath(path, s.id),
      id: s.id,
      root: top(s.id),
      isChild: s.parent !== null && parentOf.has(s.parent),
      updatedMs: Math.max(numberOr(s.updated, 0), numberOr(m?.t, 0)),
      rows: (m?.n ?? 0) + (parts.get(s.id) ?? 0),
    });
  }
  return out;
}

/**
 * A storage file is one message or part; past this it is not read. Tool outputs live in parts and
 * can be large, but nothing the facts need sits beyond the first megabytes of a well-formed one.
 */
export const MAX_STORAGE_FILE_BYTES = 16 << 20;

export function readJsonFile(path: string): JsonObject | null {
  const r = readStorageFile(path);
  return r?.kind === 'read' ? r.value : null;
}

/**
 * A storage file as a JSON object, or why it is not one (a damaged message is counted, not skipped
 * in silence), or `oversized` past `MAX_STORAGE_FILE_BYTES`; null when it is gone.
 */
export function readStorageFile(path: string): Reading<JsonObject> | { kind: 'oversized' } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    if (fstatSync(fd).size > MAX_STORAGE_FILE_BYTES) return { kind: 'oversized' };
    const r = readJson(readFileSync(fd, 'utf8'));
    if (r.kind === 'bad') return r;
    const o = obj(r.value);
    return o === null ? { kind: 'bad', reason: 'not-json-object' } : { kind: 'read', value: o };
  } finally {
    closeSync(fd);
  }
}

export function names(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
}

const mtimeOf = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/** `storage/` from a session file path (`storage/session/<project>/<id>.json`). */
export const storageOf = (sessionFile: string): string => dirname(dirname(dirname(sessionFile)));

/** The fingerprint of a legacy session: `[size, mtimeMs]` to put on its `SourceFile`. */
export function fingerprint(
  sessionFile: string,
  sessionId: string,
  size: number,
  mtimeMs: number,
): [number, number] {
  const dir = join(storageOf(sessionFile), 'message', sessionId);
  const messages = names(dir);
  let newest = Math.max(mtimeMs, mtimeOf(dir));
  const last = messages.at(-1);
  if (last !== undefined) {
    newest = Math.max(newest, mtimeOf(join(dir, last)));
    newest = Math.max(newest, mtimeOf(join(storageOf(sessionFile), 'part', basename(last, '.json'))));
  }
  return [size + messages.length, newest];
}

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function opencodeRoots(env: Env): Root[] {
  const dir = first(env.OPENCODE_DATA_DIR);
  if (dir) return [{ path: dir, origin: '$OPENCODE_DATA_DIR' }];
  const xdg = first(env.XDG_DATA_HOME);
  if (xdg) return [{ path: join(xdg, 'opencode'), origin: '$XDG_DATA_HOME' }];
  return [{ path: join(home(env), '.local', 'share', 'opencode'), origin: 'default' }];
}

function fromDatabases(root: Root, problems: ProblemLog, out: SourceFile[]): Set<string> {
  const ids = new Set<string>();
  for (const e of list(root.path, problems) ?? []) {
    if (!DATABASE_NAME.test(e.name) || !isFile(root.path, e)) continue;
    const path = join(root.path, e.name);
    const st = statOf(path, problems);
    if (!st) continue;
    try {
      for (const s of listSessions(path)) {
        ids.add(s.id);
        out.push({
          provider: 'opencode',
          path: s.path,
          root: root.path,
          sessionHint: s.root,
          role: s.isChild ? 'subagent' : 'main',
          size: s.rows,
          mtimeMs: s.updatedMs,
          ino: st.ino,
        });
      }
    } catch (err) {
      problems.add({
        kind: 'unreadable',
        path,
        count: null,
        detail: `the OpenCode database could not be read (${describeFsError(err)}); its sessions are not shown`,
      });
    }
  }
  return ids;
}

function fromStorage(root: Root, inDatabase: Set<string>, problems: ProblemLog, out: SourceFile[]): void {
  const sessions = join(root.path, 'storage', 'session');
  for (const project of list(sessions, problems) ?? []) {
    if (!isDir(sessions, project)) continue;
    const dir = join(sessions, project.name);
    for (const e of list(dir, problems) ?? []) {
      if (!e.name.endsWith('.json') || !isFile(dir, e)) continue;
      const path = join(dir, e.name);
      const raw = readStorageFile(path);
      // Its messages cannot be found without its id: say why, as for a bad line of a transcript.
      if (raw?.kind === 'bad' || raw?.kind === 'oversized') {
        problems.add(
          raw.kind === 'bad'
            ? {
                kind: 'bad-lines',
                path,
                count: 1,
                detail: `the session file ${BAD_LINE_REASON[raw.reason]}: its messages are not read`,
              }
            : {
                kind: 'oversized-lines',
                path,
                count: 1,
                detail: `the session file is over ${MAX_STORAGE_FILE_BYTES >> 20} MiB: its messages are not read`,
              },
        );
        continue;
      }
      const s = raw?.kind === 'read' ? sessionFrom(raw.value) : null;
      if (!s || inDatabase.has(s.id)) continue;
      const st = statOf(path, problems);
      if (!st) continue;
      const [size, mtimeMs] = fingerprint(path, s.id, st.size, st.mtimeMs);
      out.push({
        provider: 'opencode',
        path,
        root: root.path,
        sessionHint: s.parentId ?? s.id,
        role: s.parentId === null ? 'main' : 'subagent',
        size,
        mtimeMs,
        ino: st.ino,
      });
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) fromStorage(root, fromDatabases(root, problems, out), problems, out);
  return out;
}

/** OpenCode's session ids: `ses_` and letters and digits. */
const SESSION = /^ses_[A-Za-z0-9]{1,64}$/;

/**
 * `opencode` itself (1.18.33's executable), or node running the npm package's `opencode` bin. A
 * session is named by `--session <id>` or `-s <id>`.
 */
const processes: ProcessRule = {
  // Each command line `isAgent` accepts names `opencode`: the program, or the script node runs.
  words: ['opencode'],
  isAgent: (argv) => programName(argv) === 'opencode' || nodeRuns(argv, /(^|\/)opencode$/),
  sessionArg(argv) {
    for (let i = 0; i < argv.length; i++) {
      const next = argv[i + 1];
      if ((argv[i] === '--session' || argv[i] === '-s') && next !== undefined && SESSION.test(next))
        return next;
    }
    return null;
  },
};

export const opencodePlace: ProviderPlace<'opencode'> = {
  id: 'opencode',
  label: 'OpenCode',
  vendor: null,
  // Rows change in place: a changed session is read again whole.
  appendOnly: false,
  bundledUnderMax: false,
  roots: opencodeRoots,
  discover,
  // OpenCode compacts when the next request would not fit, not at a fraction of the window.
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  // Its TUI with a first message; reading outside the project asks (its `external_directory` rule).
  startCommand: (prompt) => ['opencode', '--prompt', prompt],
  resumeCommand: (id) => ['opencode', '--session', id],
  processes,
};
