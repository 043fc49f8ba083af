/**
 * Codex's conversation: rollout `response_item`s into turns.
 *
 * Codex writes a call as its own record with nothing tying it to the message that issued it, so a
 * call joins the assistant reply in progress; its output, later, lands on it by `call_id`. A call
 * repeated when a turn is retried is the same call. The environment block, a project's AGENTS.md
 * and other text Codex puts in a user message is the harness speaking: said so by the message's own
 * `provenance` where it has one (0.169), read from the text where not; a subagent's prompt is its
 * parent's.
 */
import { joinText, MAX_DIFF_LINES, newTool, type TurnRole, type TurnSink } from '../../model/conversation.js';
import { arr, type JsonObject, obj, parseJson, readJson, str } from '../../model/json.js';
import { applyPatch, prettyToolName, toolDetail } from '../../model/tools.js';
import { isHarnessText, tidyHarnessText } from '../claude/harness-text.js';
import { blocksOf, flattenContent } from '../conversation-util.js';
import { outputFailed } from './record.js';

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  let out = '';
  for (const item of Array.isArray(content) ? content : []) {
    if (typeof item === 'string') out = joinText(out, item);
    else {
      const t = str(obj(item)?.text);
      if (t) out = joinText(out, t);
    }
  }
  return out;
}

/** A shell output as text: the old envelope `{"output": …, "metadata": …}` shows its output. */
export function outputText(output: unknown): string {
  if (typeof output === 'string' && output.trimStart().startsWith('{')) {
    // Not an envelope (not JSON, or too deep to read): shown as it is.
    const text = str(obj(parseJson(output))?.output);
    if (text !== null) return flattenContent(text);
  }
  return flattenContent(output);
}

/** The head of the block Codex injects with a project's AGENTS.md (0.1xx): its instructions, not the person's. */
const AGENTS_MD_HEAD = /^# AGENTS\.md instructions for /;

/**
 * Who wrote a user message, where Codex says so: from 0.169 each content item carries a
 * `provenance` (`user` for the person; `harness`, `skills` and others for what Codex added). Null
 * where it does not say, or the items disagree, and the text rules decide.
 */
function provenanceOf(payload: JsonObject): 'person' | 'harness' | null {
  const items = arr(obj(payload.internal_chat_message_metadata_passthrough)?.content_item_metadata);
  if (items === null || items.length === 0) return null;
  const kinds = items.map((i) => str(obj(obj(i)?.provenance)?.type));
  if (kinds.every((k) => k === 'user')) return 'person';
  if (kinds.every((k) => k !== null && k !== 'user')) return 'harness';
  return null;
}

export class CodexConversation {
  private seenCalls = new Set<string>();
  /** This rollout is a spawned subagent's (its `session_meta` names a parent): its prompt is the parent's. */
  private subagent = false;

  constructor(private readonly sink: TurnSink) {}

  record(record: JsonObject): void {
    const ts = str(record.timestamp) ?? '';
    const payload = obj(record.payload);
    if (payload === null) return;
    const type = record.type === 'response_item' ? str(payload.type) : str(record.type);
    switch (type) {
      case 'session_meta':
        // `source` is a word for a person's session ("cli", "exec"), `{ subagent: … }` for a spawned
        // one (`{ thread_spawn: { parent_thread_id } }`, or a word such as "review").
        if ((obj(payload.source)?.subagent ?? null) !== null) this.subagent = true;
        return;
      case 'message':
        this.message(payload, ts);
        return;
      case 'reasoning': {
        let text = '';
        for (const b of blocksOf(payload.summary)) {
          const t = str(b.text);
          if (t) text = joinText(text, t);
        }
        if (text.trim().length > 0) this.sink.push('assistant', 'reasoning', ts, text);
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
        this.call(payload, ts);
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const id = str(payload.call_id);
        if (id === null) return;
        this.sink.resolve(id, outputText(payload.output), outputFailed(payload.output), null);
        return;
      }
      default:
        return;
    }
  }

  private message(payload: JsonObject, ts: string): void {
    const text = contentText(payload.content);
    if (text.trim().length === 0) return;
    let role: TurnRole =
      payload.role === 'user' ? 'user' : payload.role === 'assistant' ? 'assistant' : 'system';
    let shown = text;
    // `system` and `developer` are the harness; so is what it puts in a user message: a tag block
    // (the environment), a project's AGENTS.md, a subagent's prompt from its parent.
    const said = provenanceOf(payload);
    const injected =
      this.subagent ||
      (said !== null ? said === 'harness' : isHarnessText(text) || AGENTS_MD_HEAD.test(text.trimStart()));
    if (role === 'user' && injected) {
      role = 'system';
      shown = tidyHarnessText(text);
      if (shown.trim().length === 0) return;
    }
    const seq = this.sink.push(role, 'message', ts, shown);
    // Its calls are written as records of their own after it: keep the reply open for them.
    if (role === 'assistant') this.sink.keepOpen(seq);
  }

  private call(payload: JsonObject, ts: string): void {
    const id = str(payload.call_id);
    if (id !== null) {
      if (this.seenCalls.has(id)) return;
      this.seenCalls.add(id);
    }
    const name = str(payload.name) ?? 'tool';
    const rawField = payload.arguments ?? payload.input;
    const raw = typeof rawField === 'string' ? rawField : null;
    let args: unknown = rawField ?? null;
    if (raw !== null) {
      const r = readJson(raw);
      args = r.kind === 'read' ? r.value : null;
    }
    let tool = newTool(prettyToolName(name), '', null);
    if (raw !== null && (name === 'apply_patch' || args === null)) {
      if (name === 'apply_patch') {
        const p = applyPatch(raw);
        tool = {
          ...tool,
          detail: p.summary,
          full: raw,
          added: p.added,
          removed: p.removed,
          diff: p.lines.slice(0, MAX_DIFF_LINES),
        };
      } else {
        const d = toolDetail(name, raw);
        tool = { ...tool, detail: d.detail, full: raw };
      }
    } else {
      const d = toolDetail(name, args);
      tool = { ...tool, detail: d.detail, full: d.full };
    }
    const seq = this.sink.openAssistant(ts, null);
    this.sink.addTool(seq, id, tool);
  }
}
