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
import { emptyTokens, TOKEN_FIELDS, type TokenCounts } from './usage.js';

export interface SpendTotals {
  sessions: number;
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

/** Add one session into `into`. */
export function addTally(into: SpendTotals, s: Tally): void {
  into.sessions++;
  into.requests += s.requests;
  for (const f of TOKEN_FIELDS) {
    const v = s.tokens[f];
    if (v !== null) into.tokens[f] = (into.tokens[f] ?? 0) + v;
  }
  const c = into.cost;
  if (s.usd !== null) {
    c.usd = money((c.usd ?? 0) + s.usd);
    c.included = money((c.included ?? 0) + (s.included ? s.usd : 0));
  }
  c.unpricedTokens += s.unpricedTokens;
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
  return { all, byProvider };
}

/** Totals of session documents, overall and per harness. */
export function totalsOf(sessions: Iterable<Tallied>): DocumentTotals {
  const tallies: Tally[] = [];
  for (const s of sessions) tallies.push(tallyOf(s));
  return totalsOfTallies(tallies);
}

/** Dollars to the micro-dollar, as the session document writes them. */
const money = (usd: number): number => Math.round(usd * 1e6) / 1e6;
