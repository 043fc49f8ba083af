/**
 * An ATIF trajectory (the Agent Trajectory Interchange Format Devin writes) into turns.
 *
 * One step is one model response: its reasoning, its reply, its calls, and (unlike Claude and Codex,
 * which record results as later entries) the results it got back, under `observation.results`. How a
 * call ended is not in the document at all: the harness's database says, and the caller passes that
 * map in. Most `system` steps are the prompt being assembled and are not turns; a tagged block that
 * reports an event (a background agent finished, the user edited files) is.
 */
import { MAX_DIFF_LINES, newTool, type TurnSink } from '../../model/conversation.js';
import { arr, BAD_LINE_REASON, type JsonObject, obj, readJson, str } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { tagged, tidyHarnessText } from '../claude/harness-text.js';
import { flattenContent } from '../conversation-util.js';

/** System blocks that are context re-sent every turn, not events. */
const CONTEXT_TAGS = new Set(['available_skills', 'system_info']);

/**
 * A Devin system event, readable: the "user edited these files" block is instructions for the
 * model and a pseudo-diff per file; what happened is the list of files.
 */
export function tidyDevinEvent(text: string): string {
  const actions = tagged(text, 'user_actions');
  if (actions === null) return tidyHarnessText(text);
  const files: string[] = [];
  const prose: string[] = [];
  let inDiff = false;
  for (const raw of actions.split('\n')) {
    const line = raw.trim();
    if (line === '[diff_block_start]') inDiff = true;
    else if (line === '[diff_block_end]') inDiff = false;
    else if (inDiff || line.length === 0 || line.startsWith('Please note that')) continue;
    else {
      const prefix = 'The following changes were made by the USER to: ';
      if (line.startsWith(prefix)) files.push(line.slice(prefix.length).replace(/\.+$/, ''));
      else prose.push(line);
    }
  }
  if (files.length > 0) prose.unshift(`the user edited ${files.join(', ')}`);
  return prose.length === 0 ? tidyHarnessText(text) : prose.join('\n');
}

function systemStep(sink: TurnSink, step: JsonObject, ts: string): void {
  const source = str(obj(obj(step.extra)?.telemetry)?.source);
  if (source === 'sysprompt' || source === 'rules') return;
  const text = str(step.message);
  if (text === null) return;
  const head = text.trimStart();
  if (!head.startsWith('<')) return;
  const tag = head.slice(1).split(/[>\s/]/, 1)[0] ?? '';
  if (tag.length === 0 || !/^[A-Za-z0-9_-]+$/.test(tag) || CONTEXT_TAGS.has(tag)) return;
  sink.push('system', 'message', ts, tidyDevinEvent(text));
}

function agentStep(
  sink: TurnSink,
  step: JsonObject,
  ts: string,
  statuses: ReadonlyMap<string, string>,
): void {
  const thinking = str(step.reasoning_content);
  if (thinking !== null && thinking.trim().length > 0) sink.push('assistant', 'reasoning', ts, thinking);
  const text = str(step.message) ?? '';
  const calls = arr(step.tool_calls) ?? [];
  if (text.trim().length === 0 && calls.length === 0) return;
  // Every step has a fresh id (a number in ATIF): one step is one reply, never folded into the last.
  const id = step.step_id;
  const request = typeof id === 'string' ? id : id === undefined ? null : JSON.stringify(id);
  const seq = sink.openAssistant(ts, request);
  sink.appendText(seq, text);
  for (const c of calls) {
    const call = obj(c);
    if (call === null) continue;
    const name = str(call.function_name) ?? 'tool';
    const args = call.arguments ?? null;
    const { detail, full } = toolDetail(name, args);
    const tool = newTool(prettyToolName(name), detail, full);
    if (name === 'edit' || name === 'write') {
      const d = editDelta(args);
      if (d) {
        tool.added = d.added;
        tool.removed = d.removed;
        tool.diff = d.lines.slice(0, MAX_DIFF_LINES);
      }
    }
    sink.addTool(seq, str(call.tool_call_id), tool);
  }
  for (const r of arr(obj(step.observation)?.results) ?? []) {
    const result = obj(r);
    const callId = str(result?.source_call_id);
    if (result === null || callId === null) continue;
    const status = statuses.get(callId);
    sink.resolve(
      callId,
      flattenContent(result.content),
      status !== undefined && status !== 'completed',
      null,
    );
  }
}

/** Feed one ATIF step to `sink`; `statuses` maps call ids to how the database says they ended. */
export function atifStep(sink: TurnSink, step: JsonObject, statuses: ReadonlyMap<string, string>): void {
  const ts = str(step.timestamp) ?? '';
  switch (step.source) {
    case 'user': {
      const text = str(step.message);
      if (text !== null && text.trim().length > 0) sink.push('user', 'message', ts, text);
      return;
    }
    case 'agent':
      agentStep(sink, step, ts, statuses);
      return;
    case 'system':
      systemStep(sink, step, ts);
      return;
    default:
      return;
  }
}

/** Every step of an ATIF document; throws when the text is not one. */
export function atifSteps(text: string): { sessionId: string | null; steps: JsonObject[] } {
  const r = readJson(text);
  const doc = r.kind === 'read' ? obj(r.value) : null;
  if (doc === null)
    throw new Error(
      `not an ATIF document (it ${BAD_LINE_REASON[r.kind === 'bad' ? r.reason : 'not-json-object']})`,
    );
  return {
    sessionId: str(doc.session_id),
    steps: (arr(doc.steps) ?? []).map(obj).filter((s): s is JsonObject => s !== null),
  };
}
