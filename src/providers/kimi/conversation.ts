/**
 * A Kimi CLI session's conversation: the lines of its `wire.jsonl` into turns.
 *
 * The wire is what Kimi's core told its UI, recorded after merging: the streamed pieces of one text,
 * one thinking block or one call's arguments arrive whole, one line each. A turn starts with
 * `TurnBegin` (the person's `user_input`: a string, or text and image parts), or mid-turn with
 * `SteerInput` (words the person typed while the model worked); each `StepBegin` is one model
 * response, whose `ContentPart`s (`text`, or `think` for reasoning) and `ToolCall`s (`function.name`,
 * its `arguments` a JSON string) make one reply; a `ToolResult` answers a call by `tool_call_id`
 * (`return_value`: `is_error`, `output` as text or parts, `message` saying why, and `display` blocks,
 * of which a `diff` says what an edit changed). `CompactionBegin` is a seam, `StepInterrupted` the
 * person stopping the model.
 *
 * Not shown: what a subagent did (`SubagentEvent`, its own wire under `subagents/`), approvals and
 * hooks (the session's facts count what they need), status updates.
 */
import {
  joinText,
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type TurnSink,
} from '../../model/conversation.js';
import { type JsonObject, obj, parseJson, str, text } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { blocksOf, head } from '../conversation-util.js';
import { secondsMs } from './record.js';

/** The words of a `user_input` or a result's `output`: a string, or text and media parts. */
function partsText(v: unknown, max: number): string {
  if (typeof v === 'string') return head(v, max);
  let out = '';
  for (const p of blocksOf(v)) {
    const kind = str(p.type);
    const t = kind === 'text' ? str(p.text) : null;
    if (t !== null) out = joinText(out, head(t, max));
    // A picture, a recording or a film is a URL of megabytes nobody reads here: named, not shown.
    else if (kind === 'image_url' || kind === 'audio_url' || kind === 'video_url')
      out = joinText(out, `[${kind.slice(0, -'_url'.length)}]`);
    if (out.length > 2 * max) break;
  }
  return out;
}

/** The edit a result's `diff` display blocks describe, all of them together. */
function diffOf(display: unknown): ReturnType<typeof editDelta> {
  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  let any = false;
  for (const b of blocksOf(display)) {
    if (b.type !== 'diff') continue;
    const d = editDelta({ old_string: str(b.old_text), new_string: str(b.new_text) });
    if (d === null) continue;
    any = true;
    added += d.added;
    removed += d.removed;
    if (lines.length < MAX_DIFF_LINES) lines.push(...d.lines.slice(0, MAX_DIFF_LINES - lines.length));
  }
  return any ? { added, removed, lines } : null;
}

export class KimiConversation {
  /** The response under way: its calls and text join one reply, whatever is pushed between them. */
  private step: string | null = null;
  /** Responses seen, so two turns' step 1 are not taken for one. */
  private steps = 0;

  constructor(private readonly sink: TurnSink) {}

  line(o: JsonObject, at: number): void {
    this.sink.at(at);
    const m = obj(o.message);
    const p = obj(m?.payload) ?? {};
    const ms = secondsMs(o.timestamp);
    const ts = ms === null ? '' : new Date(ms).toISOString();
    switch (str(m?.type)) {
      case 'TurnBegin':
      case 'SteerInput': {
        this.step = null;
        const said = partsText(p.user_input, MAX_TEXT_CHARS);
        if (said.trim().length > 0) this.sink.push('user', 'message', ts, said);
        return;
      }
      case 'StepBegin':
        this.step = `step ${++this.steps}`;
        this.sink.endRun();
        return;
      case 'ContentPart':
        this.part(p, ts);
        return;
      case 'ToolCall':
        this.call(p, ts);
        return;
      case 'ToolResult':
        this.result(p);
        return;
      case 'CompactionBegin':
        this.sink.push('system', 'compaction', ts, 'compacted');
        return;
      case 'StepInterrupted':
        this.sink.push('system', 'message', ts, 'interrupted');
        return;
      default:
        return;
    }
  }

  private reply(ts: string): number {
    return this.sink.openAssistant(ts, this.step);
  }

  private part(p: JsonObject, ts: string): void {
    if (p.type === 'think') {
      const t = str(p.think);
      if (t !== null && t.trim().length > 0)
        this.sink.push('assistant', 'reasoning', ts, head(t, MAX_TEXT_CHARS));
    } else if (p.type === 'text') {
      const t = str(p.text);
      if (t !== null && t.trim().length > 0) this.sink.appendText(this.reply(ts), head(t, MAX_TEXT_CHARS));
    }
  }

  private call(p: JsonObject, ts: string): void {
    const f = obj(p.function);
    const name = text(f?.name);
    if (name === null) return;
    // The arguments are JSON in a string; a call whose arguments do not parse still shows them raw.
    const raw = str(f?.arguments);
    const args = raw === null ? null : (parseJson(raw) ?? raw);
    const { detail, full } = toolDetail(name, args);
    this.sink.addTool(this.reply(ts), text(p.id), newTool(prettyToolName(name), detail, full));
  }

  private result(p: JsonObject): void {
    const id = text(p.tool_call_id);
    if (id === null) return;
    const r = obj(p.return_value) ?? {};
    const failed = r.is_error === true;
    let said = partsText(r.output, MAX_RESULT_CHARS);
    // A failure's output is often empty; its `message` says what went wrong.
    if (said.trim().length === 0 || failed) said = joinText(said, partsText(r.message, MAX_RESULT_CHARS));
    this.sink.resolve(id, resultText(said), failed, diffOf(r.display));
  }
}
