/**
 * The team's spend per day, cut four ways (developer, project, harness, model) plus the day's total,
 * over a window of days, in ONE query (`GROUPING SETS`): the database adds up the rows, and the
 * dashboard receives a few per day per name, never the table.
 *
 * A day is the pusher's own local day (`spend_daily.day`, cut in the zone its `pushers` row names), so
 * a team across zones adds days that began at different instants; that is the only honest sum of
 * days each machine cut for itself.
 *
 * Absent is not zero: a cost stays null where nothing in the group had a price, and the tokens that
 * had none are counted beside it.
 *
 * Not here: which window (`views/team/`), budgets (`team-budgets.ts`).
 */
import type pg from 'pg';
import { bounded, MAX_TEAM_TEXT_CHARS, numberOf } from './team-sessions.js';

/**
 * Rows of one window (days × (developers + projects + harnesses + models + 1)). A month of a
 * hundred developers on five hundred projects with five harnesses and twenty models is about 19,000;
 * past this the cheapest rows of the window are cut (rows come dearest first) and the page says so.
 */
export const MAX_TEAM_SPEND_ROWS = 20_000;

export const SPEND_DIMENSIONS = ['developer', 'project', 'harness', 'model'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

export interface SpendCell {
  /** `YYYY-MM-DD`, the pusher's local day. */
  day: string;
  /** `total` is the day's sum over everything. */
  by: SpendDimension | 'total';
  /** The developer, project, harness or model; '' for the total, and for a project nobody recorded. */
  key: string;
  requests: number;
  /** Null: nothing in it had a price (not $0). */
  costUsd: number | null;
  unpricedTokens: number;
}

export interface TeamSpend {
  cells: SpendCell[];
  /** Whether rows past `MAX_TEAM_SPEND_ROWS` were left out. */
  cut: boolean;
}

const SQL = `
SELECT day::text AS day,
  CASE WHEN GROUPING(developer) = 0 THEN 'developer' WHEN GROUPING(project) = 0 THEN 'project'
       WHEN GROUPING(harness) = 0 THEN 'harness' WHEN GROUPING(model) = 0 THEN 'model' ELSE 'total' END AS by,
  left(CASE WHEN GROUPING(developer) = 0 THEN developer WHEN GROUPING(project) = 0 THEN project
       WHEN GROUPING(harness) = 0 THEN harness WHEN GROUPING(model) = 0 THEN model ELSE '' END,
       ${MAX_TEAM_TEXT_CHARS + 1}) AS key,
  sum(requests)::text AS requests, sum(cost_usd)::text AS cost_usd, sum(unpriced_tokens)::text AS unpriced
FROM spend_daily
WHERE day BETWEEN $1::date AND $2::date
GROUP BY GROUPING SETS ((day), (day, developer), (day, project), (day, harness), (day, model))
ORDER BY sum(cost_usd) DESC NULLS LAST, day, by, key
LIMIT $3`;

interface Row {
  day: string;
  by: string;
  key: string | null;
  requests: string | null;
  cost_usd: string | null;
  unpriced: string | null;
}

const BYS: readonly SpendCell['by'][] = [...SPEND_DIMENSIONS, 'total'];

/** Spend per day over `fromDay`..`toDay` (`YYYY-MM-DD`, both included), cut per dimension. */
export async function readTeamSpend(client: pg.Client, fromDay: string, toDay: string): Promise<TeamSpend> {
  const r = await client.query<Row>(SQL, [fromDay, toDay, MAX_TEAM_SPEND_ROWS + 1]);
  const cells: SpendCell[] = [];
  for (const row of r.rows.slice(0, MAX_TEAM_SPEND_ROWS)) {
    const by = BYS.find((b) => b === row.by);
    if (by === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(row.day)) continue;
    cells.push({
      day: row.day,
      by,
      key: bounded(row.key ?? ''),
      requests: numberOf(row.requests) ?? 0,
      costUsd: numberOf(row.cost_usd),
      unpricedTokens: numberOf(row.unpriced) ?? 0,
    });
  }
  return { cells, cut: r.rows.length > MAX_TEAM_SPEND_ROWS };
}
