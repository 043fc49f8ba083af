/**
 * OpenCode: its data directory (`$OPENCODE_DATA_DIR`, else `$XDG_DATA_HOME/opencode`, else
 * `~/.local/share/opencode`) holds the `opencode*.db` database of 1.2 and later and, from before,
 * the `storage/` tree of JSON files (see `db.ts` and `storage.ts`). A session is counted once: from
 * the database when it is there, else from the tree.
 *
 * A database session is named `<database>#<session id>` (see `../sqlite.ts`). A child session (a
 * task OpenCode ran for the main one) counts toward the session at the top of its chain, as a
 * subagent's transcript does for Claude Code.
 *
 * Finding the sessions and the window rules are in `place.ts`; reading them is here.
 */
import { basename } from 'node:path';
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { emptyFacts } from '../../model/facts.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { splitMember, validMember } from '../sqlite.js';
import type { ConversationOptions, ParseResult, Provider, SourceFile } from '../types.js';
import { OpenCodeCalls } from './calls.js';
import { OpenCodeConversation } from './conversation.js';
import { isChildOf, readChat, readSession } from './db.js';
import { foldSession } from './parser.js';
import { DATABASE_NAME, opencodePlace } from './place.js';
import { readStoredChat, readStoredSession, storedChild } from './storage.js';

export { opencodePlace, opencodeRoots } from './place.js';

function parse(file: SourceFile, _previous: ParseResult | null): ParseResult {
  const member = splitMember(file.path);
  const rows =
    member !== null && DATABASE_NAME.test(basename(member.database))
      ? readSession(member.database, member.member)
      : readStoredSession(file.path);
  if (rows === null) {
    throw Object.assign(new Error('the session is gone'), { code: 'ENOENT' });
  }
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  foldSession(facts, ledger, rows);
  facts.lines = rows.messages.length;
  if (rows.unread) {
    // Each file of a `storage/` tree is one record, as a line is of a transcript.
    facts.lines += rows.unread.count;
    facts.badLines += rows.unread.count;
    facts.firstBad = { line: 1, ...rows.unread.first };
  }
  facts.oversizedLines += rows.oversized ?? 0;
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    // Rows are re-read whole: there is no offset to continue from.
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}

/** A child session is named by its id (`ses_…`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The conversation of a session (a database member or a legacy session file), or of one of its child
 * sessions: a task OpenCode ran for it, named by the child's session id.
 */
function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && (!AGENT_ID.test(o.agent) || !validMember(o.agent)))
    return unsupported(`"${o.agent.slice(0, 40)}" is not a session id`);
  const sink = new TurnSink(o.before);
  const reader = new OpenCodeConversation(sink);
  const each = reader.message.bind(reader);
  try {
    const member = splitMember(path);
    let found: boolean;
    if (member !== null && DATABASE_NAME.test(basename(member.database))) {
      const id = o.agent ?? member.member;
      if (o.agent !== null && !isChildOf(member.database, o.agent, member.member))
        return unsupported(`this session has no task ${o.agent}`);
      found = readChat(member.database, id, each);
    } else {
      const file = o.agent === null ? path : storedChild(path, o.agent);
      if (file === null) return unsupported(`this session has no task ${o.agent}`);
      found = readStoredChat(file, each);
    }
    if (!found) return unsupported('the session is gone');
    reader.finish();
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of a session (a database member or a legacy session file), its messages in order. */
function calls(path: string): CallLog {
  const reader = new OpenCodeCalls();
  const each = reader.message.bind(reader);
  const member = splitMember(path);
  if (member !== null && DATABASE_NAME.test(basename(member.database)))
    readChat(member.database, member.member, each);
  else readStoredChat(path, each);
  return reader.c.log;
}

export const opencode: Provider = { ...opencodePlace, parse, conversation, calls };
