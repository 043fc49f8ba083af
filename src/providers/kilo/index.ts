/**
 * Kilo Code (its CLI): sessions in `kilo.db` (`$KILO_DATA_DIR`, else `~/.local/share/kilo`), in
 * OpenCode's format. Finding them is `place.ts` (with OpenCode's listing); reading one into facts is
 * Kilo's own `parse.ts`; its conversation and calls are OpenCode's readers over the same rows, a
 * child session's (a task's) by its id.
 */
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { readNoCarry } from '../carry.js';
import { OpenCodeCalls } from '../opencode/calls.js';
import { OpenCodeConversation } from '../opencode/conversation.js';
import { isChildOf, readChat } from '../opencode/db.js';
import { splitMember, validMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { parse } from './parse.js';
import { kiloPlace } from './place.js';

export { kiloPlace, kiloRoots } from './place.js';

/** A child session is named by its id (`ses_…`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && (!AGENT_ID.test(o.agent) || !validMember(o.agent)))
    return unsupported(`"${o.agent.slice(0, 40)}" is not a session id`);
  const member = splitMember(path);
  if (member === null) return unsupported('not a Kilo session');
  const sink = new TurnSink(o.before, o.feed);
  const reader = new OpenCodeConversation(sink);
  try {
    if (o.agent !== null && !isChildOf(member.database, o.agent, member.member))
      return unsupported(`this session has no task ${o.agent}`);
    if (!readChat(member.database, o.agent ?? member.member, reader.message.bind(reader)))
      return unsupported('the session is gone');
    reader.finish();
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

function calls(path: string): CallLog {
  const reader = new OpenCodeCalls();
  const member = splitMember(path);
  if (member !== null) readChat(member.database, member.member, reader.message.bind(reader));
  return reader.c.log;
}

export const kilo: Provider<'kilo', null> = {
  ...kiloPlace,
  parse,
  readCarry: readNoCarry,
  conversation,
  calls,
};
