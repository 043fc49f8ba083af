/**
 * Qwen Code's conversation: chat records into turns.
 *
 * Qwen Code forked Gemini CLI but records a chat the way Claude Code does: one record per line, a
 * `user` prompt, an `assistant` response (Gemini-style `parts`: text, `thought` text, `functionCall`),
 * a `tool_result` that answers a call by id and says how it ended (`toolCallResult.status`), and
 * `system` bookkeeping. A response's calls join the reply in progress; a result closes it, since the
 * model is asked again. What the person typed is `systemPayload.displayText` when Qwen Code expanded
 * the prompt it sent (an `@file`, a hook's context), else the prompt's text.
 *
 * A call has failed when Qwen Code says so (`error`, or `cancelled`: the person refused it), as for
 * Gemini CLI; a shell command that exited non-zero reports its exit code in its result.
 *
 * A background subagent's records share the file, marked `isSidechain` with its `agentId`: left out
 * of the main thread, and the whole of the subagent's own conversation.
 *
 * Shown from `system` records: a compression (a seam), a slash command typed, a rewind. Not shown:
 * telemetry, attribution snapshots, model and title records.
 *
 * known limit: records are read in file order, not along their `parentUuid` chain, so a branch the
 * person rewound away from still shows, above the rewind that left it.
 */
import {
  joinText,
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type TurnRole,
  type TurnSink,
} from '../../model/conversation.js';
import { arr, count, type JsonObject, obj, str, text } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { flattenContent, head, unifiedDelta } from '../conversation-util.js';
import { partsOf } from '../gemini/conversation.js';

/** Edits whose own arguments say what they changed, when Qwen Code recorded no diff. */
const EDIT_TOOLS = new Set(['replace', 'write_file', 'edit']);

const partsList = (message: unknown): JsonObject[] =>
  (arr(obj(message)?.parts) ?? []).map(obj).filter((p): p is JsonObject => p !== null);

/** A tool's answer: the function response's output or error, else what the UI showed. */
export function answerText(record: JsonObject): string {
  let out = '';
  for (const p of partsList(record.message)) {
    const response = obj(obj(p.functionResponse)?.response);
    if (response === null) continue;
    const said = response.output ?? response.error ?? response.content ?? null;
    if (typeof said === 'string') out = joinText(out, head(said, MAX_RESULT_CHARS));
    else if (said !== null) out = joinText(out, flattenContent(said));
  }
  const display = obj(record.toolCallResult)?.resultDisplay;
  if (out.length === 0 && typeof display === 'string') out = head(display, MAX_RESULT_CHARS);
  return resultText(out);
}

export class QwenConversation {
  /** @param agent the subagent whose records to read, or null for the main thread. */
  constructor(
    private readonly sink: TurnSink,
    private readonly agent: string | null = null,
  ) {}

  record(r: JsonObject): void {
    const mine = this.agent === null ? r.isSidechain !== true : text(r.agentId) === this.agent;
    if (!mine) return;
    const ts = str(r.timestamp) ?? '';
    switch (str(r.type)) {
      case 'user':
        this.prompt(r, ts);
        return;
      case 'assistant':
        this.response(r, ts);
        return;
      case 'tool_result':
        this.answer(r);
        return;
      case 'system':
        this.system(r, ts);
        return;
      default:
        return;
    }
  }

  private prompt(r: JsonObject, ts: string): void {
    const payload = obj(r.systemPayload);
    const typed = text(payload?.displayText);
    const said =
      typed !== null ? head(typed, MAX_TEXT_CHARS) : partsOf(obj(r.message)?.parts, MAX_TEXT_CHARS).words;
    if (said.trim().length === 0) return;
    // A prompt the person did not type (another agent's message, an injected notice) is the harness.
    const provenance = str(r.provenance);
    const role: TurnRole =
      r.subtype === undefined && (provenance === null || provenance === 'real_user') ? 'user' : 'system';
    this.sink.push(role, 'message', ts, said);
  }

  private response(r: JsonObject, ts: string): void {
    const parts = partsList(r.message);
    const said = partsOf(parts, MAX_TEXT_CHARS);
    if (said.thought.trim().length > 0) this.sink.push('assistant', 'reasoning', ts, said.thought);
    const calls = parts.map((p) => obj(p.functionCall)).filter((c): c is JsonObject => c !== null);
    if (said.words.trim().length === 0 && calls.length === 0) return;
    const seq = this.sink.openAssistant(ts, null);
    this.sink.appendText(seq, said.words);
    for (const c of calls) {
      const name = text(c.name) ?? 'tool';
      const id = text(c.id);
      const { detail, full } = toolDetail(name, c.args ?? null);
      const tool = newTool(prettyToolName(name), detail, full);
      // The edit's own old and new text, until its result brings the diff Qwen Code made.
      const delta = EDIT_TOOLS.has(name) ? editDelta(c.args) : null;
      if (delta !== null) {
        tool.added = delta.added;
        tool.removed = delta.removed;
        tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
      }
      this.sink.addTool(this.sink.openAssistant(ts, null), id, tool);
    }
  }

  private answer(r: JsonObject): void {
    const result = obj(r.toolCallResult);
    const response = partsList(r.message)
      .map((p) => obj(p.functionResponse))
      .find((x) => x !== null);
    const id = text(result?.callId) ?? text(response?.id);
    if (id === null) return;
    const status = str(result?.status);
    const failed =
      status === 'error' ||
      status === 'cancelled' ||
      (status === null && obj(response?.response)?.error !== undefined);
    const diff = str(obj(result?.resultDisplay)?.fileDiff);
    this.sink.resolve(id, answerText(r), failed, diff !== null ? unifiedDelta(diff) : null);
  }

  private system(r: JsonObject, ts: string): void {
    const payload = obj(r.systemPayload);
    switch (str(r.subtype)) {
      case 'chat_compression': {
        const info = obj(payload?.info);
        const before = count(info?.originalTokenCount);
        const after = count(info?.newTokenCount);
        // The summary the model goes on from is the first text of the history that replaced it.
        const summary = partsOf(obj((arr(payload?.compressedHistory) ?? [])[0])?.parts, MAX_TEXT_CHARS).words;
        const figures =
          before !== null && after !== null ? `compressed ${before} → ${after} tokens` : 'compressed';
        this.sink.push('system', 'compaction', ts, summary.trim().length > 0 ? summary : figures);
        return;
      }
      case 'slash_command': {
        const command = text(payload?.rawCommand);
        if (payload?.phase === 'invocation' && command !== null)
          this.sink.push('user', 'message', ts, head(command, MAX_TEXT_CHARS));
        return;
      }
      case 'rewind': {
        const n = count(payload?.truncatedCount);
        this.sink.push('system', 'message', ts, n === null ? 'rewound' : `rewound ${n} messages`);
        return;
      }
      default:
        return;
    }
  }
}
