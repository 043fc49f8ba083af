/**
 * OpenCode's conversation: a session's messages and their parts into turns.
 *
 * OpenCode keeps a message's content in parts, in the order they were made: `text` (words),
 * `reasoning` (thinking), `tool` (a call, its input, and its state: `pending`, `running`,
 * `completed` with its output, or `error` with the error), `step-start` / `step-finish` around each
 * request to the model, `file` (an attachment), `compaction`, and bookkeeping (`patch`, `snapshot`,
 * `agent`). A `user` message is the person; an `assistant` message is one answer, which may take
 * several requests: each step is a reply of its own, as a tool result ends a reply in Claude Code. A
 * compaction is a `compaction` part, followed by an assistant message marked `summary` whose words
 * are what the model goes on from. How a message went wrong (`error`, an aborted answer) is the
 * harness speaking. Text OpenCode wrote itself (`synthetic`: a file's contents read in for an
 * attachment) is not the person's words: not shown under a prompt; shown as the harness's in a reply.
 *
 * A call has failed when OpenCode says so (`error`), or when the shell command it ran exited non-zero,
 * which OpenCode records as `completed` (see `callFailed`; the scan counts failures the same way).
 *
 * The same parts come from the database (1.2 and later, `db.ts`) and from the older `storage/` tree
 * (`storage.ts`); both are read into `ChatMessage` and `ChatPart` first, so the turns are built once.
 * A child session (a task OpenCode ran for the main one) is a conversation of its own, asked for by
 * its session id.
 */
import {
  joinText,
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type ToolUse,
  type TurnSink,
} from '../../model/conversation.js';
import { type JsonObject, num, obj, str, text } from '../../model/json.js';
import { editDelta, applyPatch as patchDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { head } from '../conversation-util.js';
import { callFailed, type OpenCodeTokens, tokensFrom } from './record.js';

/**
 * Characters of a call's input read from the database: whole for all but the largest writes, which
 * are cut (their path and command are read apart, so the one-line detail survives the cut).
 */
export const MAX_INPUT_CHARS = 256 << 10;

/** The error OpenCode records when the person stops an answer. */
const ABORTED = 'MessageAbortedError';

/** A message, as the turns need it. */
export interface ChatMessage {
  id: string;
  role: string | null;
  ms: number | null;
  error: { name: string | null; message: string | null } | null;
  /** An assistant message written by a compaction: its words are the summary. */
  summary: boolean;
  /** The newest request's tokens (older builds, which write no step parts, keep only these). */
  tokens: OpenCodeTokens | null;
}

/** A part, as the turns need it; text fields already bounded by the reader. */
export interface ChatPart {
  type: string | null;
  text: string | null;
  synthetic: boolean;
  tool: string | null;
  callId: string | null;
  status: string | null;
  /** The call failed (see `callFailed`). */
  failed: boolean;
  /** The call's input: parsed, or the cut text of it with the few fields read apart. */
  input: unknown;
  output: string | null;
  error: string | null;
  filename: string | null;
  startMs: number | null;
  /** When a call started and ended running (`state.time`). */
  ranFromMs: number | null;
  ranToMs: number | null;
  /** A `step-finish`: the tokens of the request that step made. */
  tokens: OpenCodeTokens | null;
}

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString());

/** A message's JSON (a storage file, or the database row's `data`) as a `ChatMessage`. */
export function chatMessageFrom(o: JsonObject, id: string | null = null): ChatMessage | null {
  const mid = text(o.id) ?? id;
  if (mid === null) return null;
  const err = obj(o.error);
  return {
    id: mid,
    role: str(o.role),
    ms: num(obj(o.time)?.created),
    error: err ? { name: text(err.name), message: text(obj(err.data)?.message) ?? text(err.message) } : null,
    summary: o.summary === true,
    tokens: tokensFrom(o.tokens),
  };
}

/** A part's JSON (a storage file) as a `ChatPart`, its texts bounded. */
export function chatPartFrom(o: JsonObject): ChatPart {
  const state = obj(o.state);
  const bounded = (v: unknown, max: number): string | null => {
    const s = str(v);
    return s === null ? null : head(s, max);
  };
  return {
    type: str(o.type),
    text: bounded(o.text, MAX_TEXT_CHARS),
    synthetic: o.synthetic === true,
    tool: text(o.tool),
    callId: text(o.callID),
    status: str(state?.status),
    failed: callFailed(str(state?.status), obj(state?.metadata)?.exit),
    input: state?.input ?? null,
    output: bounded(state?.output, MAX_RESULT_CHARS),
    error: bounded(state?.error, MAX_RESULT_CHARS),
    filename: text(o.filename) ?? text(o.url),
    startMs: num(obj(o.time)?.start),
    ranFromMs: num(obj(state?.time)?.start),
    ranToMs: num(obj(state?.time)?.end),
    tokens: tokensFrom(o.tokens),
  };
}

