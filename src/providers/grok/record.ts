/**
 * The part of a Grok Build CLI `updates.jsonl` line that session facts need.
 *
 * Each line is an Agent Client Protocol `session/update` notification as the CLI sent it:
 * `{timestamp (seconds), params: {sessionId, update: {sessionUpdate, …}, _meta: {eventId,
 * agentTimestampMs}}}`. Read here: `user_message_chunk` (`content.text`, the prompt), `tool_call`
 * (`toolCallId`, `kind`), `tool_call_update` (`status`: `failed`) and `turn_completed`, whose `usage`
 * sums the turn's requests: `inputTokens` with the cached part inside it (`cachedReadTokens`,
 * `cacheCreationTokens`), `outputTokens` with the reasoning inside it (`reasoningTokens`), per model in
 * `modelUsage`, and the turn's price in `costUsdTicks` (1e-10 dollars) where the CLI wrote one.
 */
import { count, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** Models read from one turn's `modelUsage`; a turn uses one or two. */
export const MAX_TURN_MODELS = 32;

/** One model's share of a turn, with the cached parts taken out of the input. */
export interface GrokUsage {
  /** The model as the CLI names it (`grok-4.3-build`), or null when the turn does not say. */
  model: string | null;
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
  /** The CLI's own price for it, in dollars; null when it wrote none. */
  costUsd: number | null;
}

export type GrokLine =
  | { kind: 'prompt'; ms: number | null; text: string | null }
  | { kind: 'call'; ms: number | null; id: string | null; name: string }
  | { kind: 'failed'; ms: number | null; id: string | null }
  | { kind: 'turn'; ms: number | null; event: string | null; usages: GrokUsage[] }
  | { kind: 'other'; ms: number | null };

/** One tick is 1e-10 dollars. */
const TICKS_PER_USD = 1e10;

function usageOf(model: string | null, v: unknown): GrokUsage | null {
  const u = obj(v);
  if (u === null) return null;
  const input = count(u.inputTokens) ?? 0;
  // The cached parts are inside the input; a record claiming more than the input is held to it.
  const cacheRead = Math.min(count(u.cachedReadTokens) ?? 0, input);
  const cacheWrite = Math.min(count(u.cacheCreationTokens) ?? 0, input - cacheRead);
  const ticks = count(u.costUsdTicks);
  const g: GrokUsage = {
    model,
    input: input - cacheRead - cacheWrite,
    output: count(u.outputTokens) ?? 0,
    reasoning: count(u.reasoningTokens) ?? 0,
    cacheRead,
    cacheWrite,
    costUsd: ticks !== null && ticks > 0 ? ticks / TICKS_PER_USD : null,
  };
  return g.input + g.output + g.cacheRead + g.cacheWrite + g.reasoning === 0 ? null : g;
}

function usagesOf(v: unknown): GrokUsage[] {
  const u = obj(v);
  if (u === null) return [];
  const per = obj(u.modelUsage);
  const names = per === null ? [] : Object.keys(per).sort().slice(0, MAX_TURN_MODELS);
  if (per !== null && names.length > 0) {
    const out: GrokUsage[] = [];
    for (const name of names) {
      const g = usageOf(name, per[name]);
      if (g !== null) out.push(g);
    }
    return out;
  }
  const whole = usageOf(null, u);
  return whole === null ? [] : [whole];
}

export function lineFromJson(o: JsonObject): GrokLine {
  const p = obj(o.params);
  const meta = obj(p?.['_meta']);
  const agentMs = num(meta?.agentTimestampMs);
  const seconds = num(o.timestamp);
  const ms =
    agentMs !== null && agentMs > 0 ? agentMs : seconds !== null && seconds > 0 ? seconds * 1000 : null;
  const u = obj(p?.update);
  switch (str(u?.sessionUpdate)) {
    case 'user_message_chunk': {
      const t = text(obj(u?.content)?.text);
      return { kind: 'prompt', ms, text: t === null ? null : t.slice(0, MAX_PROMPT_CHARS) };
    }
    case 'tool_call':
      return { kind: 'call', ms, id: text(u?.toolCallId), name: text(u?.kind) ?? 'other' };
    case 'tool_call_update':
      return str(u?.status) === 'failed'
        ? { kind: 'failed', ms, id: text(u?.toolCallId) }
        : { kind: 'other', ms };
    case 'turn_completed':
      return { kind: 'turn', ms, event: text(meta?.eventId), usages: usagesOf(u?.usage) };
    default:
      return { kind: 'other', ms };
  }
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Grok Build). */
export function lineFromBytes(b: Buffer, s: number, e: number): GrokLine {
  return lineFromJson(objectLine(b, s, e));
}
