/**
 * The part of a Gemini CLI chat record that session facts need, and how to read it from parsed JSON.
 *
 * Gemini CLI keeps a chat in one of two shapes (`chatRecordingService.ts`, `chatRecordingTypes.ts`):
 *
 * - the older whole-file `session-*.json`: one `ConversationRecord` object, `messages` inside, the
 *   file rewritten on every change;
 * - the append-only `session-*.jsonl` (Gemini CLI 0.40 and later, and every resumed old session):
 *   a metadata line `{sessionId, projectHash, startTime, …}`, then one line per message version
 *   (a message is written again, whole, when its tokens or tool calls arrive: the last copy of an
 *   id wins), `{"$set": {…}}` metadata updates, and `{"$rewindTo": id}` markers that drop that
 *   message and everything after it.
 *
 * A message is kept as a `GeminiMessage`: the few fields the facts need, with its prompt text
 * shortened, so a reader can hold every message of a long chat without holding the chat.
 *
 * Two things Gemini CLI writes are not what they look like, and are read here once for every reader:
 * a `user` message that is the harness's own context (`isHarnessContext`), and a shell call recorded
 * `success` whose command exited non-zero (`shellExitCode`).
 */
import { arr, count, isoMs, type JsonObject, obj, str, text } from '../../model/json.js';

/**
 * A prompt (or an error's text) is kept to its first characters: it names the session or the
 * error, and a title is 200 characters. Open messages are carried between passes (see
 * `WINDOW_MESSAGES`), so this bounds the carried state too.
 */
export const MAX_PROMPT_CHARS = 1024;

/** Tool calls kept per message; a message with more is counted up to here (it has never been seen). */
export const MAX_CALLS_PER_MESSAGE = 512;

/**
 * One request's tokens, as Gemini writes them: `input` is the whole prompt (the cached part
 * inside it), `output` the visible answer, `thoughts` billed as output but reported apart, `tool`
 * the prompt of a built-in tool's own call (grounding), billed as input.
 */
export interface GeminiTokens {
  input: number;
  output: number;
  cached: number;
  thoughts: number;
  tool: number;
  total: number | null;
}

export interface GeminiCall {
  name: string;
  /** `success`, `error`, `cancelled`, or a status of a call still in flight. */
  status: string | null;
  /** A shell command's exit code, from its result; null for other tools and unfinished calls. */
  exitCode: number | null;
}

export interface GeminiMessage {
  id: string;
  ms: number | null;
  /** `user`, `gemini`, `info`, `error` or `warning`. */
  type: string;
  model: string | null;
  tokens: GeminiTokens | null;
  calls: GeminiCall[];
  /**
   * The user's words (a `user` message; null for the harness's context) or the text of an `error`
   * or `info` message, shortened.
   */
  text: string | null;
}

export interface GeminiMetadata {
  sessionId: string | null;
  startMs: number | null;
  lastMs: number | null;
  summary: string | null;
  /** The workspace directories (a subagent's, or added with `/dir add`). */
  directories: string[];
}

export type GeminiLine =
  | { kind: 'header'; meta: GeminiMetadata }
  | { kind: 'message'; message: GeminiMessage }
  /** A metadata update; `messages` when it replaces the message list wholesale. */
  | { kind: 'set'; meta: GeminiMetadata; messages: GeminiMessage[] | null }
  | { kind: 'rewind'; to: string }
  | { kind: 'other' };

export function tokensFrom(v: unknown): GeminiTokens | null {
  const t = obj(v);
  if (!t) return null;
  const input = count(t.input);
  const output = count(t.output);
  if (input === null && output === null) return null;
  return {
    input: input ?? 0,
    output: output ?? 0,
    cached: count(t.cached) ?? 0,
    thoughts: count(t.thoughts) ?? 0,
    tool: count(t.tool) ?? 0,
    total: count(t.total),
  };
}

/** The text of a `PartListUnion`: a string, a part, or a list of parts with `text`. */
export function partsText(v: unknown, max = MAX_PROMPT_CHARS): string | null {
  if (typeof v === 'string') return v.slice(0, max);
  const list = arr(v) ?? (obj(v) ? [v] : []);
  let out = '';
  for (const p of list) {
    const t = typeof p === 'string' ? p : str(obj(p)?.text);
    if (t === null) continue;
    out += t;
    if (out.length >= max) break;
  }
  return out.length > 0 ? out.slice(0, max) : null;
}

/**
 * Context Gemini CLI sends as a `user` message of its own: the session's setup (`<session_context>`:
 * the date, the OS, the workspace's files, written first in every chat since 0.40) and what a hook
 * added (`<hook_context>`). Gemini CLI leaves both out of the history it shows and out of a session's
 * first prompt (`isIgnoredUserContent` in 0.61); they are the harness speaking, not the person.
 */
export function isHarnessContext(words: string): boolean {
  const t = words.trimStart();
  return t.startsWith('<session_context>') || t.startsWith('<hook_context>');
}

/** Gemini CLI's shell tool. */
const SHELL_TOOL = 'run_shell_command';

/** The line Gemini CLI's shell tool writes when a command exits non-zero (`shell.ts`). */
const EXIT_LINE = /^Exit Code: (-?\d+)$/;

