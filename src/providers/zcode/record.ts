/**
 * What one row of ZCode's `model_usage` table says: a request that completed with its tokens, or an
 * attempt that did not (an `error` or `cancelled` row records no tokens).
 *
 * ZCode's `input_tokens` holds the cached parts (`computed_total_tokens` is input + output): they are
 * taken out of it, each held to what is left, so the parts add up. `reasoning_tokens` is there but zero
 * in every row seen; as the GLM API counts it, it would sit inside the output.
 */
import { type JsonObject, str, text } from '../../model/json.js';

export type ZcodeRow =
  | {
      kind: 'request';
      id: string | null;
      ms: number;
      model: string;
      input: number;
      output: number;
      cacheRead: number;
      cacheWrite: number;
      reasoning: number | null;
    }
  | { kind: 'attempt'; ms: number | null; status: string | null }
  | { kind: 'empty'; ms: number | null };

const tokens = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;

export function rowOf(r: JsonObject): ZcodeRow {
  const ms = typeof r.started_at === 'number' && r.started_at > 0 ? r.started_at : null;
  const status = str(r.status);
  if (status !== 'completed') return { kind: 'attempt', ms, status };
  const model = text(r.model_id)?.trim();
  const input = tokens(r.input_tokens);
  const output = tokens(r.output_tokens);
  if (!model || ms === null || input + output === 0) return { kind: 'empty', ms };
  const cacheRead = Math.min(tokens(r.cache_read_input_tokens), input);
  const cacheWrite = Math.min(tokens(r.cache_creation_input_tokens), input - cacheRead);
  return {
    kind: 'request',
    id: text(r.id),
    ms,
    model,
    input: input - cacheRead - cacheWrite,
    output,
    cacheRead,
    cacheWrite,
    reasoning: tokens(r.reasoning_tokens) || null,
  };
}
