/**
 * Each team budget with the spend against it: the spend its selection (developer, project and what
 * is under it, harness) made in the current day, week or month, added up by the database in one query
 * (a lateral sum per budget), so no poll ever fetches the rows behind a budget.
 *
 * The periods' days are the caller's (the dashboard's zone and week start, `PeriodDays`); each
 * pusher's spend rows are its own local days (`team-spend.ts` says why that is the honest sum).
 *
 * Not here: editing budgets (`budgets.ts`), the share at which one reads as near or over (the page
 * uses the config budgets' `NEAR_SHARE` and `OVER_SHARE`).
 */
import type pg from 'pg';
import {
  BUDGET_COLUMNS,
  type BudgetDbRow,
  budgetOf,
  MAX_TEAM_BUDGETS,
  type TeamBudget,
  type TeamPeriod,
} from './budgets.js';
import { numberOf } from './team-sessions.js';

/** The first and last day (`YYYY-MM-DD`, both included) of the current day, week and month. */
export type PeriodDays = Record<TeamPeriod, { from: string; to: string }>;

export interface BudgetSpend {
  budget: TeamBudget;
  from: string;
  to: string;
  /** Null: nothing it selects had a price in the period (unknown, not $0). */
  spentUsd: number | null;
  /** Tokens it selects on models with no known price: spend the figure leaves out. */
  unpricedTokens: number;
  requests: number;
}

const SQL = `
SELECT ${BUDGET_COLUMNS('b')},
  p.d0::text AS from_day, p.d1::text AS to_day,
  s.cost::text AS spent, s.unpriced::text AS unpriced, s.requests::text AS requests
FROM budgets b
CROSS JOIN LATERAL (
  SELECT CASE b.period WHEN 'day' THEN $1::date WHEN 'week' THEN $3::date ELSE $5::date END AS d0,
         CASE b.period WHEN 'day' THEN $2::date WHEN 'week' THEN $4::date ELSE $6::date END AS d1
) p
CROSS JOIN LATERAL (
  SELECT sum(d.cost_usd) AS cost, sum(d.unpriced_tokens) AS unpriced, sum(d.requests) AS requests
  FROM spend_daily d
  WHERE d.day BETWEEN p.d0 AND p.d1
    AND (b.developer IS NULL OR d.developer = b.developer)
    AND (b.harness IS NULL OR d.harness = b.harness)
    AND (b.project IS NULL OR d.project = b.project OR starts_with(d.project, rtrim(b.project, '/') || '/'))
) s
ORDER BY b.name
LIMIT $7`;

interface Row extends BudgetDbRow {
  from_day: string;
  to_day: string;
  spent: string | null;
  unpriced: string | null;
  requests: string | null;
}

/** Every budget (at most `MAX_TEAM_BUDGETS`, by name) with what its selection spent in its period. */
export async function readBudgetSpend(
  client: pg.Client,
  days: PeriodDays,
): Promise<{ budgets: BudgetSpend[]; more: boolean }> {
  const r = await client.query<Row>(SQL, [
    days.day.from,
    days.day.to,
    days.week.from,
    days.week.to,
    days.month.from,
    days.month.to,
    MAX_TEAM_BUDGETS + 1,
  ]);
  const budgets: BudgetSpend[] = [];
  for (const row of r.rows.slice(0, MAX_TEAM_BUDGETS)) {
    const budget = budgetOf(row);
    if (budget === null) continue;
    budgets.push({
      budget,
      from: row.from_day,
      to: row.to_day,
      spentUsd: numberOf(row.spent),
      unpricedTokens: numberOf(row.unpriced) ?? 0,
      requests: numberOf(row.requests) ?? 0,
    });
  }
  return { budgets, more: r.rows.length > MAX_TEAM_BUDGETS };
}
