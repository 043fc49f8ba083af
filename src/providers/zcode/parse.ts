/**
 * Reading one ZCode session out of its usage database into facts and ledger records: what the index
 * calls for every changed session, and where this provider's parser version is digested from
 * (`index/version.ts`). Not here: listing the sessions (`place.ts`).
 *
 * One `completed` row is one billed request (`record.ts` reads a row); an `error` or `cancelled`
 * attempt records no tokens and sets the session's state. A request's id is its identity, so a
 * database copied under a second root counts once. ZCode records no cost, so every request is
 * priced from the catalogue. The schema ccusage reads has no title; a `title` column, where a build
 * has one, names the session.
 */
import { emptyFacts, noteModel, noteTime, oneLine } from '../../model/facts.js';
import { type JsonObject, text } from '../../model/json.js';
import { hashString, LedgerBuilder } from '../../model/ledger.js';
import { columnsOf, readOnly, splitMember, tablesOnly } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { TABLES } from './place.js';
import { rowOf } from './record.js';

/** Requests read per session: a long day is a few thousand; past this the rest is not read. */
export const MAX_REQUESTS = 200_000;

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  const m = splitMember(file.path);
  if (m === null) throw Object.assign(new Error('not a ZCode session name'), { code: 'ENOENT' });
  const db = readOnly(m.database);
  tablesOnly(db, TABLES.required, TABLES.optional);
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  facts.sessionId = m.member;
  facts.recordsOutcomes = false;

  const session = columnsOf(db, 'session');
  if (session.has('id')) {
    const cols = ['directory', 'title'].filter((c) => session.has(c));
    const row =
      cols.length === 0
        ? undefined
        : (db.prepare(`SELECT ${cols.join(', ')} FROM session WHERE id = ?`).get(m.member) as
            | JsonObject
            | undefined);
    facts.cwd = text(row?.directory);
    const title = text(row?.title);
    if (title !== null) facts.titles.custom = oneLine(title);
  }

  const rows = db
    .prepare(
      `SELECT id, started_at, model_id, status, input_tokens, output_tokens, reasoning_tokens,
        cache_creation_input_tokens, cache_read_input_tokens
      FROM model_usage WHERE session_id = ? ORDER BY started_at LIMIT ${MAX_REQUESTS + 1}`,
    )
    .all(m.member) as JsonObject[];
  if (rows.length > MAX_REQUESTS) {
    facts.oversizedLines = 1;
    rows.length = MAX_REQUESTS;
  }
  for (const r of rows) {
    facts.lines++;
    const row = rowOf(r);
    noteTime(facts, row.ms);
    switch (row.kind) {
      case 'attempt':
        if (row.status === 'cancelled') facts.aborts++;
        facts.live = {
          state: row.status === 'cancelled' ? 'idle' : 'error',
          atMs: row.ms,
          detail: row.status === null ? null : oneLine(row.status, 40),
        };
        break;
      case 'empty':
        break;
      case 'request':
        noteModel(facts, row.model);
        facts.mainModel = row.model;
        ledger.push({
          key: row.id === null ? null : hashString(`zcode\u0000${row.id}`),
          request: 0,
          tsMs: row.ms,
          model: row.model,
          sidechain: false,
          tokens: {
            input: row.input,
            output: row.output,
            cacheRead: row.cacheRead,
            cacheWrite5m: row.cacheWrite,
            cacheWrite1h: null,
            reasoning: row.reasoning,
          },
        });
        facts.context = {
          prompt: row.input + row.cacheRead + row.cacheWrite,
          model: row.model,
          atMs: row.ms,
        };
        facts.live = { state: 'idle', atMs: row.ms, detail: 'reply' };
        break;
    }
  }
  return memberRead(file, facts, ledger.build());
}
