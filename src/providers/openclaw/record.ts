/**
 * The part of an OpenClaw session line that session facts need.
 *
 * OpenClaw runs its agents on Pi's agent core and writes Pi's session format: a `session` header
 * (`id`, `cwd`), `model_change` (`modelId`, `provider`), and `message` entries whose `message` is a
 * `user`, an `assistant` (`model`, `usage` with `input` uncached, `output`, `cacheRead`, `cacheWrite`
 * and the harness's own `cost.total`; `toolCall` content blocks; `stopReason`) or a `toolResult`
 * (`toolCallId`, `toolName`, `isError`). OpenClaw adds `custom` entries: a `model-snapshot` names the
 * model (`data.modelId`, else `data.model`) the next responses use.
 */
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface ClawUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** What OpenClaw priced the response at, in dollars. */
  costUsd: number | null;
}

export type ClawLine =
  | { kind: 'session'; ms: number | null; id: string | null; cwd: string | null }
  | { kind: 'model'; ms: number | null; model: string }
  | { kind: 'user'; ms: number | null; text: string | null }
  | {
      kind: 'assistant';
      ms: number | null;
      /** The entry's id: the response's identity. */
      entry: string | null;
      model: string | null;
      usage: ClawUsage | null;
      calls: [string | null, string][];
      stop: string | null;
    }
  | { kind: 'result'; ms: number | null; callId: string | null; name: string | null; failed: boolean }
  | { kind: 'compaction'; ms: number | null }
  | { kind: 'other'; ms: number | null };

function usageOf(v: unknown): ClawUsage | null {
  const u = obj(v);
  if (u === null) return null;
  const input = count(u.input);
  const output = count(u.output);
  if (input === null && output === null) return null;
  const cost = obj(u.cost);
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: count(u.cacheRead) ?? 0,
    cacheWrite: count(u.cacheWrite) ?? 0,
    costUsd: cost === null ? null : count(cost.total),
  };
}

function promptOf(content: unknown): string | null {
  if (typeof content === 'string') return content.slice(0, MAX_PROMPT_CHARS) || null;
  let out = '';
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'text' && typeof block.text === 'string') out += block.text;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out.length > 0 ? out.slice(0, MAX_PROMPT_CHARS) : null;
}

/** A message's own time (milliseconds), else the entry's (an ISO string). */
const timeOf = (o: JsonObject, m: JsonObject | null): number | null =>
  num(m?.timestamp) ?? isoMs(o.timestamp);

function messageLine(o: JsonObject): ClawLine {
  const m = obj(o.message) ?? {};
  const ms = timeOf(o, m);
  switch (str(m.role)) {
    case 'user':
      return { kind: 'user', ms, text: promptOf(m.content) };
    case 'assistant': {
      const calls: [string | null, string][] = [];
      for (const b of arr(m.content) ?? []) {
        const block = obj(b);
        const name = block?.type === 'toolCall' ? text(block.name) : null;
        if (block && name) calls.push([text(block.id), name]);
      }
      return {
        kind: 'assistant',
        ms,
        entry: text(o.id),
        model: text(m.modelId) ?? text(m.model),
        usage: usageOf(m.usage),
        calls,
        stop: str(m.stopReason),
      };
    }
    case 'toolResult':
      return {
        kind: 'result',
        ms,
        callId: text(m.toolCallId),
        name: text(m.toolName),
        failed: m.isError === true,
      };
    default:
      return { kind: 'other', ms };
  }
}

export function lineFromJson(o: JsonObject): ClawLine {
  const ms = isoMs(o.timestamp);
  switch (str(o.type)) {
    case 'session':
      return { kind: 'session', ms, id: text(o.id), cwd: text(o.cwd) };
    case 'model_change': {
      const data = obj(o.data) ?? o;
      const model = text(data.modelId) ?? text(data.model);
      return model === null ? { kind: 'other', ms } : { kind: 'model', ms, model };
    }
    case 'custom': {
      if (str(o.customType) !== 'model-snapshot') return { kind: 'other', ms };
      const data = obj(o.data);
      const model = text(data?.modelId) ?? text(data?.model);
      return model === null ? { kind: 'other', ms } : { kind: 'model', ms, model };
    }
    case 'compaction':
      return { kind: 'compaction', ms };
    case 'message':
      return messageLine(o);
    default:
      return { kind: 'other', ms };
  }
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for OpenClaw). */
export function lineFromBytes(b: Buffer, s: number, e: number): ClawLine {
  return lineFromJson(objectLine(b, s, e));
}
