/**
 * Droid (Factory): one `<id>.settings.json` per session under `~/.factory/sessions/<project>/`
 * (`$DROID_SESSIONS_DIR`), its conversation in `<id>.jsonl` beside it. Finding the sessions is
 * `place.ts`; reading one into facts is `parse.ts`; its conversation is here.
 */
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { readNoCarry } from '../carry.js';
import { eachObject } from '../conversation-util.js';
import type { ConversationOptions, Provider } from '../types.js';
import { DroidConversation } from './conversation.js';
import { conversationPath, parse } from './parse.js';
import { droidPlace } from './place.js';

export { droidPlace, droidRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Droid records no subagent conversations apart');
  const sink = new TurnSink(o.before, o.feed);
  const reader = new DroidConversation(sink);
  try {
    eachObject(conversationPath(path), (r) => reader.record(r));
  } catch (err) {
    return unsupported(`could not read the conversation: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const droid: Provider<'droid', null> = { ...droidPlace, parse, readCarry: readNoCarry, conversation };
