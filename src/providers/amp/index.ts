/**
 * Amp: one JSON file per thread under `threads/` in its data directory (`$AMP_DATA_DIR`, else
 * `~/.local/share/amp`). Finding the threads is `place.ts`; reading one into facts is `parse.ts`;
 * its conversation is here.
 */
import { readFileSync, statSync } from 'node:fs';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { obj, readJson } from '../../model/json.js';
import { readNoCarry } from '../carry.js';
import type { ConversationOptions, Provider } from '../types.js';
import { MAX_DOCUMENT_BYTES } from '../whole-json.js';
import { readConversation } from './conversation.js';
import { parse } from './parse.js';
import { ampPlace } from './place.js';

export { ampPlace, ampRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Amp records no subagent conversations apart');
  let thread: ReturnType<typeof obj> = null;
  try {
    if (statSync(path).size > MAX_DOCUMENT_BYTES) return unsupported('the thread is too large to read');
    const r = readJson(readFileSync(path, 'utf8'));
    thread = r.kind === 'read' ? obj(r.value) : null;
  } catch (err) {
    return unsupported(`could not read the thread: ${(err as Error).message}`);
  }
  if (thread === null) return unsupported('the thread is not a JSON object');
  const sink = new TurnSink(o.before, o.feed);
  readConversation(thread, sink);
  return sink.finish();
}

export const amp: Provider<'amp', null> = { ...ampPlace, parse, readCarry: readNoCarry, conversation };
