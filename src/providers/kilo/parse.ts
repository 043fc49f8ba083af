/**
 * Reading a Kilo session (`kilo.db` rows) into facts and ledger records: what the index calls for
 * every changed session, and where this provider's parser version is digested from
 * (`index/version.ts`).
 */
import { emptyFacts } from '../../model/facts.js';
import type { JsonObject } from '../../model/json.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { columnsOf, IN_BUDGET, readOnly, splitMember, tablesOnly, withinBudget } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { foldSession } from './parser.js';
import { messageOf, partOf, sessionOf } from './record.js';

/** The tables read: anything else by these names (a view) makes the database a problem. */
const TABLES = { required: ['session', 'message'], optional: ['part'] } as const;

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  const member = splitMember(file.path);
  if (member === null) throw Object.assign(new Error('not a Kilo session name'), { code: 'ENOENT' });
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  const found = withinBudget(() => {
    const db = readOnly(member.database);
    tablesOnly(db, TABLES.required, TABLES.optional);
    const row = db.prepare(`SELECT * FROM session WHERE id = ? AND ${IN_BUDGET}`).get(member.member) as
      | JsonObject
      | undefined;
    const session = row ? sessionOf(row) : null;
    if (session === null) return false;
    const messages = (
      db
        .prepare(`SELECT id, data FROM message WHERE session_id = ? AND ${IN_BUDGET} ORDER BY id`)
        .all(member.member) as JsonObject[]
    ).flatMap((r) => messageOf(r) ?? []);
    // A part's text is cut by SQLite: a prompt names the session; a pasted file need not be read.
    const parts = columnsOf(db, 'part').has('session_id')
      ? (
          db
            .prepare(
              `SELECT id, message_id, CASE WHEN json_extract(data, '$.type') = 'text'
                THEN json_set(data, '$.text', substr(json_extract(data, '$.text'), 1, 4096))
                ELSE json_remove(data, '$.state.output', '$.state.input') END AS data
              FROM part WHERE session_id = ? AND ${IN_BUDGET} ORDER BY id`,
            )
            .all(member.member) as JsonObject[]
        ).map(partOf)
      : [];
    foldSession(facts, ledger, session, messages, parts);
    facts.lines = messages.length;
    return true;
  });
  if (!found) throw Object.assign(new Error('the session is gone'), { code: 'ENOENT' });
  return memberRead(file, facts, ledger.build());
}
