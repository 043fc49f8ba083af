/**
 * Reading a Devin session (its database row and its trajectory) into facts and ledger records: what
 * the index calls for every changed file, and where this provider's parser version is digested from
 * (`index/version.ts`). Not here: finding the files (`place.ts`), or the conversation and calls
 * readers (`index.ts`), so an edit to those does not make the index read the files again.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { emptyFacts, noteBadLine } from '../../model/facts.js';
import { type BadLineReason, type JsonObject, obj, readJson } from '../../model/json.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { columnsOf, type Database, readOnly, splitMember, tablesOnly } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { foldSession } from './parser.js';
import { TABLES } from './place.js';
import { sessionFrom, trajectoryFrom } from './record.js';

/** A trajectory is read whole; past this it is reported rather than read. */
export const MAX_TRAJECTORY_BYTES = 64 << 20;

/** The trajectory of a session named by its member path. */
export function transcriptOf(path: string): string | null {
  const m = splitMember(path);
  return m === null ? null : join(dirname(m.database), 'transcripts', `${m.member}.json`);
}

export function readTrajectory(path: string): {
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
export function statusesOf(db: Database, session: string): Map<string, string> {
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

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
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
  return memberRead(file, facts, ledger.build());
}