export class OpenCodeConversation {
  /**
   * A compaction seen and not yet shown: the summary message that follows it gives the seam its
   * words; anything else shows it bare.
   */
  private compaction: string | null = null;

  constructor(private readonly sink: TurnSink) {}

  message(m: ChatMessage, parts: Iterable<ChatPart>): void {
    const ts = iso(m.ms);
    if (!(m.role === 'assistant' && m.summary)) this.flush();
    if (m.role === 'user') this.prompt(parts, ts);
    else if (m.role === 'assistant') {
      if (m.summary) this.summary(parts, ts);
      else this.answer(m, parts, ts);
    }
  }

  private prompt(parts: Iterable<ChatPart>, ts: string): void {
    let said = '';
    const attached: string[] = [];
    for (const p of parts) {
      if (p.type === 'text' && !p.synthetic && p.text !== null) said = joinText(said, p.text);
      else if (p.type === 'file' && p.filename !== null) attached.push(p.filename);
      else if (p.type === 'compaction') this.compact(ts);
    }
    if (attached.length > 0) said = joinText(said, `attached: ${attached.join(', ')}`);
    if (said.trim().length > 0) this.sink.push('user', 'message', ts, said);
  }

  /** The session has been read: a compaction still waiting for its summary is shown bare. */
  finish(): void {
    this.flush();
  }

  private flush(): void {
    if (this.compaction !== null) this.sink.push('system', 'compaction', this.compaction, 'compacted');
    this.compaction = null;
  }

  private compact(ts: string): void {
    this.flush();
    this.compaction = ts;
  }

  /** A compaction's summary: the words of the seam it follows. */
  private summary(parts: Iterable<ChatPart>, ts: string): void {
    let said = '';
    for (const p of parts) if (p.type === 'text' && p.text !== null) said = joinText(said, p.text);
    if (said.trim().length === 0) {
      this.flush();
      return;
    }
    this.sink.push('system', 'compaction', this.compaction ?? ts, said);
    this.compaction = null;
  }

  private answer(m: ChatMessage, parts: Iterable<ChatPart>, ts: string): void {
    let step = 0;
    // Every request of the answer is its own reply; its thinking does not split it.
    const key = () => `${m.id}#${step}`;
    // When the answer ended, as near as its parts say: where a failure is reported.
    let lastMs = m.ms;
    for (const p of parts) {
      const at = p.startMs !== null ? iso(p.startMs) : ts;
      if (p.startMs !== null) lastMs = Math.max(lastMs ?? p.startMs, p.startMs);
      switch (p.type) {
        case 'step-start':
          step++;
          break;
        case 'reasoning':
          if (p.text !== null && p.text.trim().length > 0)
            this.sink.push('assistant', 'reasoning', at, p.text);
          break;
        case 'text':
          if (p.text === null || p.text.trim().length === 0) break;
          if (p.synthetic) this.sink.push('system', 'message', at, p.text);
          else this.sink.appendText(this.sink.openAssistant(at, key()), p.text);
          break;
        case 'tool':
          this.sink.addTool(this.sink.openAssistant(at, key()), null, this.call(p));
          break;
        case 'compaction':
          this.compact(at);
          break;
        default:
          break;
      }
    }
    const e = m.error;
    if (e !== null) {
      const said =
        e.name === ABORTED
          ? 'interrupted'
          : `error: ${head(e.message ?? e.name ?? 'the answer failed', MAX_TEXT_CHARS)}`;
      this.sink.push('system', 'message', iso(lastMs), said);
    }
  }

  private call(p: ChatPart): ToolUse {
    const name = p.tool ?? 'tool';
    const { detail, full } = toolDetail(name, p.input);
    const tool = newTool(prettyToolName(name), detail, full);
    if (p.status === 'completed') tool.result = resultText(p.output ?? '');
    else if (p.status === 'error') tool.result = resultText(p.error ?? p.output ?? 'failed');
    tool.failed = p.failed;
    const input = obj(p.input);
    const patch = str(input?.patchText);
    const delta =
      patch !== null ? patchDelta(patch) : name === 'edit' || name === 'write' ? editDelta(input) : null;
    if (delta) {
      tool.added = delta.added;
      tool.removed = delta.removed;
      tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
    }
    return tool;
  }
}
