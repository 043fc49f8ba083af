/**
 * The part of an Amp thread that session facts need, read from the parsed document.
 *
 * Amp keeps each thread as one JSON file (`threads/T-<uuid>.json`), rewritten as the thread grows:
 * its `id`, `created` (epoch ms), an AI-written `title`, `env.initial.trees` (the workspace folders,
 * as `file://` URIs) and `messages`. A message has a `role`, a numeric `messageId`, Anthropic-style
 * `content` blocks (`text`, `thinking`, `tool_use` with `id` and `name`; a user message's
 * `tool_result` answers a call by `toolUseID` and says how it ended in `run.status`), and an
 * assistant message its request's `usage` (`model`, `timestamp`, `inputTokens`, `outputTokens`,
 * `cacheCreationInputTokens`, `cacheReadInputTokens`). Older threads put the tokens of each request
 * in `usageLedger.events` instead (`timestamp`, `model`, `tokens.{input,output,total}`, and
 * `toMessageId`, the assistant message whose `usage` holds that request's cache tokens).
 */
import { fileURLToPath } from 'node:url';
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** One request's tokens as Amp recorded them; null where the field is absent. */
export interface AmpTokens {
  input: number | null;
  output: number | null;
  cacheWrite: number | null;
  cacheRead: number | null;
  /** `totalTokens` (or a ledger event's `total`): used only when the parts are all missing. */
  total: number | null;
}

export interface AmpRequest {
  /** What identifies it within the thread: its message id, or its ledger event's id. */
  id: string | null;
  ms: number;
  model: string;
  tokens: AmpTokens;
  /** Calls the response made, by name (null: the records do not say which response it was). */
  tools: string[] | null;
}

export type AmpBlock =
  | { kind: 'text'; text: string }
  | { kind: 'call'; id: string | null; name: string }
  | { kind: 'result'; callId: string | null; status: string | null }
  | { kind: 'other' };

export interface AmpMessage {
  role: 'user' | 'assistant' | 'other';
  messageId: number | null;
  /** The turn's state (`complete`, `cancelled`, `running`, …) and why the model stopped. */
  state: string | null;
  stopReason: string | null;
  blocks: AmpBlock[];
}

export interface AmpThread {
  id: string | null;
  createdMs: number | null;
  title: string | null;
  cwd: string | null;
  messages: AmpMessage[];
  requests: AmpRequest[];
}

function blockOf(v: unknown): AmpBlock {
  const b = obj(v);
  switch (str(b?.type)) {
    case 'text':
      return { kind: 'text', text: str(b?.text) ?? '' };
    case 'tool_use': {
      const name = text(b?.name);
      return name === null ? { kind: 'other' } : { kind: 'call', id: text(b?.id), name };
    }
    case 'tool_result':
      return { kind: 'result', callId: text(b?.toolUseID), status: str(obj(b?.run)?.status) };
    default:
      return { kind: 'other' };
  }
}

function messageOf(v: unknown): AmpMessage | null {
  const m = obj(v);
  if (m === null) return null;
  const role = str(m.role);
  const content = m.content;
  const blocks =
    typeof content === 'string'
      ? [{ kind: 'text', text: content } as const]
      : (arr(content) ?? []).map(blockOf);
  const state = obj(m.state);
  return {
    role: role === 'user' || role === 'assistant' ? role : 'other',
    messageId: num(m.messageId),
    state: str(state?.type),
    stopReason: str(state?.stopReason),
    blocks,
  };
}

/** An ISO time or epoch milliseconds. */
function timeOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : isoMs(v);
}

function tokensOf(u: JsonObject): AmpTokens {
  return {
    input: count(u.inputTokens),
    output: count(u.outputTokens),
    cacheWrite: count(u.cacheCreationInputTokens),
    cacheRead: count(u.cacheReadInputTokens),
    total: count(u.totalTokens),
  };
}

/** The first workspace folder, as a path (a `file://` URI that is not one is dropped). */
function cwdOf(thread: JsonObject): string | null {
  const trees = arr(obj(obj(thread.env)?.initial)?.trees) ?? [];
  for (const t of trees) {
    const uri = text(obj(t)?.uri);
    if (uri === null || !uri.startsWith('file://')) continue;
    try {
      return fileURLToPath(uri);
    } catch {
      // A URI with a host or a bad escape names no local folder: try the next one.
    }
  }
  return null;
}

/** Requests from the older `usageLedger`, their cache tokens from the message each one answered. */
function ledgerRequests(events: unknown[], messages: unknown[]): AmpRequest[] {
  const cacheOf = new Map<number, JsonObject>();
  const toolsOf = new Map<number, string[]>();
  for (const v of messages) {
    const m = obj(v);
    const id = num(m?.messageId);
    if (m === null || id === null || str(m.role) !== 'assistant') continue;
    const u = obj(m.usage);
    if (u !== null) cacheOf.set(id, u);
    toolsOf.set(
      id,
      (messageOf(m)?.blocks ?? []).flatMap((b) => (b.kind === 'call' ? [b.name] : [])),
    );
  }
  const out: AmpRequest[] = [];
  for (const v of events) {
    const e = obj(v);
    const ms = timeOf(e?.timestamp);
    const model = text(e?.model);
    const t = obj(e?.tokens);
    if (e === null || ms === null || model === null || t === null) continue;
    const to = num(e.toMessageId);
    const cache = to === null ? null : (cacheOf.get(to) ?? null);
    out.push({
      id: text(e.id) ?? (to === null ? null : `m${to}`),
      ms,
      model,
      tokens: {
        input: count(t.input),
        output: count(t.output),
        cacheWrite: cache === null ? null : count(cache.cacheCreationInputTokens),
        cacheRead: cache === null ? null : count(cache.cacheReadInputTokens),
        total: count(t.total),
      },
      tools: to === null ? null : (toolsOf.get(to) ?? null),
    });
  }
  return out;
}

/** Requests from the assistant messages' own `usage` (Amp's current threads). */
function messageRequests(messages: unknown[]): AmpRequest[] {
  const out: AmpRequest[] = [];
  for (const v of messages) {
    const m = obj(v);
    if (m === null || str(m.role) !== 'assistant') continue;
    const u = obj(m.usage);
    if (u === null) continue;
    const ms = timeOf(u.timestamp) ?? timeOf(m.timestamp);
    const model = text(u.model) ?? text(m.model);
    if (ms === null || model === null) continue;
    const id = num(m.messageId);
    out.push({
      id: id === null ? text(m.messageId) : `m${id}`,
      ms,
      model,
      tokens: tokensOf(u),
      tools: (messageOf(m)?.blocks ?? []).flatMap((b) => (b.kind === 'call' ? [b.name] : [])),
    });
  }
  return out;
}

export function threadFrom(o: JsonObject): AmpThread {
  const messages = arr(o.messages) ?? [];
  const events = arr(obj(o.usageLedger)?.events);
  return {
    id: text(o.id),
    createdMs: timeOf(o.created),
    title: text(o.title),
    cwd: cwdOf(o),
    messages: messages.map(messageOf).filter((m): m is AmpMessage => m !== null),
    requests: events !== null ? ledgerRequests(events, messages) : messageRequests(messages),
  };
}
