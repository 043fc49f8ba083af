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
 *
 * Where it differs from Pi, as OpenClaw 2026.9.6 wrote it in the lab: its usage counts reasoning as
 * `reasoningTokens` (inside `output`, as `totalTokens` shows), and its shell tool (`exec`) reports a
 * command that exited non-zero with `isError: false` and the exit in `details.exitCode`, so a result
 * is read as failed by either (`clawEntry`).
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

export type ClawLine =
  | PiEntry
  | { kind: 'thinking'; ms: number | null; level: string }
  | {
      kind: 'assistant';
      ms: number | null;
      /** The entry's id: the response's identity. */
      entry: string | null;
      model: string | null;
      /** `output` with reasoning inside it, and the reasoning apart (null: not counted). */
      usage: (PiFormatUsage & { reasoning: number | null }) | null;
      calls: PiCall[];
      stop: string | null;
    };

/**
 * An entry as Pi's readers take it: a tool result whose command exited non-zero (`details.exitCode`,
 * which OpenClaw's `exec` writes while leaving `isError` false) is marked failed. Every reader of an
 * OpenClaw entry (the scan, the conversation, the calls) sees it through this, so they agree.
 */
export function clawEntry(o: JsonObject): JsonObject {
  if (str(o.type) !== 'message') return o;
  const m = obj(o.message);
  if (m === null || str(m.role) !== 'toolResult' || m.isError === true) return o;
  const exit = num(obj(m.details)?.exitCode);
  return exit === null || exit === 0 ? o : { ...o, message: { ...m, isError: true } };
}

/**
 * The format's usage with OpenClaw's reasoning count. `output` already holds it (2026.9.6 writes
 * `totalTokens` as input + output + cache read + cache write); a total that counts it on top of
 * those says it was apart, and it is added to output.
 */
function usageFrom(v: unknown): (PiFormatUsage & { reasoning: number | null }) | null {
  const base = usageOf(v);
  const u = obj(v);
  if (base === null || u === null) return null;
  const reasoning = count(u.reasoningTokens);
  const total = count(u.totalTokens);
  const counted = base.input + base.output + base.cacheRead + base.cacheWrite;
  const apart = reasoning !== null && reasoning > 0 && total === counted + reasoning;
  return { ...base, reasoning, output: apart ? base.output + reasoning : base.output };
}

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
    usage: usageFrom(m.usage),
    calls: callsOf(m.content),
    stop: str(m.stopReason),
  };
}

export function lineFromJson(entry: JsonObject): ClawLine {
  const o = clawEntry(entry);
  const ms = isoMs(o.timestamp);
  switch (str(o.type)) {
    case 'thinking_level_change': {
      const level = text(o.thinkingLevel);
      return level ? { kind: 'thinking', ms, level } : { kind: 'other', ms };
    }
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
