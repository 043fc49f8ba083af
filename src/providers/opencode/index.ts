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
 * Finding the sessions and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations and calls are here.
 */
import { basename } from 'node:path';
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { readNoCarry } from '../carry.js';
import { splitMember, validMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { OpenCodeCalls } from './calls.js';
import { OpenCodeConversation } from './conversation.js';
import { isChildOf, readChat } from './db.js';
import { parse } from './parse.js';
import { DATABASE_NAME, opencodePlace } from './place.js';
import { readStoredChat, storedChild } from './storage.js';

export { opencodePlace, opencodeRoots } from './place.js';

/** A child session is named by its id (`ses_…`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The conversation of a session (a database member or a legacy session file), or of one of its child
 * sessions: a task OpenCode ran for it, named by the child's session id.
 */
function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && (!AGENT_ID.test(o.agent) || !validMember(o.agent)))
    return unsupported(`"${o.agent.slice(0, 40)}" is not a session id`);
  const sink = new TurnSink(o.before, o.feed);
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

export const opencode: Provider<'opencode', null> = {
  ...opencodePlace,
  parse,
  readCarry: readNoCarry,
  conversation,
  calls,
};
