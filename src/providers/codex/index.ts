/**
 * Codex: `sessions/YYYY/MM/DD/rollout-*.jsonl` and `archived_sessions/` under each Codex home.
 * Finding them and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations and calls, and who a spawned subagent's rollout is, are here.
 */
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { eachObject } from '../conversation-util.js';
import type { ConversationOptions, Provider } from '../types.js';
import { codexCalls } from './calls.js';
import { CodexConversation } from './conversation.js';
import { parse } from './parse.js';
import { type CodexCarry, readCodexCarry } from './parser.js';
import { codexPlace, rolloutId } from './place.js';

export { codexPlace, codexRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  // Known limit: a spawned subagent's rollout is counted with its parent, but not read as its conversation.
  if (o.agent !== null) return unsupported("a Codex subagent's conversation is not read yet");
  const sink = new TurnSink(o.before, o.feed);
  const reader = new CodexConversation(sink);
  try {
    eachObject(
      path,
      (r, at) => {
        sink.at(at);
        reader.record(r);
      },
      sink.startAt(),
    );
  } catch (err) {
    return unsupported(`could not read the transcript: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const codex: Provider<'codex', CodexCarry> = {
  ...codexPlace,
  parse,
  readCarry: readCodexCarry,
  conversation,
  calls: codexCalls,
  // A spawned subagent's rollout (counted with the session that spawned it) is named by its own id.
  subagent: (path) => ({ agent: rolloutId(path) ?? path, type: null }),
};
