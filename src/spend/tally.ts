/**
 * The sum every spend report is made of: requests, the five token fields, retail cost, the part a
 * plan bundles, and tokens on models without a price. One definition, so a period, a block, a group
 * and a budget add up the same way, and the rows of a split sum to their period.
 *
 * Absent is not zero: a token field nothing recorded stays null, and `usd` is null while nothing
 * counted has a price; tokens on unpriced models are counted apart, never priced at $0.
 */

import { emptyTokens, type TokenCounts, totalTokens } from '../model/usage.js';
import { addTokenCounts, type UsageCell } from '../model/usage-cells.js';

export interface SpendTally {
  requests: number;
  tokens: TokenCounts;
  /** input + output + cache read + cache write (reasoning is inside output); null when none is known. */
  totalTokens: number | null;
  cost: {
    /** Retail (estimated or reported), null when nothing counted has a price. */
    usd: number | null;
    /** The part of `usd` the plan bundles (`--plan`); null when `usd` is. */
    included: number | null;
    /** Tokens on models the price catalogue does not know: not in `usd`. */
    unpricedTokens: number;
  };
}

export function emptyTally(): SpendTally {
  return {
    requests: 0,
    tokens: emptyTokens(),
    totalTokens: null,
    cost: { usd: null, included: null, unpricedTokens: 0 },
  };
}

/** Add a cell (whose session the plan bundles, or not) into `t`. */
export function addCell(t: SpendTally, c: UsageCell, included: boolean): void {
  t.requests += c.requests;
  addTokenCounts(t.tokens, c.tokens);
  t.totalTokens = totalTokens(t.tokens);
  if (c.usd === null) {
    t.cost.unpricedTokens += totalTokens(c.tokens) ?? 0;
    return;
  }
  t.cost.usd = (t.cost.usd ?? 0) + c.usd;
  t.cost.included = (t.cost.included ?? 0) + (included ? c.usd : 0);
}

/** Add a whole tally into `t`. */
export function addTally(t: SpendTally, o: SpendTally): void {
  t.requests += o.requests;
  addTokenCounts(t.tokens, o.tokens);
  t.totalTokens = totalTokens(t.tokens);
  t.cost.unpricedTokens += o.cost.unpricedTokens;
  if (o.cost.usd === null) return;
  t.cost.usd = (t.cost.usd ?? 0) + o.cost.usd;
  t.cost.included = (t.cost.included ?? 0) + (o.cost.included ?? 0);
}

/** Dollars to the micro-dollar, as every document writes them: no floating-point noise. */
export const money = (usd: number | null): number | null =>
  usd === null ? null : Math.round(usd * 1e6) / 1e6;

/** The tally as printed: money rounded. */
export function settled(t: SpendTally): SpendTally {
  return {
    ...t,
    tokens: { ...t.tokens },
    cost: { ...t.cost, usd: money(t.cost.usd), included: money(t.cost.included) },
  };
}
