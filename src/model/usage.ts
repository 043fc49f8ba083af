/**
 * Token and cost accounting, one shape for both halves of cctop.
 *
 * The session document's `tokens` and drive's `usage` events carry the same camelCase fields with
 * the same meaning on every harness: `input` is uncached input, `cacheRead`/`cacheWrite` the cached
 * parts, `output` everything billed as output (reasoning included) and `reasoning` the part of
 * `output` that was reasoning, reported and never added again.
 *
 * `null` means the harness did not say. It is never a stand-in for zero: a harness that records no
 * cache writes shows `─`, not `0`.
 */

export interface TokenCounts {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  reasoning: number | null;
}

export interface Usage extends TokenCounts {
  /** The whole prompt of the newest request: what the context window holds now. */
  contextTokens: number | null;
  contextWindow: number | null;
  maxOutput: number | null;
  /** Only when the agent itself priced the run; never derived from a local price table. */
  costUsd: number | null;
  premiumRequests: number | null;
  aiCreditsNano: number | null;
  durationMs: number | null;
  apiDurationMs: number | null;
}

export const TOKEN_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

export function emptyTokens(): TokenCounts {
  return { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null };
}

// V8 stores a field that has only ever held null as a pointer field; the first number stored in it
// changes the field for every object of that shape and throws away the code compiled against it. A
// cold build met its first reasoning tokens (Codex's) late, and compiled `addLedger` again for it.
// Giving one object a number in every field at load makes the fields hold either from the start.
{
  const t = emptyTokens();
  t.input = t.output = t.cacheRead = t.cacheWrite = t.reasoning = 0;
}

export function emptyUsage(): Usage {
  return {
    ...emptyTokens(),
    contextTokens: null,
    contextWindow: null,
    maxOutput: null,
    costUsd: null,
    premiumRequests: null,
    aiCreditsNano: null,
    durationMs: null,
    apiDurationMs: null,
  };
}

/** Fields that add up across turns or model calls. */
const SUMMED = [
  'input',
  'output',
  'cacheRead',
  'cacheWrite',
  'reasoning',
  'premiumRequests',
  'durationMs',
  'apiDurationMs',
  'costUsd',
] as const satisfies readonly (keyof Usage)[];

/** Fields that describe the state now: the newest known value wins. */
const LATEST = [
  'contextTokens',
  'contextWindow',
  'maxOutput',
  'aiCreditsNano',
] as const satisfies readonly (keyof Usage)[];

/**
 * Fold one turn's usage into a running total. Counts add up; the context figures are replaced by the
 * newer value. A field the turn does not know (`null`) never erases a value already known.
 */
export function accumulate(total: Usage, turn: Usage): Usage {
  const out: Usage = { ...total };
  for (const key of SUMMED) {
    const add = turn[key];
    if (add === null) continue;
    out[key] = (out[key] ?? 0) + add;
  }
  for (const key of LATEST) {
    const value = turn[key];
    if (value !== null) out[key] = value;
  }
  return out;
}

/** input + cache read + cache write + output: everything that went through the model. */
export function totalTokens(t: TokenCounts): number | null {
  if (t.input === null && t.output === null && t.cacheRead === null && t.cacheWrite === null) return null;
  return (t.input ?? 0) + (t.cacheRead ?? 0) + (t.cacheWrite ?? 0) + (t.output ?? 0);
}
