/**
 * Reading a Hermes session (its row and its messages) into facts and its ledger record: what the
 * index calls for every session whose fingerprint moved, and where this provider's parser version is
 * digested from (`index/version.ts`).
 */
import type { JsonObject } from '../../model/json.js';
import { columnsOf, type Database } from '../sqlite.js';
import { parseSessionRow } from '../sqlite-session-read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { foldSession } from './parser.js';
import { TABLES } from './place.js';
import { type HermesMessage, messageFrom, sessionFrom } from './record.js';

/**
 * The messages of one session read at most: a session of days is a few thousand; past this the
 * newest are left out rather than the read held up (the totals are in the session row anyway).
 */
export const MAX_MESSAGES = 20_000;

export function messagesOf(db: Database, session: string): HermesMessage[] {
  const cols = columnsOf(db, 'messages');
  if (!cols.has('session_id')) return [];
  const pick = (c: string) => (cols.has(c) ? c : 'NULL');
  const order = cols.has('timestamp') ? 'timestamp, id' : 'rowid';
  const rows = db
    .prepare(
      `SELECT ${pick('role')} AS role, ${pick('content')} AS content, ${pick('tool_calls')} AS tool_calls,
      ${pick('tool_call_id')} AS tool_call_id, ${pick('timestamp')} AS timestamp
      FROM messages WHERE session_id = ? ORDER BY ${order} LIMIT ${MAX_MESSAGES}`,
    )
    .all(session) as JsonObject[];
  return rows.map(messageFrom);
}

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  return parseSessionRow(file, 'Hermes', TABLES, sessionFrom, (db, id, session, facts, ledger) =>
    foldSession(facts, ledger, session, messagesOf(db, id)),
  );
}
