/**
 * What a budget has spent: the retail cost of the usage cells in its days, of the sessions it
 * selects (a harness, a project and everything under it, or all). One function for every view that
 * shows budgets (`cctop budget`, `--list`, the live table, the dashboard, the statusline), so they
 * agree to the cent. With other machines (`cctop budget --host`), their daily reports split by
 * project are added in, by the same rule.
 *
 * Nothing spent is $0; spend on models without a price is unknown (null), never $0.
 * Retail whatever `--plan` shows: a plan changes what is paid, not what the agents burn.
 */
import { inProject, type SpentOf } from '../config/index.js';
import type { ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { NO_PROJECT, type PeriodRow } from './periods.js';

/** What a budget's question finds before it is told: the priced cost and the requests counted. */
export interface Spent {
  /** Null: nothing counted had a price. */
  usd: number | null;
  requests: number;
}

type Question = Parameters<SpentOf>[0];

function add(into: Spent, requests: number, usd: number | null): void {
  into.requests += requests;
  if (usd !== null) into.usd = (into.usd ?? 0) + usd;
}

/** This machine's spend for a budget's question. */
export function spentIn(sessions: readonly SessionUsage[], q: Question): Spent {
  const out: Spent = { usd: null, requests: 0 };
  for (const s of sessions) {
    if (q.harness !== null && s.provider !== q.harness) continue;
    if (q.project !== null && !inProject(s.project, q.project)) continue;
    for (const c of s.cells) if (c.day >= q.fromDay && c.day <= q.toDay) add(out, c.requests, c.usd);
  }
  return out;
}

/**
 * Another machine's spend for a question, from its `cctop daily --json --by project` (of the
 * question's harness, asked with `--provider`): its days in the question's range, whole or, for a
 * project budget, the projects under it.
 */
export function spentInRows(rows: readonly PeriodRow[], q: Omit<Question, 'harness'>): Spent {
  const out: Spent = { usd: null, requests: 0 };
  for (const r of rows) {
    const day = LocalTime.dayOf(r.period);
    if (day === null || day < q.fromDay || day > q.toDay) continue;
    if (q.project === null) add(out, r.requests, r.cost.usd);
    else
      for (const g of r.groups ?? [])
        if (g.key !== NO_PROJECT && inProject(g.key, q.project)) add(out, g.requests, g.cost.usd);
  }
  return out;
}

/** The figure a budget shows: requests none of which has a price are unknown; none at all is $0. */
function told(s: Spent): number | null {
  if (s.usd === null) return s.requests === 0 ? 0 : null;
  return Math.round(s.usd * 1e6) / 1e6;
}

export function spentOver(sessions: readonly SessionUsage[]): SpentOf {
  return (q) => told(spentIn(sessions, q));
}

/**
 * Spend on this machine and others: `remote` holds, per host, its daily rows by harness asked (`null`
 * for all harnesses). A host without rows for a question's harness adds nothing.
 */
export function spentAcross(
  sessions: readonly SessionUsage[],
  remote: readonly ReadonlyMap<ProviderId | null, readonly PeriodRow[]>[],
): SpentOf {
  return (q) => {
    const sum = spentIn(sessions, q);
    for (const host of remote) {
      const part = spentInRows(host.get(q.harness) ?? [], q);
      add(sum, part.requests, part.usd);
    }
    return told(sum);
  };
}
