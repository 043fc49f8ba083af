/**
 * Hermes Agent: its sessions in `state.db` in its home (`$HERMES_HOME`, else `~/.hermes`), each
 * named `<state.db>#<id>`. Finding them is `place.ts`; reading one into facts is `parse.ts`; its
 * conversation (the session's messages) is here.
 */
import {
  type Conversation,
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
import { hermesPlace } from './place.js';

export { hermesPlace, hermesRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  return sessionConversation(path, o, 'Hermes', (db, id, sink) => {
    for (const msg of messagesOf(db, id)) {
      const ts = msg.ms === null ? '' : new Date(msg.ms).toISOString();
      switch (msg.role) {
        case 'user':
          if (msg.content.trim().length > 0)
            sink.push('user', 'message', ts, head(msg.content, MAX_TEXT_CHARS));
          break;
        case 'assistant': {
          if (msg.content.trim().length === 0 && msg.calls.length === 0) break;
          sink.appendText(sink.openAssistant(ts, null), head(msg.content, MAX_TEXT_CHARS));
          for (const [callId, name, args] of msg.calls) {
            const input = typeof args === 'string' ? args : (args ?? null);
            const { detail, full } = toolDetail(name, input);
            sink.addTool(sink.openAssistant(ts, null), callId, newTool(prettyToolName(name), detail, full));
          }
          break;
        }
        case 'tool':
          // Hermes records no outcome: a result is shown, never as failed.
          if (msg.answers !== null)
            sink.resolve(msg.answers, resultText(head(msg.content, MAX_RESULT_CHARS)), false, null);
          break;
        default:
          break;
      }
    }
  });
}

export const hermes: Provider<'hermes', null> = {
  ...hermesPlace,
  parse,
  readCarry: readNoCarry,
  conversation,
};
