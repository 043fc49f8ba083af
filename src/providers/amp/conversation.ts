/**
 * An Amp thread's conversation: its messages into turns. The person's text is a user turn; an
 * assistant message's `thinking` is reasoning, its text and `tool_use` calls one reply; a user
 * message's `tool_result` answers a call by `toolUseID` (the model is then asked again, so the reply
 * ends there). A call failed when Amp's run of it ended in `error`, or was `cancelled` (refused).
 * Amp records no time per message except the requests' own; a turn without one shows none.
 */
import {
  joinText,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type TurnSink,
} from '../../model/conversation.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { prettyToolName, toolDetail } from '../../model/tools.js';
import { flattenContent, head } from '../conversation-util.js';

/** What a tool's run said: its result, else its error. */
function runText(run: JsonObject | null): string {
  const said = run?.result ?? run?.error ?? null;
  if (said === null) return '';
  return resultText(typeof said === 'string' ? head(said, MAX_RESULT_CHARS) : flattenContent(said));
}

export function readConversation(thread: JsonObject, sink: TurnSink): void {
  for (const v of arr(thread.messages) ?? []) {
    const m = obj(v);
    if (m === null) continue;
    const ts = str(obj(m.usage)?.timestamp) ?? '';
    const blocks = (arr(m.content) ?? []).map(obj).filter((b): b is JsonObject => b !== null);
    const plain = typeof m.content === 'string' ? head(m.content, MAX_TEXT_CHARS) : '';
    switch (str(m.role)) {
      case 'user': {
        let said = plain;
        for (const b of blocks) {
          if (b.type === 'text' && typeof b.text === 'string')
            said = joinText(said, head(b.text, MAX_TEXT_CHARS));
          else if (b.type === 'tool_result') {
            const id = text(b.toolUseID);
            const run = obj(b.run);
            const status = str(run?.status);
            if (id !== null)
              sink.resolve(id, runText(run), status === 'error' || status === 'cancelled', null);
          }
        }
        if (said.trim().length > 0) sink.push('user', 'message', ts, said);
        break;
      }
      case 'assistant': {
        let said = plain;
        for (const b of blocks) {
          if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.trim().length > 0)
            sink.push('assistant', 'reasoning', ts, head(b.thinking, MAX_TEXT_CHARS));
          else if (b.type === 'text' && typeof b.text === 'string')
            said = joinText(said, head(b.text, MAX_TEXT_CHARS));
        }
        const calls = blocks.filter((b) => b.type === 'tool_use' && text(b.name) !== null);
        if (said.trim().length === 0 && calls.length === 0) break;
        const seq = sink.openAssistant(ts, null);
        sink.appendText(seq, said);
        for (const c of calls) {
          const name = text(c.name) ?? 'tool';
          const { detail, full } = toolDetail(name, c.input ?? null);
          sink.addTool(sink.openAssistant(ts, null), text(c.id), newTool(prettyToolName(name), detail, full));
        }
        break;
      }
      default:
        break;
    }
  }
}
