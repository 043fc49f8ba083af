/**
 * The parts of a Hermes session that facts need: its `sessions` row and its `messages` rows.
 *
 * A session row holds the model, `billing_provider`, `started_at` and `ended_at` (epoch seconds as
 * REAL), `title`, `cwd`, and the session's running totals: `input_tokens` (uncached), `output_tokens`,
 * `cache_read_tokens`, `cache_write_tokens` and `reasoning_tokens`, and what Hermes priced them at,
 * `actual_cost_usd` (from the provider) or `estimated_cost_usd` (from its own price table). Hermes
 * normalises each vendor's usage to these buckets (`agent/usage_pricing.py`): output is the whole
 * completion, so its reasoning is inside it, and its own totals and prices count it once.
 *
 * A message row has a `role` (`user`, `assistant`, `tool`, `system`), `content`, an assistant's
 * `tool_calls` (OpenAI's shape: `[{id, function: {name, arguments}}]`, as JSON text), a tool
 * result's `tool_call_id` and `tool_name`, and a `timestamp`. Hermes records no outcome of a call.
 */
import { arr, count, type JsonObject, num, obj, parseJson, str, text } from '../../model/json.js';
import { epochMs } from './place.js';

export interface HermesSession {
  id: string;
  model: string | null;
  startedMs: number | null;
  endedMs: number | null;
  title: string | null;
  cwd: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  /** What Hermes priced the session at (the provider's figure first); null when it did not. */
  costUsd: number | null;
}

export interface HermesMessage {
  role: string | null;
  content: string;
  ms: number | null;
  /** The tools an assistant message called: `[call id, name, arguments]`. */
  calls: [string | null, string, unknown][];
  /** The call a tool message answers. */
  answers: string | null;
}

const tokens = (v: unknown): number => Math.floor(count(v) ?? 0);

export function sessionFrom(row: JsonObject): HermesSession | null {
  const id = text(row.id);
  if (id === null) return null;
  const actual = num(row.actual_cost_usd);
  const estimated = num(row.estimated_cost_usd);
  return {
    id,
    model: text(str(row.model)?.trim()),
    startedMs: epochMs(row.started_at),
    endedMs: epochMs(row.ended_at),
    title: text(row.title),
    cwd: text(row.cwd),
    input: tokens(row.input_tokens),
    output: tokens(row.output_tokens),
    cacheRead: tokens(row.cache_read_tokens),
    cacheWrite: tokens(row.cache_write_tokens),
    reasoning: tokens(row.reasoning_tokens),
    costUsd: actual !== null && actual > 0 ? actual : estimated !== null && estimated > 0 ? estimated : null,
  };
}

/** Tool calls from their JSON text; what is not that shape names no call. */
function callsOf(v: unknown): [string | null, string, unknown][] {
  if (typeof v !== 'string' || v.length === 0) return [];
  // Not JSON (undefined): the message called nothing cctop can name.
  const parsed = parseJson(v);
  const out: [string | null, string, unknown][] = [];
  for (const c of arr(parsed) ?? []) {
    const call = obj(c);
    const fn = obj(call?.function);
    const name = text(fn?.name) ?? text(call?.name);
    if (name !== null) out.push([text(call?.id), name, fn?.arguments ?? null]);
  }
  return out;
}

export function messageFrom(row: JsonObject): HermesMessage {
  return {
    role: str(row.role),
    content: str(row.content) ?? '',
    ms: epochMs(row.timestamp),
    calls: callsOf(row.tool_calls),
    answers: text(row.tool_call_id),
  };
}
