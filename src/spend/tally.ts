/**
 * The sum every spend report is made of: requests, the five token fields, retail cost, the part a
 * plan bundles, and tokens on models without a price. Summed by the same function as the session
 * totals of `cctop --json` (`addSpend`), so a period, a block, a group and a budget add up the way
 * the document's totals do, and the rows of a split sum to their period.
 *
 * Absent is not zero: a token field nothing recorded stays null, and `usd` is null while nothing
 * counted has a price; tokens on unpriced models are counted apart, never priced at $0.
 */

import { addSpend, type SpendSum, settleSpend } from '../model/totals.js';
import { emptyTokens, totalTokens } from '../model/usage.js';
import type { UsageCell } from '../model/usage-cells.js';

/** A sum of spend (`model/totals.ts`, as the session totals are) with its total tokens. */
export interface SpendTally extends SpendSum {
  /** input + output + cache read + cache write (reasoning is inside output); null when none is known. */
  totalTokens: number | null;
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
  addSpend(t, {
    requests: c.requests,
    tokens: c.tokens,
    usd: c.usd,
    included: c.usd === null ? null : included ? c.usd : 0,
    unpricedTokens: c.usd === null ? (totalTokens(c.tokens) ?? 0) : 0,
  });
  t.totalTokens = totalTokens(t.tokens);
}

/** Add a whole tally into `t`. */
export function addTally(t: SpendTally, o: SpendTally): void {
  addSpend(t, { ...o, usd: o.cost.usd, included: o.cost.included, unpricedTokens: o.cost.unpricedTokens });
  t.totalTokens = totalTokens(t.tokens);
}

/** The tally as printed: money to the micro-dollar. */
export const settled = (t: SpendTally): SpendTally => settleSpend(t);
