/**
 * GitHub Copilot CLI's conversation: session events into turns.
 *
 * Copilot writes one event per line. `user.message` is the person; `assistant.reasoning` (or an
 * `assistant.message`'s `reasoningText`) is thinking; an `assistant.message` is one reply, its text
 * and the calls it requested (`toolRequests`); `tool.execution_complete` is how a call ended, matched
 * to it by `toolCallId`, with `success` (and a shell's exit code) saying whether it worked. A call
 * can also start with no request recorded before it (older builds write only
 * `tool.execution_start`): it joins the reply in progress. Errors, interruptions, warnings, notifications and compactions are the harness speaking.
 *
 * A subagent's events share the file and carry `parentToolCallId` (the call that started it): they
 * are left out of the main thread, and are the whole of the subagent's own conversation, which opens
 * with the prompt its parent gave it.
 *
 * Not shown: `session.info` (folder trust, model notices: bookkeeping), `system.message` (the system
 * prompt), hooks, usage and lifecycle events. A `session.snapshot_rewind` takes events back; the
 * caller finds those first and never offers the rewound events here.
 */
import {
  type Delta,
  joinText,
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  type TurnSink,
} from '../../model/conversation.js';
import { arr, type JsonObject, obj, readJson, str, text } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { isHarnessText, tidyHarnessText } from '../claude/harness-text.js';
import { flattenContent, head, unifiedDelta } from '../conversation-util.js';
import { executionFailed } from './record.js';

/**
 * Calls requested or started and not yet finished, remembered so that a `tool.execution_start`
 * after its request is not a second call. Past this the oldest is forgotten: a session does not
 * have thousands of calls in flight at once.
 */
export const MAX_OPEN_CALLS = 4096;

/**
 * Characters of a finished edit's detailed result read for its diff: the lines shown stop at
 * `MAX_DIFF_LINES`, the counts go on to here, far past any edit a person reviews.
 */
export const MAX_DETAILED_CHARS = 1 << 20;

/** Edits whose own arguments say what they changed, when Copilot recorded no diff. */
export const EDIT_TOOLS = new Set(['edit', 'str_replace', 'str_replace_editor', 'create', 'write']);

/** An edit's change from its arguments, which Copilot names `old_str`, `new_str` and `file_text`. */
export function argsDelta(args: unknown): Delta | null {
  const a = obj(args);
  if (a === null) return null;
  return editDelta({
    old_string: a.old_str ?? a.old_string ?? null,
    new_string: a.new_str ?? a.new_string ?? a.file_text ?? a.content ?? null,
  });
}

/** A call's arguments, which Copilot writes as an object or as the model's JSON text. */
export function argsOf(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  const r = readJson(v);
  return r.kind === 'read' ? r.value : v;
}

/** How a finished call reads: what the model got back, or the error it got instead. */
export function outcomeText(d: JsonObject): string {
  const result = obj(d.result);
  const error = obj(d.error);
  const said = text(result?.content) ?? text(result?.detailedContent);
  if (d.success === false) {
    const message = text(error?.message) ?? str(d.error);
    return flattenContent(head(message ?? said ?? 'failed', MAX_RESULT_CHARS));
  }
  return flattenContent(head(said ?? '', MAX_RESULT_CHARS));
}

/**
 * What a finished edit changed: its detailed result is the diff it applied, truer than the
 * arguments' old and new text. Only a diff is read as one (a shell's output can start lines with `-`).
 */
export function appliedDiff(d: JsonObject): Delta | null {
  const detailed = text(obj(d.result)?.detailedContent);
  return detailed !== null && /^@@ /m.test(detailed)
    ? unifiedDelta(head(detailed, MAX_DETAILED_CHARS))
    : null;
}

export class CopilotConversation {
  /** Ids of calls not yet finished. */
  private readonly openCalls = new Set<string>();
  /** The newest reasoning shown, so a message repeating it as `reasoningText` is not shown twice. */
  private lastReasoning = '';

  /**
   * @param agent the `parentToolCallId` whose events to read (a subagent), or null for the main
   * thread.
   */
  constructor(
    private readonly sink: TurnSink,
    private readonly agent: string | null = null,
  ) {}

