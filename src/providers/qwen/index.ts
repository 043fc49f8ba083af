/**
 * Qwen Code: `projects/<project>/chats/<session id>.jsonl` under its runtime directory, which is
 * `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (Qwen Code's documentation of its
 * environment variables: `QWEN_RUNTIME_DIR` "overrides the runtime output directory (conversations,
 * logs, todos); defaults to QWEN_HOME"). The project folder is the working directory with every
 * other character than letters and digits replaced by `-`; the records carry the real `cwd`.
 * Finding the chats and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations and calls are here.
 */
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { eachObject } from '../conversation-util.js';
import type { ConversationOptions, Provider } from '../types.js';
import { qwenCalls } from './calls.js';
import { QwenConversation } from './conversation.js';
import { parse } from './parse.js';
import { type QwenCarry, readQwenCarry } from './parser.js';
import { qwenPlace } from './place.js';

export { qwenPlace, qwenRoots } from './place.js';

/** A subagent is named by its `agentId` (`explore-7f3c`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && !AGENT_ID.test(o.agent))
    return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
  const sink = new TurnSink(o.before, o.feed);
  const reader = new QwenConversation(sink, o.agent);
  try {
    eachObject(path, (r) => reader.record(r));
  } catch (err) {
    return unsupported(`could not read the chat: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const qwen: Provider<'qwen', QwenCarry> = {
  ...qwenPlace,
  parse,
  readCarry: readQwenCarry,
  conversation,
  calls: qwenCalls,
};
