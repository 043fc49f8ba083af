/**
 * The part of a Pi (pi-coding-agent) session line that session facts need.
 *
 * A Pi session file (format 3) is a tree written as lines, each `{type, id, parentId, timestamp}`:
 * a `session` header `{id, cwd}`, `model_change`, `thinking_level_change`, `session_info` (the
 * name the user gave), `compaction`, and `message` entries whose `message` is a pi-ai message:
 * `user`, `assistant` (with `model`, `usage` and its cost, `stopReason`, `toolCall` content blocks)
 * or `toolResult` (`toolCallId`, `isError`). Pi prices each response itself (`usage.cost.total`).
 */
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface PiUsage {
  /** Uncached input (pi-ai reports the cached parts apart). */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number | null;
  total: number | null;
  /** What Pi priced the response at, in dollars. */
  costUsd: number | null;
}

export type PiLine =
  | { kind: 'session'; ms: number | null; id: string | null; cwd: string | null }
  | { kind: 'model'; ms: number | null; model: string }
  | { kind: 'thinking'; ms: number | null; level: string }
  | { kind: 'title'; ms: number | null; name: string }
  | { kind: 'compaction'; ms: number | null }
  | { kind: 'user'; ms: number | null; text: string | null }
  | {
      kind: 'assistant';
      ms: number | null;
      /** The entry's id and the message's own time: together, the response's identity. */
      entry: string | null;
      stamp: number | null;
      model: string | null;
      usage: PiUsage | null;
      calls: [string | null, string][];
      stop: string | null;
      error: string | null;
    }
  | { kind: 'result'; ms: number | null; callId: string | null; name: string | null; failed: boolean }
  | { kind: 'other'; ms: number | null };

function usageFrom(v: unknown): PiUsage | null {
  const u = obj(v);
  if (!u) return null;
  const input = count(u.input);
  const output = count(u.output);
  if (input === null && output === null) return null;
  const cost = obj(u.cost);
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: count(u.cacheRead) ?? 0,
    cacheWrite: count(u.cacheWrite) ?? 0,
    reasoning: count(u.reasoning),
    total: count(u.totalTokens),
    costUsd: cost ? count(cost.total) : count(u.cost),
  };
}

function words(content: unknown): string | null {
  if (typeof content === 'string') return content.slice(0, MAX_PROMPT_CHARS);
  let out = '';
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'text' && typeof block.text === 'string') out += block.text;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out.length > 0 ? out.slice(0, MAX_PROMPT_CHARS) : null;
}

export function lineFromJson(o: JsonObject): PiLine {
  const ms = isoMs(o.timestamp);
  switch (str(o.type)) {
    case 'session':
      return { kind: 'session', ms, id: text(o.id), cwd: text(o.cwd) };
    case 'model_change': {
      const model = text(o.modelId);
      return model ? { kind: 'model', ms, model } : { kind: 'other', ms };
    }
    case 'thinking_level_change': {
      const level = text(o.thinkingLevel);
      return level ? { kind: 'thinking', ms, level } : { kind: 'other', ms };
    }
    case 'session_info': {
      const name = text(o.name);
      return name ? { kind: 'title', ms, name } : { kind: 'other', ms };
    }
    case 'compaction':
      return { kind: 'compaction', ms };
    case 'message':
      return messageLine(obj(o.message) ?? {}, text(o.id), ms);
    default:
      return { kind: 'other', ms };
  }
}

function messageLine(m: JsonObject, entry: string | null, ms: number | null): PiLine {
  switch (str(m.role)) {
    case 'user':
      return { kind: 'user', ms, text: words(m.content) };
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
        entry,
        stamp: num(m.timestamp),
        model: text(m.model),
        usage: usageFrom(m.usage),
        calls,
        stop: str(m.stopReason),
        error: text(m.errorMessage),
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

/** A line from its bytes: parsed whole (there is no byte-level extractor for Pi). */
export function lineFromBytes(b: Buffer, s: number, e: number): PiLine {
  return lineFromJson(objectLine(b, s, e));
}
