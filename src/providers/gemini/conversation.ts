/**
 * Gemini CLI's conversation: chat messages into turns.
 *
 * A Gemini chat keeps a call and its result together: a `gemini` message carries its thoughts, its
 * reply and its `toolCalls`, each with the `result` it got back and the `status` the scheduler gave
 * it. So one message is one reply, whole, and no result has to be matched to a call later. `user`
 * messages are the person (`displayContent` when Gemini CLI expanded an `@file` into `content`);
 * `info`, `warning` and `error` messages are the harness speaking.
 *
 * The JSONL form is not a plain log (see `record.ts`): a message is written again whole when its
 * calls finish, `$patch` amends one in place, and `$rewindTo` takes a message and everything after
 * it back. `GeminiReplay` keeps the newest messages open for those re-writes and turns a message
 * into turns only once it falls out of that window or the file ends; a rewind is known before the
 * replay starts (the caller finds the `$rewindTo` lines first), so rewound messages are never shown.
 *
 * A call has failed when Gemini CLI says so: `error`, or `cancelled` (the person refused it, as a
 * refused call reads in Claude Code); and a shell command that exited non-zero has failed too, though
 * Gemini CLI records it as `success` with the exit code in its result (`shellExitCode`).
 *
 * A `user` message that is the harness's own context (`<session_context>`, `<hook_context>`) is
 * shown as the harness speaking, not as something the person typed.
 *
 * known limit: a `functionCall` part inside a message's `content` (not `toolCalls`) is not shown as a
 * call: Gemini CLI records its calls in `toolCalls`, and such a part has no result to pair it with.
 */
import {
  type Delta,
  joinText,
  MAX_DIFF_LINES,
  MAX_ID_CHARS,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type TurnSink,
} from '../../model/conversation.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { flattenContent, head, unifiedDelta } from '../conversation-util.js';
import { WINDOW_MESSAGES } from './parser.js';
import { callFailed, isHarnessContext, shellExitCode } from './record.js';

/**
 * Ids of settled messages remembered, so that a late re-write of one is recognised and dropped
 * rather than shown again at the end. Gemini CLI re-writes only its newest message; the bound keeps
 * a chat of any length to a few megabytes of ids.
 */
export const MAX_SETTLED_IDS = 1 << 16;

/** `$rewindTo` lines honoured per chat; past this a rewind is ignored (none has been seen twice). */
export const MAX_REWINDS = 4096;

/** Scheduler states of a call not finished yet: it has no result to show. */
export const IN_FLIGHT = new Set(['validating', 'scheduled', 'executing', 'awaiting_approval']);

/** Edits whose own arguments say what they changed, when no diff was recorded. */
const EDIT_TOOLS = new Set(['replace', 'write_file', 'edit']);

/** The words and the thought parts of a `PartListUnion` (a string, one part, or a list of parts). */
export function partsOf(v: unknown, max: number): { words: string; thought: string } {
  let words = '';
  let thought = '';
  if (typeof v === 'string') return { words: head(v, max), thought };
  for (const p of arr(v) ?? (obj(v) ? [v] : [])) {
    const t = typeof p === 'string' ? p : str(obj(p)?.text);
    if (t === null || t.length === 0) continue;
    if (obj(p)?.thought === true) {
      if (thought.length <= max) thought = joinText(thought, head(t, max));
    } else if (words.length <= max) words += head(t, max);
  }
  return { words, thought };
}

/** Thought summaries as Gemini CLI shows them: the subject, then what it says. */
function thoughtsText(v: unknown): string {
  let out = '';
  for (const t of arr(v) ?? []) {
    const o = obj(t);
    if (o === null) continue;
    const subject = text(o.subject);
    const description = text(o.description);
    const one =
      subject !== null && description !== null ? `${subject}\n${description}` : (subject ?? description);
    if (one !== null) out = joinText(out, head(one, MAX_TEXT_CHARS));
    if (out.length > 2 * MAX_TEXT_CHARS) break;
  }
  return out;
}

/** What a call got back: the function response's output or error, else what the UI showed. */
export function resultOf(call: JsonObject): string {
  let out = '';
  const parts = arr(call.result) ?? (obj(call.result) ? [call.result] : []);
  for (const p of parts) {
    const response = obj(obj(obj(p)?.functionResponse)?.response);
    const said = response !== null ? (response.output ?? response.error ?? response.content ?? null) : p;
    if (typeof said === 'string') out = joinText(out, head(said, MAX_RESULT_CHARS));
    else if (typeof obj(said)?.text === 'string')
      out = joinText(out, head(str(obj(said)!.text)!, MAX_RESULT_CHARS));
    else if (said !== null && response !== null) out = joinText(out, flattenContent(said));
  }
  if (out.length === 0 && typeof call.resultDisplay === 'string')
    out = head(call.resultDisplay, MAX_RESULT_CHARS);
  return resultText(out);
}

/** The change an edit made: the diff Gemini CLI showed, else the edit's own old and new text. */
export function callDelta(name: string, call: JsonObject): Delta | null {
  const diff = str(obj(call.resultDisplay)?.fileDiff);
  if (diff !== null) return unifiedDelta(diff);
  return EDIT_TOOLS.has(name) ? editDelta(call.args) : null;
}

