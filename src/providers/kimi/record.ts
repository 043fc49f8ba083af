/**
 * The part of a Kimi CLI wire line that session facts need.
 *
 * `wire.jsonl` records what Kimi's core sent its UI: a `{"type":"metadata","protocol_version"}` header,
 * then `{timestamp (seconds, fractional), message: {type, payload}}` lines. The types read here:
 * `TurnBegin` (`user_input`, a string or content parts), `StatusUpdate` (`token_usage` with
 * `input_other` uncached input, `input_cache_read`, `input_cache_creation`, `output`, or only
 * `total`; and the `message_id` of the response), `ToolCall` (`id`, `function.name`), `ToolResult`
 * (`tool_call_id`, `return_value.is_error`), `StepInterrupted` and `CompactionBegin`. The wire names no
 * model: the model is the config's.
 */
import { arr, count, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface KimiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Only a total was written: the prompt's size is not known from it. */
  totalOnly: boolean;
}

export type KimiLine =
  | { kind: 'turn'; ms: number | null; text: string | null }
  | {
      kind: 'usage';
      ms: number | null;
      messageId: string | null;
      /** The model the line names (Kimi Code's do; Kimi CLI's never: its config does). */
      model: string | null;
      usage: KimiUsage;
    }
  | { kind: 'call'; ms: number | null; id: string | null; name: string }
  | { kind: 'result'; ms: number | null; id: string | null; failed: boolean }
  | { kind: 'interrupted'; ms: number | null }
  | { kind: 'compaction'; ms: number | null }
  | { kind: 'turn-end'; ms: number | null }
  | { kind: 'other'; ms: number | null };

/** Seconds since the epoch (with a fraction) → milliseconds, or null. */
export function secondsMs(v: unknown): number | null {
  const s = num(v);
  return s === null || s <= 0 ? null : Math.trunc(s * 1000);
}

/** The words of a prompt (a string, or text parts: Kimi Code's too), cut to name the session. */
export function promptWords(input: unknown): string | null {
  if (typeof input === 'string') return input.length > 0 ? input.slice(0, MAX_PROMPT_CHARS) : null;
  let out = '';
  for (const p of arr(input) ?? []) {
    const part = obj(p);
    if (part?.type === 'text' && typeof part.text === 'string') out += part.text;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out.length > 0 ? out.slice(0, MAX_PROMPT_CHARS) : null;
}

/**
 * Kimi's token parts, or null when the update carries none. Only a `total` (older wires): the whole
 * of it is counted as output, the one part it cannot be less than, as ccusage counts it.
 */
function usageFrom(v: unknown): KimiUsage | null {
  const u = obj(v);
  if (u === null) return null;
  const input = count(u.input_other);
  const output = count(u.output);
  const cacheRead = count(u.input_cache_read);
  const cacheWrite = count(u.input_cache_creation);
  if (input === null && output === null && cacheRead === null && cacheWrite === null) {
    const total = count(u.total);
    return total === null || total === 0
      ? null
      : { input: 0, output: total, cacheRead: 0, cacheWrite: 0, totalOnly: true };
  }
  const parts = {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: cacheRead ?? 0,
    cacheWrite: cacheWrite ?? 0,
    totalOnly: false,
  };
  return parts.input + parts.output + parts.cacheRead + parts.cacheWrite === 0 ? null : parts;
}

export function lineFromJson(o: JsonObject): KimiLine {
  const ms = secondsMs(o.timestamp);
  const m = obj(o.message);
  const p = obj(m?.payload) ?? {};
  switch (str(m?.type)) {
    case 'TurnBegin':
      return { kind: 'turn', ms, text: promptWords(p.user_input) };
    case 'TurnEnd':
      return { kind: 'turn-end', ms };
    case 'StatusUpdate': {
      const usage = usageFrom(p.token_usage);
      return usage === null
        ? { kind: 'other', ms }
        : { kind: 'usage', ms, messageId: text(p.message_id), model: null, usage };
    }
    case 'ToolCall': {
      const name = text(obj(p.function)?.name);
      return name === null ? { kind: 'other', ms } : { kind: 'call', ms, id: text(p.id), name };
    }
    case 'ToolResult':
      return { kind: 'result', ms, id: text(p.tool_call_id), failed: obj(p.return_value)?.is_error === true };
    case 'StepInterrupted':
      return { kind: 'interrupted', ms };
    case 'CompactionBegin':
      return { kind: 'compaction', ms };
    default:
      return { kind: 'other', ms };
  }
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Kimi). */
export function lineFromBytes(b: Buffer, s: number, e: number): KimiLine {
  return lineFromJson(objectLine(b, s, e));
}
