/**
 * Kimi CLI (MoonshotAI's `kimi`): one session per `sessions/<work dir hash>/<id>/wire.jsonl` under
 * `$KIMI_DATA_DIR` or `~/.kimi`, and its successor Kimi Code's agent wires under `~/.kimi-code`.
 * Finding the sessions is `place.ts`; reading them into facts is `parse.ts`; the conversation Kimi
 * CLI's wire holds is read here (`conversation.ts`).
 */
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { eachObject } from '../conversation-util.js';
import type { ConversationOptions, Provider } from '../types.js';
import { KimiConversation } from './conversation.js';
import { isCodeWire, parse } from './parse.js';
import { type KimiCarry, readKimiCarry } from './parser.js';
import { kimiPlace } from './place.js';

export { kimiPlace, kimiRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null)
    return unsupported("cctop reads a Kimi CLI session's own wire, not its subagents' yet");
  if (isCodeWire(path))
    return unsupported("cctop reads Kimi Code's usage and prompts, not its conversation yet");
  const sink = new TurnSink(o.before, o.feed);
  const reader = new KimiConversation(sink);
  try {
    eachObject(path, (line, at) => reader.line(line, at), sink.startAt());
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const kimi: Provider<'kimi', KimiCarry> = {
  ...kimiPlace,
  parse,
  readCarry: readKimiCarry,
  conversation,
};
