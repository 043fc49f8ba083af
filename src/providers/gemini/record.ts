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
}

export interface GeminiMessage {
  id: string;
  ms: number | null;
  /** `user`, `gemini`, `info`, `error` or `warning`. */
  type: string;
  model: string | null;
  tokens: GeminiTokens | null;
  calls: GeminiCall[];
  /** The user's words (a `user` message) or the error text (an `error` message), shortened. */
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

export function messageFrom(o: JsonObject): GeminiMessage | null {
  const id = text(o.id);
  if (id === null) return null;
  const type = str(o.type) ?? 'unknown';
  const calls: GeminiCall[] = [];
  for (const c of arr(o.toolCalls) ?? []) {
    if (calls.length >= MAX_CALLS_PER_MESSAGE) break;
    const call = obj(c);
    const name = call ? text(call.name) : null;
    if (call && name) calls.push({ name, status: str(call.status) });
  }
  let words: string | null = null;
  if (type === 'user') words = partsText(o.displayContent) ?? partsText(o.content);
  else if (type === 'error') words = partsText(o.content);
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
