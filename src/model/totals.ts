/**
 * Totals over a set of sessions, defined once: per harness and overall, the five token fields,
 * requests and cost. `cctop --json` carries them as `totals`, serve's updates carry them, and the
 * spend reports build on the same function.
 *
 * Absent is not zero here either: a token field no session recorded stays null, and spend is null
 * when nothing counted has a price. Tokens on models without a price are counted apart
 * (`unpricedTokens`), never priced at $0.
 *
 * Not here: choosing the sessions (the filters and `--plan` are applied when the sessions are
 * built; this sums what it is given).
 */
import type { SessionDoc } from './document.js';
import type { ProviderId } from './facts.js';
import { money } from './money.js';
import { emptyTokens, type TokenCounts } from './usage.js';

/**
 * What every sum of spend holds, whatever it sums (sessions here; periods, blocks, groups and budgets
 * in `spend/`): requests, the five token fields and cost.
 */
export interface SpendSum {
  requests: number;
  tokens: TokenCounts;
  cost: {
    /** Spend at retail prices (estimated or reported); null when nothing counted has a price. */
    usd: number | null;
    /** The part of `usd` the plan bundles (`--plan max|included`); null when `usd` is. */
    included: number | null;
    /** Tokens spent on models the price catalogue does not know: not in `usd`. */
    unpricedTokens: number;
  };
}

export interface SpendTotals extends SpendSum {
  sessions: number;
}

/** One addend of a sum: a session's tally, a usage cell, another sum. */
export interface SpendPart {
  requests: number;
  tokens: TokenCounts;
  /** Null: nothing of it has a price. */
  usd: number | null;
  /** The part of `usd` the plan bundles. */
  included: number | null;
  unpricedTokens: number;
}

/** Add `p` into `into`. Money is summed as it is; `settleSpend` rounds it once, when printed. */
export function addSpend(into: SpendSum, p: SpendPart): void {
  into.requests += p.requests;
  addTokens(into.tokens, p.tokens);
  into.cost.unpricedTokens += p.unpricedTokens;
  if (p.usd === null) return;
  into.cost.usd = (into.cost.usd ?? 0) + p.usd;
  into.cost.included = (into.cost.included ?? 0) + (p.included ?? 0);
}

/**
 * Add each token field of `t` that was counted into `into`. The five fields are named, not looped
 * over (`TOKEN_FIELDS`): a one-shot answer sums 4,000 sessions twice (overall and per harness) in
 * code that runs once, not yet compiled, where a loop over the names cost 10 ms of a `cctop --json`.
 */
export function addTokens(into: TokenCounts, t: TokenCounts): void {
  if (t.input !== null) into.input = (into.input ?? 0) + t.input;
  if (t.output !== null) into.output = (into.output ?? 0) + t.output;
  if (t.cacheRead !== null) into.cacheRead = (into.cacheRead ?? 0) + t.cacheRead;
  if (t.cacheWrite !== null) into.cacheWrite = (into.cacheWrite ?? 0) + t.cacheWrite;
  if (t.reasoning !== null) into.reasoning = (into.reasoning ?? 0) + t.reasoning;
}

/** A copy of `t` with its money to the micro-dollar, as every document writes it. */
export function settleSpend<T extends SpendSum>(t: T): T {
  const usd = t.cost.usd === null ? null : money(t.cost.usd);
  const included = t.cost.included === null ? null : money(t.cost.included);
  return { ...t, tokens: { ...t.tokens }, cost: { ...t.cost, usd, included } };
}

export interface DocumentTotals {
  all: SpendTotals;
  /** Only the harnesses that have sessions, in the order they first appear. */
  byProvider: Partial<Record<ProviderId, SpendTotals>>;
}

export function emptySpendTotals(): SpendTotals {
  return {
    sessions: 0,
    requests: 0,
    tokens: emptyTokens(),
    cost: { usd: null, included: null, unpricedTokens: 0 },
  };
}

/** What totals read of one session. */
export interface Tally {
  provider: ProviderId;
  requests: number;
  tokens: TokenCounts;
  usd: number | null;
  /** Whether the plan bundles this session's usage (its `usd` is then what it would cost at retail). */
  included: boolean;
  /** Tokens on models without a price. */
  unpricedTokens: number;
}

/** What a tally is made from: a session document, or a session's kept facts. */
export type Tallied = Pick<SessionDoc, 'provider' | 'requests' | 'tokens'> & {
  cost: Pick<SessionDoc['cost'], 'usd' | 'included' | 'byModel'>;
};

/** A session's tally. */
export function tallyOf(s: Tallied): Tally {
  let unpricedTokens = 0;
  for (const m of s.cost.byModel) {
    if (m.usd !== null) continue;
    const t = m.tokens;
    unpricedTokens += (t.input ?? 0) + (t.output ?? 0) + (t.cacheRead ?? 0) + (t.cacheWrite ?? 0);
  }
  return {
    provider: s.provider,
    requests: s.requests,
    tokens: s.tokens,
    usd: s.cost.usd,
    included: s.cost.included,
    unpricedTokens,
  };
}

/**
 * Add one session into `into`: `addSpend` of its tally, written out so that summing 4,000 sessions
 * (twice: overall and per harness) makes no object per session in code that runs once.
 */
export function addTally(into: SpendTotals, s: Tally): void {
  into.sessions++;
  into.requests += s.requests;
  addTokens(into.tokens, s.tokens);
  into.cost.unpricedTokens += s.unpricedTokens;
  if (s.usd === null) return;
  into.cost.usd = (into.cost.usd ?? 0) + s.usd;
  into.cost.included = (into.cost.included ?? 0) + (s.included ? s.usd : 0);
}

/** Totals of sessions' tallies, overall and per harness. */
export function totalsOfTallies(tallies: Iterable<Tally>): DocumentTotals {
  const all = emptySpendTotals();
  const byProvider: Partial<Record<ProviderId, SpendTotals>> = {};
  for (const t of tallies) {
    addTally(all, t);
    let p = byProvider[t.provider];
    if (p === undefined) {
      p = emptySpendTotals();
      byProvider[t.provider] = p;
    }
    addTally(p, t);
  }
  const settled: Partial<Record<ProviderId, SpendTotals>> = {};
  for (const [p, t] of Object.entries(byProvider) as [ProviderId, SpendTotals][]) settled[p] = settleSpend(t);
  return { all: settleSpend(all), byProvider: settled };
}

/** Totals of session documents, overall and per harness. */
export function totalsOf(sessions: Iterable<Tallied>): DocumentTotals {
  const tallies: Tally[] = [];
  for (const s of sessions) tallies.push(tallyOf(s));
  return totalsOfTallies(tallies);
}
