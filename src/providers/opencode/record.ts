/**
 * The parts of an OpenCode session, message and part that session facts need, read from their JSON
 * (a file of the legacy `storage/` tree, or a database row reassembled into the same shape).
 *
 * OpenCode's message (`MessageV2.Info`): `{id, role, time: {created, completed}, modelID,
 * providerID, tokens: {input, output, reasoning, cache: {read, write}}, cost, error: {name, data:
 * {message}}, finish, path: {cwd}}`; `input` is already the uncached part and `output` excludes
 * reasoning, which is reported (and billed) apart. A part: `{id, messageID, type, …}` where a
 * `tool` part has `tool`, `callID`, `state.status` (`pending`, `running`, `completed`, `error`) and,
 * for a shell call, the command's exit code in `state.metadata.exit`; a `step-finish` part closes one
 * model request with that request's `tokens` and `cost`, a `compaction` part marks a compaction and a
 * `text` part holds words.
 */
import { count, type JsonObject, num, obj, str, text } from '../../model/json.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** The title OpenCode gives a session before it has generated one. */
const PLACEHOLDER_TITLE = /^(New session|Child session) - \d{4}-\d{2}-\d{2}T/;

export interface OpenCodeTokens {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface OpenCodeSession {
  id: string;
  parentId: string | null;
  directory: string | null;
  /** The generated title; null while it is still OpenCode's placeholder. */
  title: string | null;
  createdMs: number | null;
  updatedMs: number | null;
  /** The OpenCode version that made the session (its `version`), for doctor's drift count. */
  version: string | null;
}

export interface OpenCodeMessage {
  id: string;
  role: string | null;
  ms: number | null;
  completedMs: number | null;
  model: string | null;
  tokens: OpenCodeTokens | null;
  /** What OpenCode priced the message at (the sum of its requests), in dollars. */
  cost: number | null;
  error: { name: string | null; message: string | null } | null;
  finish: string | null;
  cwd: string | null;
}

export interface OpenCodePart {
  id: string;
  messageId: string;
  type: string | null;
  tool: string | null;
  status: string | null;
  /** The call failed (see `callFailed`). */
  failed: boolean;
  tokens: OpenCodeTokens | null;
  cost: number | null;
}

/**
 * Whether a call failed: OpenCode says `error`, or the shell command it ran exited non-zero. OpenCode
 * (1.18) records such a command `completed`, its exit code in `state.metadata.exit` and its output as
 * it was; the command failed all the same. An exit code that is not a number (a command killed by a
 * signal) says nothing either way.
 */
export function callFailed(status: string | null, exit: unknown): boolean {
  return status === 'error' || (typeof exit === 'number' && exit !== 0);
}

export function tokensFrom(v: unknown): OpenCodeTokens | null {
  const t = obj(v);
  if (!t) return null;
  const input = count(t.input);
  const output = count(t.output);
  if (input === null && output === null) return null;
  const cache = obj(t.cache);
  return {
    input: input ?? 0,
    output: output ?? 0,
    reasoning: count(t.reasoning) ?? 0,
    cacheRead: count(cache?.read) ?? 0,
    cacheWrite: count(cache?.write) ?? 0,
  };
}

export function sessionFrom(o: JsonObject): OpenCodeSession | null {
  const id = text(o.id);
  if (id === null) return null;
  const time = obj(o.time);
  const title = text(o.title);
  return {
    id,
    parentId: text(o.parentID) ?? text(o.parent_id),
    directory: text(o.directory),
    title: title !== null && !PLACEHOLDER_TITLE.test(title) ? title : null,
    createdMs: num(time?.created) ?? num(o.time_created),
    updatedMs: num(time?.updated) ?? num(o.time_updated),
    version: text(o.version),
  };
}

export function messageFrom(o: JsonObject): OpenCodeMessage | null {
  const id = text(o.id);
  if (id === null) return null;
  const time = obj(o.time);
  const err = obj(o.error);
  const user = obj(o.model);
  return {
    id,
    role: str(o.role),
    ms: num(time?.created),
    completedMs: num(time?.completed),
    model: text(o.modelID) ?? text(user?.modelID),
    tokens: tokensFrom(o.tokens),
    cost: num(o.cost),
    error: err ? { name: text(err.name), message: text(obj(err.data)?.message) ?? text(err.message) } : null,
    finish: text(o.finish),
    cwd: text(obj(o.path)?.cwd),
  };
}

export function partFrom(o: JsonObject, messageId: string | null = null): OpenCodePart | null {
  const id = text(o.id);
  const message = text(o.messageID) ?? messageId;
  if (id === null || message === null) return null;
  const state = obj(o.state);
  const status = str(state?.status);
  return {
    id,
    messageId: message,
    type: str(o.type),
    tool: text(o.tool),
    status,
    failed: callFailed(status, obj(state?.metadata)?.exit),
    tokens: tokensFrom(o.tokens),
    cost: num(o.cost),
  };
}

/** The words of a `text` part, unless OpenCode wrote them itself (`synthetic`). */
export function partWords(o: JsonObject): string | null {
  if (o.type !== 'text' || o.synthetic === true) return null;
  const t = str(o.text);
  return t !== null && t.trim().length > 0 ? t.slice(0, MAX_PROMPT_CHARS) : null;
}
