/**
 * Goose: its sessions in `sessions.db` under its data folder (`$GOOSE_PATH_ROOT/data`, else
 * `~/.local/share/goose`), each named `<sessions.db>#<id>`. Finding them is `place.ts`; reading one
 * into facts is `parse.ts`; its conversation (the session's messages) is here.
 */
import {
  type Conversation,
  joinText,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
} from '../../model/conversation.js';
import { prettyToolName, toolDetail } from '../../model/tools.js';
import { readNoCarry } from '../carry.js';
import { head } from '../conversation-util.js';
import { sessionConversation } from '../sqlite-session-read.js';
import type { ConversationOptions, Provider } from '../types.js';
import { messagesOf, parse } from './parse.js';
import { goosePlace } from './place.js';

export { goosePlace, gooseRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  return sessionConversation(path, o, 'Goose', (db, id, sink) => {
    for (const msg of messagesOf(db, id)) {
      const ts = msg.ms === null ? '' : new Date(msg.ms).toISOString();
      let said = '';
      for (const item of msg.items) {
        if (item.kind === 'text') said = joinText(said, head(item.text, MAX_TEXT_CHARS));
        else if (item.kind === 'result' && item.id !== null)
          sink.resolve(item.id, resultText(head(item.text, MAX_RESULT_CHARS)), item.failed, null);
      }
      if (msg.role === 'user') {
        if (said.trim().length > 0) sink.push('user', 'message', ts, said);
      } else if (msg.role === 'assistant') {
        const calls = msg.items.flatMap((i) => (i.kind === 'call' ? [i] : []));
        if (said.trim().length === 0 && calls.length === 0) continue;
        sink.appendText(sink.openAssistant(ts, null), said);
        for (const c of calls) {
          const { detail, full } = toolDetail(c.name, c.args);
          sink.addTool(sink.openAssistant(ts, null), c.id, newTool(prettyToolName(c.name), detail, full));
        }
      }
    }
  });
}

export const goose: Provider<'goose', null> = { ...goosePlace, parse, readCarry: readNoCarry, conversation };
