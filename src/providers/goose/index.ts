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
  TurnSink,
  unsupported,
} from '../../model/conversation.js';
import { prettyToolName, toolDetail } from '../../model/tools.js';
import { readNoCarry } from '../carry.js';
import { head } from '../conversation-util.js';
import { readOnly, splitMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { messagesOf, parse } from './parse.js';
import { goosePlace } from './place.js';

export { goosePlace, gooseRoots } from './place.js';

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('cctop reads no subagents of a Goose session');
  const m = splitMember(path);
  if (m === null) return unsupported('not a Goose session');
  const sink = new TurnSink(o.before, o.feed);
  try {
    for (const msg of messagesOf(readOnly(m.database), m.member)) {
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
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const goose: Provider<'goose', null> = { ...goosePlace, parse, readCarry: readNoCarry, conversation };
