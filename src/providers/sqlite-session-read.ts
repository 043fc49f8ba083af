/**
 * One session kept as rows of a harness database, read whole into facts, and its conversation: the
 * same steps for Goose and Hermes (and any harness of that shape), with what the rows mean handed in
 * by the provider. Listing the sessions is `sqlite-sessions.ts`.
 */
import { type Conversation, TurnSink, unsupported } from '../model/conversation.js';
import { emptyFacts, type FileFacts } from '../model/facts.js';
import type { JsonObject } from '../model/json.js';
import { LedgerBuilder } from '../model/ledger.js';
import { type Database, readOnly, tablesOnly } from './sqlite.js';
import { memberRead, splitMember } from './sqlite-members.js';
import type { ConversationOptions, ParseResult, SourceFile } from './types.js';

/** An error the index takes for a source that is gone (as a deleted file is), not for damage. */
const gone = (why: string): Error => Object.assign(new Error(why), { code: 'ENOENT' });

/**
 * One session of a database read whole: `read` fills the facts and ledger from its rows, or says the
 * session is no longer there. `harness` names it in the errors.
 */
export function parseSession(
  file: SourceFile,
  harness: string,
  read: (db: Database, session: string, facts: FileFacts, ledger: LedgerBuilder) => boolean,
): ParseResult<null> {
  const m = splitMember(file.path);
  if (m === null) throw gone(`not a ${harness} session name`);
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  if (!read(readOnly(m.database), m.member, facts, ledger)) throw gone('the session is gone');
  return memberRead(file, facts, ledger.build());
}

/**
 * The conversation of one session of a database: `read` pushes its turns into the sink. A failure is
 * the conversation's note, not a throw. `harness` names it in the notes.
 */
export function sessionConversation(
  path: string,
  o: ConversationOptions,
  harness: string,
  read: (db: Database, session: string, sink: TurnSink) => void,
): Conversation {
  if (o.agent !== null) return unsupported(`cctop reads no subagents of a ${harness} session`);
  const m = splitMember(path);
  if (m === null) return unsupported(`not a ${harness} session`);
  const sink = new TurnSink(o.before, o.feed);
  try {
    read(readOnly(m.database), m.member, sink);
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/**
 * One session of a database whose `sessions` table has a row per session by `id` (Goose, Hermes):
 * the row read by the provider's `session`, then folded with whatever else the provider reads.
 * `tables` are checked first (`sqlite-schema.ts`).
 */
export function parseSessionRow<S>(
  file: SourceFile,
  harness: string,
  tables: { required: readonly string[]; optional: readonly string[] },
  session: (row: JsonObject) => S | null,
  fold: (db: Database, id: string, session: S, facts: FileFacts, ledger: LedgerBuilder) => void,
): ParseResult<null> {
  return parseSession(file, harness, (db, id, facts, ledger) => {
    tablesOnly(db, tables.required, tables.optional);
    const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as JsonObject | undefined;
    const s = row ? session(row) : null;
    if (s === null) return false;
    fold(db, id, s, facts, ledger);
    facts.lines = 1;
    return true;
  });
}