  event(e: JsonObject): void {
    const d = obj(e.data);
    if (d === null) return;
    const ts = str(e.timestamp) ?? '';
    const parent = text(d.parentToolCallId);
    if (parent !== this.agent) {
      // The request that started the subagent is its first words.
      if (this.agent !== null && parent === null && e.type === 'assistant.message')
        this.subagentPrompt(d, ts);
      return;
    }
    switch (str(e.type)) {
      case 'user.message':
        this.prompt(d, ts);
        return;
      case 'assistant.reasoning':
        this.reasoning(str(d.content), ts);
        return;
      case 'assistant.message':
        this.reply(d, ts);
        return;
      case 'tool.execution_start':
        this.started(d, ts);
        return;
      case 'tool.execution_complete':
        this.finished(d);
        return;
      case 'session.error': {
        const message = text(d.message) ?? text(d.errorType) ?? 'error';
        this.sink.push('system', 'message', ts, `error: ${head(message, MAX_TEXT_CHARS)}`);
        return;
      }
      case 'session.warning': {
        const message = text(d.message);
        if (message !== null)
          this.sink.push('system', 'message', ts, `warning: ${head(message, MAX_TEXT_CHARS)}`);
        return;
      }
      case 'abort': {
        const reason = text(d.reason);
        this.sink.push('system', 'message', ts, reason === null ? 'interrupted' : `interrupted: ${reason}`);
        return;
      }
      case 'system.notification': {
        const said = text(d.content);
        if (said === null) return;
        const shown = isHarnessText(said)
          ? tidyHarnessText(head(said, MAX_TEXT_CHARS))
          : head(said, MAX_TEXT_CHARS);
        if (shown.trim().length > 0) this.sink.push('system', 'message', ts, shown);
        return;
      }
      case 'session.compaction_complete': {
        if (d.success === false) return;
        const summary = text(d.summaryContent);
        this.sink.push(
          'system',
          'compaction',
          ts,
          summary === null ? 'compacted' : head(summary, MAX_TEXT_CHARS),
        );
        return;
      }
      default:
        return;
    }
  }

  private prompt(d: JsonObject, ts: string): void {
    let said = head(str(d.content) ?? '', MAX_TEXT_CHARS);
    const attached = (arr(d.attachments) ?? [])
      .map((a) => text(obj(a)?.displayName) ?? text(obj(a)?.path))
      .filter((a): a is string => a !== null);
    if (attached.length > 0) said = joinText(said, `attached: ${attached.join(', ')}`);
    if (said.trim().length > 0) this.sink.push('user', 'message', ts, said);
  }

  private reasoning(said: string | null, ts: string): void {
    if (said === null || said.trim().length === 0) return;
    const shown = head(said, MAX_TEXT_CHARS);
    if (shown === this.lastReasoning) return;
    this.lastReasoning = shown;
    this.sink.push('assistant', 'reasoning', ts, shown);
  }

  private reply(d: JsonObject, ts: string): void {
    this.reasoning(str(d.reasoningText), ts);
    const said = head(str(d.content) ?? '', MAX_TEXT_CHARS);
    const requests = (arr(d.toolRequests) ?? []).map(obj).filter((r): r is JsonObject => r !== null);
    if (said.trim().length === 0 && requests.length === 0) return;
    // Each message is one model response: never folded into the one before.
    const key = text(d.messageId) ?? `${ts}#${text(d.interactionId) ?? ''}`;
    const seq = this.sink.openAssistant(ts, key);
    this.sink.appendText(seq, said);
    for (const r of requests) this.call(text(r.toolCallId), text(r.name) ?? 'tool', r.arguments, ts, key);
  }

  private started(d: JsonObject, ts: string): void {
    const id = text(d.toolCallId);
    if (id !== null && this.openCalls.has(id)) return;
    this.call(id, text(d.toolName) ?? 'tool', d.arguments, ts, null);
  }

  private call(id: string | null, name: string, rawArgs: unknown, ts: string, key: string | null): void {
    const args = argsOf(rawArgs);
    const { detail, full } = toolDetail(name, args);
    const tool = newTool(prettyToolName(name), detail, full);
    const delta = EDIT_TOOLS.has(name) ? argsDelta(args) : null;
    if (delta) {
      tool.added = delta.added;
      tool.removed = delta.removed;
      tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
    }
    this.sink.addTool(this.sink.openAssistant(ts, key), id, tool);
    if (id === null) return;
    this.openCalls.add(id);
    if (this.openCalls.size > MAX_OPEN_CALLS) {
      const oldest = this.openCalls.values().next();
      if (!oldest.done) this.openCalls.delete(oldest.value);
    }
  }

  private finished(d: JsonObject): void {
    const id = text(d.toolCallId);
    if (id === null) return;
    this.openCalls.delete(id);
    this.sink.resolve(id, outcomeText(d), executionFailed(d), appliedDiff(d));
  }

  /** In a subagent's conversation: the parent's request that started it, as the first user turn. */
  private subagentPrompt(d: JsonObject, ts: string): void {
    for (const r of arr(d.toolRequests) ?? []) {
      const request = obj(r);
      if (request === null || text(request.toolCallId) !== this.agent) continue;
      const args = obj(argsOf(request.arguments));
      const said = text(args?.prompt) ?? text(args?.description) ?? text(request.intentionSummary);
      if (said !== null) this.sink.push('user', 'message', ts, head(said, MAX_TEXT_CHARS));
    }
  }
}
