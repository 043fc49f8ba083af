/**
 * The parts of a Kilo session that facts need, from its `kilo.db` rows. Kilo's CLI forked OpenCode
 * and keeps its schema: a `session` row (`title`, `directory`, `parent_id`, `time_created`,
 * `time_updated`), `message` rows whose `data` JSON has `role`, `time.{created,completed}`,
 * `modelID`, `tokens.{input,output,reasoning,cache.{read,write}}` (input uncached, output without
 * its reasoning), `cost`, `error` and `finish`; and `part` rows whose `data` is a `text`, a `tool`
 * call (`tool`, `state.status`, a shell command's exit code in `state.metadata.exit`), or a
 * `step-finish` that closes one model request with that request's own `tokens` and `cost`.
 */
import { count, type JsonObject, num, obj, parseJson, str, text } from '../../model/json.js';

/** The title Kilo (as OpenCode) gives a session before it has generated one. */
const PLACEHOLDER_TITLE = /^(New session|Child session) - \d{4}-\d{2}-\d{2}T/;

export interface KiloTokens {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface KiloSession {
  id: string;
  directory: string | null;
  title: string | null;
  createdMs: number | null;
  updatedMs: number | null;
}

export interface KiloMessage {
  id: string;
  role: string | null;
  ms: number | null;
  completedMs: number | null;
  model: string | null;
  tokens: KiloTokens | null;
  cost: number | null;
  aborted: boolean;
  error: string | null;
  finish: string | null;
  cwd: string | null;
}

export type KiloPart =
  | { kind: 'text'; messageId: string; text: string }
  | { kind: 'tool'; messageId: string; tool: string; status: string | null; failed: boolean }
  | { kind: 'step'; messageId: string; id: string; tokens: KiloTokens | null; cost: number | null }
  | { kind: 'compaction'; messageId: string }
  | { kind: 'other' };

export function tokensOf(v: unknown): KiloTokens | null {
  const t = obj(v);
  const input = count(t?.input);
  const output = count(t?.output);
  if (t === null || (input === null && output === null)) return null;
  const cache = obj(t.cache);
  return {
    input: input ?? 0,
    output: output ?? 0,
    reasoning: count(t.reasoning) ?? 0,
    cacheRead: count(cache?.read) ?? 0,
    cacheWrite: count(cache?.write) ?? 0,
  };
}

export function sessionOf(row: JsonObject): KiloSession | null {
  const id = text(row.id);
  if (id === null) return null;
  const title = text(row.title);
  return {
    id,
    directory: text(row.directory),
    title: title !== null && !PLACEHOLDER_TITLE.test(title) ? title : null,
    createdMs: num(row.time_created),
    updatedMs: num(row.time_updated),
  };
}

const dataOf = (row: JsonObject): JsonObject | null =>
  typeof row.data === 'string' ? obj(parseJson(row.data)) : null;

export function messageOf(row: JsonObject): KiloMessage | null {
  const id = text(row.id);
  const d = dataOf(row);
  if (id === null || d === null) return null;
  const time = obj(d.time);
  const err = obj(d.error);
  return {
    id,
    role: str(d.role),
    ms: num(time?.created),
    completedMs: num(time?.completed),
    model: text(d.modelID),
    tokens: tokensOf(d.tokens),
    cost: num(d.cost),
    aborted: text(err?.name) === 'MessageAbortedError',
    error:
      err === null ? null : (text(obj(err.data)?.message) ?? text(err.message) ?? text(err.name) ?? 'error'),
    finish: text(d.finish),
    cwd: text(obj(d.path)?.cwd),
  };
}

export function partOf(row: JsonObject): KiloPart {
  const messageId = text(row.message_id);
  const d = dataOf(row);
  if (messageId === null || d === null) return { kind: 'other' };
  switch (str(d.type)) {
    case 'text':
      return d.synthetic === true ? { kind: 'other' } : { kind: 'text', messageId, text: str(d.text) ?? '' };
    case 'tool': {
      const tool = text(d.tool);
      const state = obj(d.state);
      const status = str(state?.status);
      const exit = obj(state?.metadata)?.exit;
      if (tool === null) return { kind: 'other' };
      // A shell command that exited non-zero failed, though Kilo records it `completed`.
      return {
        kind: 'tool',
        messageId,
        tool,
        status,
        failed: status === 'error' || (typeof exit === 'number' && exit !== 0),
      };
    }
    case 'step-finish':
      return {
        kind: 'step',
        messageId,
        id: text(row.id) ?? '',
        tokens: tokensOf(d.tokens),
        cost: num(d.cost),
      };
    case 'compaction':
      return { kind: 'compaction', messageId };
    default:
      return { kind: 'other' };
  }
}
