/**
 * Codebuff: one `chat-messages.json` per chat under its channels' `projects/<project>/chats/<id>/`.
 * Finding the chats is `place.ts`; reading one into facts is `parse.ts`; its conversation is here:
 * the person's messages and the responses' text, in order (Codebuff's chat holds no calls cctop
 * can read).
 */
import { readFileSync, statSync } from 'node:fs';
import { type Conversation, MAX_TEXT_CHARS, TurnSink, unsupported } from '../../model/conversation.js';
import { arr, readJson } from '../../model/json.js';
import { readNoCarry } from '../carry.js';
import { head } from '../conversation-util.js';
import type { ConversationOptions, Provider } from '../types.js';
import { MAX_DOCUMENT_BYTES } from '../whole-json.js';
import { parse } from './parse.js';
import { codebuffPlace } from './place.js';
import { messageFrom } from './record.js';

export { codebuffPlace, codebuffRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Codebuff records no subagent conversations apart');
  let messages: unknown[] | null = null;
  try {
    if (statSync(path).size > MAX_DOCUMENT_BYTES) return unsupported('the chat is too large to read');
    const r = readJson(readFileSync(path, 'utf8'));
    messages = r.kind === 'read' ? arr(r.value) : null;
  } catch (err) {
    return unsupported(`could not read the chat: ${(err as Error).message}`);
  }
  if (messages === null) return unsupported('the chat is not a JSON array');
  const sink = new TurnSink(o.before, o.feed);
  for (const v of messages) {
    const m = messageFrom(v);
    if (m === null || m.role === 'other' || m.text.trim().length === 0) continue;
    const ts = m.ms === null ? '' : new Date(m.ms).toISOString();
    if (m.role === 'user') sink.push('user', 'message', ts, head(m.text, MAX_TEXT_CHARS));
    else sink.appendText(sink.openAssistant(ts, null), head(m.text, MAX_TEXT_CHARS));
  }
  return sink.finish();
}

export const codebuff: Provider<'codebuff', null> = {
  ...codebuffPlace,
  parse,
  readCarry: readNoCarry,
  conversation,
};
