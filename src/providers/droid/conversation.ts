/**
 * A Droid session's conversation: the `message` records of `<id>.jsonl` into turns. The person's
 * text is a user turn; an assistant message's `thinking` is reasoning, its text and `tool_use`
 * calls one reply; a `tool_result` in a user message answers a call by `tool_use_id` (failed when
 * `is_error`), and the reply ends there, since the model is asked again.
 */
import { joinText, MAX_TEXT_CHARS, newTool, resultText, type TurnSink } from '../../model/conversation.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { prettyToolName, toolDetail } from '../../model/tools.js';
import { flattenContent, head } from '../conversation-util.js';

export class DroidConversation {
  constructor(private readonly sink: TurnSink) {}

  record(r: JsonObject): void {
    if (r.type !== 'message') return;
    const m = obj(r.message);
    const ts = str(r.timestamp) ?? '';
    const plain = typeof m?.content === 'string' ? head(m.content, MAX_TEXT_CHARS) : '';
    const blocks = (arr(m?.content) ?? []).map(obj).filter((b): b is JsonObject => b !== null);
    if (m?.role === 'user') {
      let said = plain;
      for (const b of blocks) {
        if (b.type === 'text' && typeof b.text === 'string')
          said = joinText(said, head(b.text, MAX_TEXT_CHARS));
        else if (b.type === 'tool_result') {
          const id = text(b.tool_use_id);
          if (id !== null)
            this.sink.resolve(id, resultText(flattenContent(b.content)), b.is_error === true, null);
        }
      }
      if (said.trim().length > 0) this.sink.push('user', 'message', ts, said);
    } else if (m?.role === 'assistant') {
      let said = plain;
      for (const b of blocks) {
        if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.trim().length > 0)
          this.sink.push('assistant', 'reasoning', ts, head(b.thinking, MAX_TEXT_CHARS));
        else if (b.type === 'text' && typeof b.text === 'string')
          said = joinText(said, head(b.text, MAX_TEXT_CHARS));
      }
      const calls = blocks.filter((b) => b.type === 'tool_use' && text(b.name) !== null);
      if (said.trim().length === 0 && calls.length === 0) return;
      this.sink.appendText(this.sink.openAssistant(ts, null), said);
      for (const c of calls) {
        const name = text(c.name) ?? 'tool';
        const { detail, full } = toolDetail(name, c.input ?? null);
        this.sink.addTool(
          this.sink.openAssistant(ts, null),
          text(c.id),
          newTool(prettyToolName(name), detail, full),
        );
      }
    }
  }
}
