/**
 * What Antigravity's conversation database says about its model calls.
 *
 * Antigravity (Google's agent CLI, `agy`) keeps one SQLite database per conversation under
 * `conversations/`, a sub-conversation (a subagent, an arm of a model comparison) in a database of
 * its own. Its blobs are protobuf messages without a published schema; the field numbers read here
 * are the ones ccusage 20 reads (recovered from the descriptors in the `agy` binary):
 *
 * - `gen_metadata(idx, data)`: one row per generation; `data` field 1 is the chat model's metadata:
 *   3 the model's numeric id, 4 its usage, 9 generation info (4: when), 17 retries (each: 2 usage),
 *   19 or 21 the model's display name ("Gemini 2.5 Pro").
 * - `steps(idx, metadata)`: one row per step, background calls included; `metadata` 8 (else 1) when,
 *   9 usage, 24 model info (1 numeric id, 12 or 8 name), 28 retries.
 * - `trajectory_metadata_blob(data)`: 2 when the conversation began (a time for rows without one).
 * - usage (`ModelUsageStats`): 1 model id, 2 input (uncached), 3 output (thinking included),
 *   4 cache writes, 5 cache reads, 9 thinking, 10 visible output, 7 message id, 11 response id,
 *   12 the provider's message id.
 * - a time (`Timestamp`): 1 seconds, 2 nanoseconds.
 *
 * Antigravity records no cost (its `model_cost` is unset on consumer accounts).
 */
import { allBytes, bytes, fields, type ProtoField, string, varint } from './proto.js';

export interface AgUsage {
  modelId: number | null;
  /** Uncached input. */
  input: number;
  /** Output with thinking, as billed. */
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
  /** The response's identity: its response id, else the provider's message id, else Antigravity's. */
  id: string | null;
}

/** One generation or step: when, which model it names, and the calls it billed (retries included). */
export interface AgCall {
  ms: number | null;
  model: string | null;
  modelId: number | null;
  usages: AgUsage[];
}

function timeOf(b: Uint8Array | null): number | null {
  if (b === null) return null;
  const f = fields(b);
  const seconds = varint(f, 1);
  if (seconds === null || seconds <= 0) return null;
  return seconds * 1000 + Math.floor(Math.min(varint(f, 2) ?? 0, 999_999_999) / 1e6);
}

function usageOf(b: Uint8Array): AgUsage | null {
  const f = fields(b);
  const reasoning = varint(f, 9) ?? 0;
  const visible = varint(f, 10) ?? 0;
  // Output already holds the thinking; a record that left it out is rebuilt from its parts.
  const output = Math.max(varint(f, 3) ?? 0, visible + reasoning);
  const u: AgUsage = {
    modelId: nonZero(varint(f, 1)),
    input: varint(f, 2) ?? 0,
    output,
    reasoning: Math.max(reasoning, output - Math.max(visible, output - reasoning)),
    cacheRead: varint(f, 5) ?? 0,
    cacheWrite: varint(f, 4) ?? 0,
    id: string(f, 11) ?? string(f, 12) ?? string(f, 7),
  };
  return u.input + u.output + u.cacheRead + u.cacheWrite === 0 ? null : u;
}

const nonZero = (n: number | null): number | null => (n === null || n === 0 ? null : n);

function usagesOf(f: readonly ProtoField[], usageNo: number, retryNo: number): AgUsage[] {
  const out: AgUsage[] = [];
  const main = bytes(f, usageNo);
  const u = main === null ? null : usageOf(main);
  if (u !== null) out.push(u);
  // A failed attempt consumed tokens of its own; the attempt that succeeded is repeated here with
  // the same identity, and counts once.
  for (const retry of allBytes(f, retryNo)) {
    const r = bytes(fields(retry), 2);
    const ru = r === null ? null : usageOf(r);
    if (ru !== null) out.push(ru);
  }
  return out;
}

/** A `gen_metadata` row's blob. Throws `ProtoError` for a blob that is not a protobuf message. */
export function generationOf(blob: Uint8Array): AgCall {
  const chat = bytes(fields(blob), 1);
  if (chat === null) return { ms: null, model: null, modelId: null, usages: [] };
  const f = fields(chat);
  const info = bytes(f, 9);
  return {
    ms: info === null ? null : timeOf(bytes(fields(info), 4)),
    model: string(f, 19) ?? string(f, 21),
    modelId: nonZero(varint(f, 3)),
    usages: usagesOf(f, 4, 17),
  };
}

/** A `steps` row's metadata blob. */
export function stepOf(blob: Uint8Array): AgCall {
  const f = fields(blob);
  const info = bytes(f, 24);
  const mf = info === null ? null : fields(info);
  return {
    ms: timeOf(bytes(f, 8) ?? bytes(f, 1)),
    model: mf === null ? null : (string(mf, 12) ?? string(mf, 8)),
    modelId: mf === null ? null : nonZero(varint(mf, 1)),
    usages: usagesOf(f, 9, 28),
  };
}

/** When the conversation began, from a `trajectory_metadata_blob` row. */
export function trajectoryStart(blob: Uint8Array): number | null {
  return timeOf(bytes(fields(blob), 2));
}

/**
 * A model's name as the catalogue knows it: Antigravity shows "Gemini 2.5 Pro (High)"; the price is
 * the model's, so the effort in brackets goes and the words are joined with hyphens. Numeric ids
 * Antigravity never named are kept as `antigravity-model-<id>`: counted, never priced.
 */
export function modelName(name: string | null, id: number | null): string | null {
  if (name !== null) {
    const base = name.toLowerCase().replace(/\(.*$/, '').trim();
    if (base.length > 0) return base.replace(/\s+/g, '-');
  }
  if (id === null) return null;
  return KNOWN_IDS.get(id) ?? `antigravity-model-${id}`;
}

/** The numeric model ids whose names Antigravity's own descriptors give. */
const KNOWN_IDS = new Map<number, string>([
  [246, 'gemini-2.5-pro'],
  [312, 'gemini-2.5-flash'],
  [313, 'gemini-2.5-flash'],
  [329, 'gemini-2.5-flash'],
  [330, 'gemini-2.5-flash-lite'],
]);
