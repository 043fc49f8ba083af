/**
 * The part of an OpenClaw session line that session facts need.
 *
 * OpenClaw runs its agents on Pi's agent core and writes Pi's session format: a `session` header
 * (`id`, `cwd`), `model_change` (`modelId`, `provider`), and `message` entries whose `message` is a
 * `user`, an `assistant` (`model`, `usage` with `input` uncached, `output`, `cacheRead`, `cacheWrite`
 * and the harness's own `cost.total`; `toolCall` content blocks; `stopReason`) or a `toolResult`
 * (`toolCallId`, `toolName`, `isError`). OpenClaw adds `custom` entries: a `model-snapshot` names the
 * model (`data.modelId`, else `data.model`) the next responses use. What it writes as Pi does (a
 * prompt's words, an assistant's calls and usage, a tool result) is read by `../pi-format.ts`.
 */
import { isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';
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

export type ClawLine =
  | PiEntry
  | {
      kind: 'assistant';
      ms: number | null;
      /** The entry's id: the response's identity. */
      entry: string | null;
      model: string | null;
      usage: PiFormatUsage | null;
      calls: PiCall[];
      stop: string | null;
    };

/** A message's own time (milliseconds), else the entry's (an ISO string). */
const timeOf = (o: JsonObject, m: JsonObject | null): number | null =>
  num(m?.timestamp) ?? isoMs(o.timestamp);

function messageLine(o: JsonObject): ClawLine {
  const m = obj(o.message) ?? {};
  const ms = timeOf(o, m);
  if (str(m.role) !== 'assistant') return otherMessage(m, ms);
  return {
    kind: 'assistant',
    ms,
    entry: text(o.id),
    model: text(m.modelId) ?? text(m.model),
    usage: usageOf(m.usage),
    calls: callsOf(m.content),
    stop: str(m.stopReason),
  };
}

export function lineFromJson(o: JsonObject): ClawLine {
  const ms = isoMs(o.timestamp);
  switch (str(o.type)) {
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
    case 'message':
      return messageLine(o);
    default:
      // The header and a compaction, as every harness writing the format writes them.
      return formatEntry(o, ms);
  }
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for OpenClaw). */
export function lineFromBytes(b: Buffer, s: number, e: number): ClawLine {
  return lineFromJson(objectLine(b, s, e));
}
