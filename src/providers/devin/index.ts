/**
 * Devin (the Devin CLI): its sessions in `sessions.db` (`$CHISEL_SESSION_DB`, else
 * `$XDG_DATA_HOME/devin/cli/sessions.db`, else `~/.local/share/devin/cli/sessions.db`), each with an
 * ATIF trajectory in `transcripts/<id>.json` beside the database, and how every tool call ended in
 * the database's `tool_call_state`. A session Devin deleted is marked `hidden` and is not shown.
 *
 * A session is named `<sessions.db>#<id>` (see `../sqlite.ts`); `transcriptOf` gives its trajectory.
 * Its fingerprint moves with the trajectory file, the session's last activity and its calls' states.
 *
 * Finding the sessions and the window rules are in `place.ts`; reading them is here.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type CallLog, emptyCallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { emptyFacts, noteBadLine } from '../../model/facts.js';
import { arr, type BadLineReason, type JsonObject, obj, readJson } from '../../model/json.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { atifStep, atifSteps } from '../atif/conversation.js';
import { columnsOf, type Database, readOnly, splitMember, tablesOnly } from '../sqlite.js';
import type { ConversationOptions, ParseResult, Provider, SourceFile } from '../types.js';
import { devinCalls } from './calls.js';
import { foldSession } from './parser.js';
import { devinPlace, TABLES } from './place.js';
import { sessionFrom, trajectoryFrom } from './record.js';

export { devinDatabase, devinPlace, devinRoots } from './place.js';

/** A trajectory is read whole; past this it is reported rather than read. */
export const MAX_TRAJECTORY_BYTES = 64 << 20;

/** The trajectory of a session named by its member path. */
export function transcriptOf(path: string): string | null {
  const m = splitMember(path);
  return m === null ? null : join(dirname(m.database), 'transcripts', `${m.member}.json`);
}

function readTrajectory(path: string): {
  doc: JsonObject | null;
  oversized: boolean;
  bad: BadLineReason | null;
} {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { doc: null, oversized: false, bad: null };
  }
  try {
    if (fstatSync(fd).size > MAX_TRAJECTORY_BYTES) return { doc: null, oversized: true, bad: null };
    const r = readJson(readFileSync(fd, 'utf8'));
    const doc = r.kind === 'read' ? obj(r.value) : null;
    return {
      doc,
      oversized: false,
      bad: doc !== null ? null : r.kind === 'bad' ? r.reason : 'not-json-object',
    };
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
  tablesOnly(db, TABLES.required, TABLES.optional);
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
    noteBadLine(facts, 1, t.bad);
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

/** The calls: the trajectory's steps, each call's outcome from the database. */
function calls(path: string): CallLog {
  const m = splitMember(path);
  const transcript = transcriptOf(path);
  const doc = m === null || transcript === null ? null : readTrajectory(transcript).doc;
  if (m === null || doc === null) return emptyCallLog();
  const steps = (arr(doc.steps) ?? []).map(obj).filter((s): s is JsonObject => s !== null);
  return devinCalls(steps, statusesOf(readOnly(m.database), m.member));
}

export const devin: Provider = { ...devinPlace, parse, conversation, calls };
