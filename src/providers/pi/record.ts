/**
 * The part of a Pi (pi-coding-agent) session line that session facts need.
 *
 * A Pi session file (format 3) is a tree written as lines, each `{type, id, parentId, timestamp}`:
 * a `session` header `{id, cwd}`, `model_change`, `thinking_level_change`, `session_info` (the
 * name the user gave), `compaction`, and `message` entries whose `message` is a pi-ai message:
 * `user`, `assistant` (with `model`, `usage` and its cost, `stopReason`, `toolCall` content blocks)
 * or `toolResult` (`toolCallId`, `isError`). Pi prices each response itself (`usage.cost.total`).
 * The pieces of a message that every harness writing this format writes alike are read by
 * `../pi-format.ts`; this module reads the entries around them and what Pi adds.
 */
import { count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';
import {
  callsOf,
  formatEntry,
  otherMessage,
  type PiCall,
  type PiEntry,
  type PiFormatUsage,
  usageOf,
} from '../pi-format.js';
import { objectLine } from '../skim.js';

/** The format's counts, with the two Pi adds: reasoning apart, and the total it checks against. */
export interface PiUsage extends PiFormatUsage {
  reasoning: number | null;
  total: number | null;
}

export type PiLine =
  | PiEntry
  | { kind: 'thinking'; ms: number | null; level: string }
  | { kind: 'title'; ms: number | null; name: string }
  | {
      kind: 'assistant';
      ms: number | null;
      /** The entry's id and the message's own time: together, the response's identity. */
      entry: string | null;
      stamp: number | null;
      model: string | null;
      usage: PiUsage | null;
      calls: PiCall[];
      stop: string | null;
      error: string | null;
    };

/** The format's usage with Pi's additions; Pi's price is also read where `cost` is a bare number. */
function usageFrom(v: unknown): PiUsage | null {
  const base = usageOf(v);
  const u = obj(v);
  if (base === null || u === null) return null;
  return {
    ...base,
    reasoning: count(u.reasoning),
    total: count(u.totalTokens),
    costUsd: obj(u.cost) === null ? count(u.cost) : base.costUsd,
  };
}

export function lineFromJson(o: JsonObject): PiLine {
  const ms = isoMs(o.timestamp);
  switch (str(o.type)) {
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
    case 'message':
      return messageLine(obj(o.message) ?? {}, text(o.id), ms);
    default:
      // The header and a compaction, as every harness writing the format writes them.
      return formatEntry(o, ms);
  }
}

function messageLine(m: JsonObject, entry: string | null, ms: number | null): PiLine {
  if (str(m.role) !== 'assistant') return otherMessage(m, ms);
  return {
    kind: 'assistant',
    ms,
    entry,
    stamp: num(m.timestamp),
    model: text(m.model),
    usage: usageFrom(m.usage),
    calls: callsOf(m.content),
    stop: str(m.stopReason),
    error: text(m.errorMessage),
  };
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Pi). */
export function lineFromBytes(b: Buffer, s: number, e: number): PiLine {
  return lineFromJson(objectLine(b, s, e));
}