/**
 * Lines the shell tool may write after the exit line, and the end of the envelope around the result
 * (0.61: `<untrusted_context>…</untrusted_context>`). Older versions (and Qwen Code) write
 * `Exit Code: 0` too, followed by the same lines.
 */
const TRAILER = /^(?:Signal: |Background PIDs: |Process Group PGID: |<\/untrusted_context>$)/;

/** Lines read back from a result's end to find its exit line: it has at most four after it. */
const MAX_TRAILER_LINES = 6;

/** The exit code a shell result ends with, read from its last lines only. */
function exitLine(output: string): number | null {
  let end = output.length;
  for (let i = 0; i < MAX_TRAILER_LINES && end > 0; i++) {
    const start = output.lastIndexOf('\n', end - 1) + 1;
    const line = output.slice(start, end).trim();
    const m = EXIT_LINE.exec(line);
    if (m) return Number(m[1]);
    if (line.length > 0 && !TRAILER.test(line)) return null;
    end = start - 1;
  }
  return null;
}

/**
 * The exit code of a finished shell call, from the result the model was given. Gemini CLI records a
 * command that ran and exited non-zero as `success` (the tool worked; 0.61 writes `Exit Code: 3` in
 * its output and nowhere else), so this is how such a call is known to have failed.
 * known limit: a command whose own last output line reads `Exit Code: N`, and that exited 0, would be
 * taken at its word; 0.61 writes no exit line for a zero exit, so nothing tells the two apart.
 */
export function shellExitCode(call: JsonObject): number | null {
  if (text(call.name) !== SHELL_TOOL) return null;
  for (const p of arr(call.result) ?? (obj(call.result) ? [call.result] : [])) {
    const output = obj(obj(obj(p)?.functionResponse)?.response)?.output;
    if (typeof output !== 'string') continue;
    const code = exitLine(output);
    if (code !== null) return code;
  }
  return null;
}

/**
 * Whether a finished call failed: Gemini CLI says so (`error`), or it was a shell command that exited
 * non-zero, whatever status Gemini CLI gave it. A call the person refused (`cancelled`) did not fail:
 * it did not run.
 */
export function callFailed(status: string | null, exitCode: number | null): boolean {
  return status === 'error' || (exitCode !== null && exitCode !== 0);
}

/**
 * What the person typed in a `user` message, shortened: null when the message is only function
 * responses (Gemini CLI writes a call's results back as a `user` message) or the harness's context.
 * A reader that counts the person's turns counts the messages where this is not null.
 */
export function personWords(o: JsonObject): string | null {
  const words = partsText(o.displayContent) ?? partsText(o.content);
  return words === null || isHarnessContext(words) ? null : words;
}

export function messageFrom(o: JsonObject): GeminiMessage | null {
  const id = text(o.id);
  if (id === null) return null;
  const type = str(o.type) ?? 'unknown';
  const calls: GeminiCall[] = [];
  for (const c of arr(o.toolCalls) ?? []) {
    if (calls.length >= MAX_CALLS_PER_MESSAGE) break;
    const call = obj(c);
    const name = call ? text(call.name) : null;
    if (call && name) calls.push({ name, status: str(call.status), exitCode: shellExitCode(call) });
  }
  let words: string | null = null;
  if (type === 'user') words = personWords(o);
  else if (type === 'error' || type === 'info') words = partsText(o.content);
  return {
    id,
    ms: isoMs(o.timestamp),
    type,
    model: text(o.model),
    tokens: type === 'gemini' ? tokensFrom(o.tokens) : null,
    calls,
    text: words,
  };
}

export function metadataFrom(o: JsonObject): GeminiMetadata {
  return {
    sessionId: text(o.sessionId),
    startMs: isoMs(o.startTime),
    lastMs: isoMs(o.lastUpdated),
    summary: text(o.summary),
    directories: (arr(o.directories) ?? []).map(text).filter((d): d is string => d !== null),
  };
}

function messagesFrom(v: unknown): GeminiMessage[] {
  const out: GeminiMessage[] = [];
  for (const m of arr(v) ?? []) {
    const o = obj(m);
    const msg = o ? messageFrom(o) : null;
    if (msg) out.push(msg);
  }
  return out;
}

/** Project one JSONL line, in the order Gemini CLI's own loader tells them apart. */
export function lineFromJson(o: JsonObject): GeminiLine {
  if (typeof o.$rewindTo === 'string') return { kind: 'rewind', to: o.$rewindTo };
  if (typeof o.id === 'string') {
    const message = messageFrom(o);
    return message ? { kind: 'message', message } : { kind: 'other' };
  }
  const set = obj(o.$set);
  if (set) {
    const messages = Array.isArray(set.messages) ? messagesFrom(set.messages) : null;
    return { kind: 'set', meta: metadataFrom(set), messages };
  }
  if (typeof o.sessionId === 'string' && typeof o.projectHash === 'string') {
    return { kind: 'header', meta: metadataFrom(o) };
  }
  return { kind: 'other' };
}

/** A whole-file `session-*.json`: its metadata and its messages. */
export function conversationFrom(o: JsonObject): { meta: GeminiMetadata; messages: GeminiMessage[] } {
  return { meta: metadataFrom(o), messages: messagesFrom(o.messages) };
}
