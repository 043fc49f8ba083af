/**
 * Claude Code's figures, from its stream-json records: the usage of each API call as it happens, and
 * the usage, cost and running totals a `result` states when a turn settles.
 *
 * A `result` mixes two scopes, kept apart here. `usage` is this turn's (main loop only).
 * `total_cost_usd` and `modelUsage` are the session's running totals: a resumed or forked session
 * continues from what its transcript saved (2.1.328, resumed: `total_cost_usd` 0.108 beside a run
 * that cost 0.036), so they are the thread's, never this run's. This run's cost is what each result
 * states for the calls since the one before (`model_usage_since_last_result`, summed); a CLI that
 * does not state it leaves the cost of a resumed run unknown, while a new session's running total is
 * its own cost.
 *
 * It reads numbers only; the records' text, tools and control requests are `claude.ts`'s.
 */
import { count, type JsonObject, obj, str } from '../../model/json.js';
import { emptyUsage, type TokenCounts, type Usage } from '../../model/usage.js';
import type { Event } from '../events.js';
import type { ParseState } from '../parser.js';

/**
 * The cost of the calls a result is the first to state, over every model: 2.1.328 sums it for us per
 * model in `model_usage_since_last_result` ("sum it over a conversation's results instead of
 * subtracting modelUsage totals", its schema says). Null when absent (older CLIs, `--output-format
 * json`); `{}` states that nothing was counted, so 0.
 */
function costSinceLastResult(r: JsonObject): number | null {
  const models = obj(r.model_usage_since_last_result);
  if (models === null) return null;
  let sum = 0;
  for (const entry of Object.values(models)) {
    const cost = count(obj(entry)?.costUSD);
    if (cost === null) return null;
    sum += cost;
  }
  return sum;
}

/**
 * The session's running token total from `modelUsage`, summed over its models (the Haiku helper and
 * subagents included, which the turn's `usage` leaves out). A field some model lacks is unknown.
 */
export function sessionTokens(v: unknown): TokenCounts | null {
  const models = obj(v);
  const entries = models === null ? [] : Object.values(models).map(obj);
  if (entries.length === 0) return null;
  const sum = (key: string): number | null => {
    let total = 0;
    for (const e of entries) {
      const n = count(e?.[key]);
      if (n === null) return null;
      total += n;
    }
    return total;
  };
  return {
    input: sum('inputTokens'),
    output: sum('outputTokens'),
    cacheRead: sum('cacheReadInputTokens'),
    cacheWrite: sum('cacheCreationInputTokens'),
    reasoning: sum('thinkingTokens'),
  };
}

/** The terminal record's usage: the turn's sums, plus the window of the run's own model. */
export function resultUsage(r: JsonObject, model: string | null): Usage {
  const u = obj(r.usage);
  const input = count(u?.input_tokens);
  const cacheRead = count(u?.cache_read_input_tokens);
  const cacheWrite = count(u?.cache_creation_input_tokens);
  // `modelUsage` lists a Haiku helper beside the run's model, and lists it first: taking the first
  // entry once bound 1M-window sessions to the helper's 200k. The key is the resolved name `init`
  // announced (`sonnet[1m]` is announced and keyed as `claude-sonnet-5[1m]`). With several entries
  // and no name to match, the window is unknown rather than guessed.
  const models = obj(r.modelUsage);
  let perModel: JsonObject | null = null;
  if (models !== null) {
    const entries = Object.values(models);
    if (model !== null && model in models) perModel = obj(models[model]);
    else if (entries.length === 1) perModel = obj(entries[0]);
  }
  const known = input !== null || cacheRead !== null || cacheWrite !== null;
  return {
    ...emptyUsage(),
    input,
    output: count(u?.output_tokens),
    cacheRead,
    cacheWrite,
    // Part of `output`. Absent on older CLIs, and then unknown rather than 0.
    reasoning: count(obj(u?.output_tokens_details)?.thinking_tokens),
    // Claude's `input_tokens` excludes the cache, so the whole prompt is the sum of the three; absent
    // unless one was reported, so "did not say" never becomes 0.
    contextTokens: known ? (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) : null,
    contextWindow: count(perModel?.contextWindow),
    maxOutput: count(perModel?.maxOutputTokens),
    // Not `total_cost_usd`: that is the session's running total (see the module comment).
    costUsd: costSinceLastResult(r),
    durationMs: count(r.duration_ms),
    apiDurationMs: count(r.duration_api_ms),
  };
}

/**
 * The usage of one API call, from an `assistant` record, reported once per call. One call arrives
 * as one record per content block, each repeating the same usage; reporting all of them would count
 * a four-call turn as eight in a host's running total. Per-call inputs were verified to sum exactly
 * to the terminal record's totals (claude 2.1.212).
 */
export function liveUsage(r: JsonObject, s: ParseState): Event[] {
  const message = obj(r.message);
  const u = obj(message?.usage);
  if (message === null || u === null) return [];
  const input = count(u.input_tokens);
  const cacheRead = count(u.cache_read_input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  if (input === null && cacheRead === null && cacheWrite === null) return [];
  const prompt = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  // Latest wins, and it is set before the duplicate check on purpose: it is harmless to set twice and
  // must stay right on older CLIs whose records carry no message id. A subagent's call is left out:
  // its prompt is the subagent's conversation, not the one whose window the caller watches.
  if (str(r.parent_tool_use_id) === null) s.latestContext = prompt;
  const id = str(message.id);
  // Without an id a repeat cannot be told from a new call, and over-reporting corrupts a total.
  if (id === null || s.seen.usageOf === id) return [];
  s.seen.usageOf = id;
  // `output` stays null: mid-turn it is the count as the message began, far below the final one.
  return [{ kind: 'usage', usage: { ...emptyUsage(), input, cacheRead, cacheWrite, contextTokens: prompt } }];
}
