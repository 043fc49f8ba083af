/**
 * Devin (the Devin CLI): its sessions in `sessions.db` (`$CHISEL_SESSION_DB`, else
 * `$XDG_DATA_HOME/devin/cli/sessions.db`, else `~/.local/share/devin/cli/sessions.db`), each with an
 * ATIF trajectory in `transcripts/<id>.json` beside the database, and how every tool call ended in
 * the database's `tool_call_state`. A session Devin deleted is marked `hidden` and is not shown.
 *
 * A session is named `<sessions.db>#<id>` (see `../sqlite.ts`); `transcriptOf` gives its trajectory.
 * Its fingerprint moves with the trajectory file, the session's last activity and its calls' states.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { emptyFacts, noteBadLine } from '../../model/facts.js';
import { type JsonObject, parseObject } from '../../model/json.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { atifStep, atifSteps } from '../atif/conversation.js';
import { home, isFile, list, statOf } from '../fsutil.js';
import { columnsOf, type Database, memberPath, readOnly, splitMember, validMember } from '../sqlite.js';
import {
  type ConversationOptions,
  type Env,
  type ParseResult,
  type Provider,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';
import { foldSession } from './parser.js';
import { sessionFrom, trajectoryFrom } from './record.js';

/** A trajectory is read whole; past this it is reported rather than read. */
export const MAX_TRAJECTORY_BYTES = 64 << 20;

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

/** The trajectory of a session named by its member path. */
export function transcriptOf(path: string): string | null {
  const m = splitMember(path);
  return m === null ? null : join(dirname(m.database), 'transcripts', `${m.member}.json`);
}

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

function readTrajectory(path: string): { doc: JsonObject | null; oversized: boolean; bad: string | null } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { doc: null, oversized: false, bad: null };
  }
  try {
    if (fstatSync(fd).size > MAX_TRAJECTORY_BYTES) return { doc: null, oversized: true, bad: null };
    const text = readFileSync(fd, 'utf8');
    const doc = parseObject(text);
    return { doc, oversized: false, bad: doc === null ? text.slice(0, 240) : null };
  } finally {
    closeSync(fd);
  }
}

/** How each of a session's calls ended, as the database says: `tool_call_id` → status. */
function statusesOf(db: Database, session: string): Map<string, string> {
  const statuses = new Map<string, string>();
  if (!columnsOf(db, 'tool_call_state').has('session_id')) return statuses;
  const rows = db
    .prepare(
      `SELECT tool_call_id AS id, json_extract(tool_call_update_json, '$.status') AS status
      FROM tool_call_state WHERE session_id = ?`,
    )
    .all(session) as { id: unknown; status: unknown }[];
  for (const r of rows)
    if (typeof r.id === 'string' && typeof r.status === 'string') statuses.set(r.id, r.status);
  return statuses;
}

function parse(file: SourceFile, _previous: ParseResult | null): ParseResult {
  const m = splitMember(file.path);
  if (m === null) throw Object.assign(new Error('not a Devin session name'), { code: 'ENOENT' });
  const db = readOnly(m.database);
  const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(m.member) as JsonObject | undefined;
  const session = row ? sessionFrom(row) : null;
  if (session === null) throw Object.assign(new Error('the session is gone'), { code: 'ENOENT' });
  const statuses = statusesOf(db, m.member);
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  const t = readTrajectory(transcriptOf(file.path)!);
  if (t.oversized) facts.oversizedLines = 1;
  if (t.bad !== null) {
    facts.lines = 1;
    noteBadLine(facts, t.bad);
  }
  foldSession(facts, ledger, { session, trajectory: t.doc ? trajectoryFrom(t.doc) : null, statuses });
  if (t.doc) facts.lines = 1;
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}

/** The conversation: the trajectory's steps, each call's outcome from the database. */
function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('cctop reads no subagents of a Devin session');
  const m = splitMember(path);
  const transcript = transcriptOf(path);
  if (m === null || transcript === null) return unsupported('not a Devin session');
  let text: string;
  try {
    if (statSync(transcript).size > MAX_TRAJECTORY_BYTES)
      return unsupported('the trajectory is too large to read');
    text = readFileSync(transcript, 'utf8');
  } catch {
    return unsupported('this session has no trajectory on this machine yet');
  }
  const sink = new TurnSink(o.before);
  try {
    const { steps } = atifSteps(text);
    const statuses = statusesOf(readOnly(m.database), m.member);
    for (const step of steps) atifStep(sink, step, statuses);
  } catch (err) {
    return unsupported(`could not read the trajectory: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const devin: Provider = {
  id: 'devin',
  label: 'Devin',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: devinRoots,
  discover,
  parse,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  conversation,
};