/** Feed one chat message to `sink`. */
export function geminiMessage(sink: TurnSink, m: JsonObject): void {
  const ts = str(m.timestamp) ?? '';
  const type = str(m.type);
  if (type === 'user') {
    const shown = partsOf(m.displayContent, MAX_TEXT_CHARS).words || partsOf(m.content, MAX_TEXT_CHARS).words;
    if (shown.trim().length > 0) sink.push(isHarnessContext(shown) ? 'system' : 'user', 'message', ts, shown);
    return;
  }
  if (type === 'info' || type === 'warning' || type === 'error') {
    const said = partsOf(m.content, MAX_TEXT_CHARS).words;
    if (said.trim().length > 0)
      sink.push('system', 'message', ts, type === 'info' ? said : `${type}: ${said}`);
    return;
  }
  if (type !== 'gemini') return;
  const content = partsOf(m.content, MAX_TEXT_CHARS);
  const thinking = joinText(thoughtsText(m.thoughts), content.thought);
  // Thinking is a turn of its own, before the reply; the reply is keyed by the message id, so
  // pushing the thoughts does not split it.
  if (thinking.trim().length > 0) sink.push('assistant', 'reasoning', ts, thinking);
  const id = text(m.id);
  const calls = (arr(m.toolCalls) ?? []).map(obj).filter((c): c is JsonObject => c !== null);
  if (content.words.trim().length === 0 && calls.length === 0) return;
  const seq = sink.openAssistant(ts, id);
  sink.appendText(seq, content.words);
  for (const call of calls) {
    const name = text(call.name) ?? 'tool';
    const { detail, full } = toolDetail(name, call.args ?? null);
    const tool = newTool(prettyToolName(name), detail, full);
    const status = str(call.status);
    if (status === null || !IN_FLIGHT.has(status)) {
      tool.result = resultOf(call);
      tool.failed = status === 'cancelled' || callFailed(status, shellExitCode(call));
    }
    const delta = callDelta(name, call);
    if (delta) {
      tool.added = delta.added;
      tool.removed = delta.removed;
      tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
    }
    // A message of more calls than a turn holds goes on in a turn of its own.
    sink.addTool(sink.openAssistant(ts, id), null, tool);
  }
}

/** A `$patch`: new content for one message, or results for some of its calls. */
function applyPatch(message: JsonObject, patch: JsonObject): JsonObject {
  const next: JsonObject = { ...message };
  if (patch.content !== undefined) next.content = patch.content;
  const changes = (arr(patch.toolCalls) ?? []).map(obj).filter((c): c is JsonObject => c !== null);
  if (changes.length > 0) {
    next.toolCalls = (arr(message.toolCalls) ?? []).map((c) => {
      const call = obj(c);
      const change = call ? changes.find((x) => x.id === call.id) : undefined;
      return call && change ? { ...call, ...change } : c;
    });
  }
  return next;
}

/**
 * A JSONL chat replayed in order. The newest `WINDOW_MESSAGES` messages stay open for re-writes and
 * patches; older ones are settled: handed to `settle` (for the turns, or the calls) once, whole.
 * Lines are numbered by the caller, and `rewinds` (a rewound message id → the line of its
 * `$rewindTo`) says which runs of lines a rewind took back: from the rewound message's first line to
 * the rewind, nothing is shown.
 */
export class GeminiReplay {
  private readonly open = new Map<string, JsonObject>();
  private readonly settled = new Set<string>();
  /** Lines before this one were taken back by a rewind. */
  private skipUntil = -1;

  constructor(
    private readonly settle: (message: JsonObject) => void,
    private readonly rewinds: ReadonlyMap<string, number>,
  ) {}

  line(n: number, o: JsonObject): void {
    if (n < this.skipUntil) return;
    if (typeof o.$rewindTo === 'string') return; // already applied, from the first pass
    const patch = obj(o.$patch);
    if (patch !== null) {
      const id = text(patch.id);
      const m = id === null ? undefined : this.open.get(id);
      if (id !== null && m !== undefined) this.open.set(id, applyPatch(m, patch));
      return;
    }
    const set = obj(o.$set);
    if (set !== null) {
      // A wholesale history (on resume, after compression) adds the messages it names that are not
      // open and deletes none: its copies are the model's view, without the calls and their results.
      for (const m of arr(set.messages) ?? []) {
        const message = obj(m);
        const id = message === null ? null : text(message.id);
        if (message !== null && (id === null || !this.open.has(id))) this.message(n, message);
      }
      return;
    }
    if (typeof o.id === 'string') this.message(n, o);
  }

  private message(n: number, m: JsonObject): void {
    const id = text(m.id);
    if (id === null || id.length > MAX_ID_CHARS) return;
    const rewoundAt = this.rewinds.get(id);
    if (rewoundAt !== undefined && rewoundAt > n) {
      this.skipUntil = Math.max(this.skipUntil, rewoundAt);
      // The message may be open from an earlier copy: the rewind takes that back too.
      this.open.delete(id);
      return;
    }
    if (this.open.has(id)) {
      // A re-write: the newest copy, in the place of the first.
      this.open.set(id, m);
      return;
    }
    if (this.settled.has(id)) return;
    this.open.set(id, m);
    if (this.open.size > WINDOW_MESSAGES) this.settleOldest();
  }

  private settleOldest(): void {
    const first = this.open.entries().next();
    if (first.done) return;
    const [id, m] = first.value;
    this.open.delete(id);
    this.settled.add(id);
    if (this.settled.size > MAX_SETTLED_IDS) {
      const oldest = this.settled.values().next();
      if (!oldest.done) this.settled.delete(oldest.value);
    }
    this.settle(m);
  }

  /** Settle every message still open: the file has ended. */
  finish(): void {
    while (this.open.size > 0) this.settleOldest();
  }
}
