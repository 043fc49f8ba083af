/**
 * The team budgets in the store's `budgets` table: reading them, setting one (insert or replace, by
 * name) and removing one. Every role the schema knows may read them; only members of
 * `cctop_budgets` may change them, and that is the database's rule (its grants), not cctop's: a
 * refused change comes back as PostgreSQL's 42501, which `budgetError` turns into the fix.
 *
 * A team budget selects spend by developer (a database role), project (a directory and everything
 * under it) and harness, each null for "all"; it covers the current day, week or month.
 *
 * Not here: what the spend against a budget is (`team-budgets.ts`), the command (`views/cli/store-budget.ts`).
 */
import type pg from 'pg';
import { ROLES } from './schema.js';

export const TEAM_PERIODS = ['day', 'week', 'month'] as const;
export type TeamPeriod = (typeof TEAM_PERIODS)[number];

/** A budget's name is typed on command lines and shown in a column; past this it is refused. */
export const MAX_BUDGET_NAME_CHARS = 64;
/** A budget's selection (a role name, a project path, a harness id); past this it is refused. */
export const MAX_BUDGET_FIELD_CHARS = 1_024;
/**
 * Budgets read at once, by the dashboard and `cctop store budget list`. A team keeps a handful; the
 * bound keeps a table someone filled by script from growing every page and every poll.
 */
export const MAX_TEAM_BUDGETS = 200;
/** The largest limit accepted: the column holds 12 digits before the point. */
export const MAX_BUDGET_USD = 1e11;

export interface TeamBudget {
  name: string;
  period: TeamPeriod;
  usd: number;
  /** Null: every developer. */
  developer: string | null;
  /** Null: every project; else this directory and everything under it. */
  project: string | null;
  /** Null: every harness. */
  harness: string | null;
  /** The role that last set it, and when (ISO). */
  updatedBy: string;
  updatedAt: string;
}

/** What `cctop store budget set` writes. */
export type BudgetInput = Pick<TeamBudget, 'name' | 'period' | 'usd' | 'developer' | 'project' | 'harness'>;

const NAME_SHAPE = /^[\p{L}\p{N}][\p{L}\p{N} ._:/@+-]*$/u;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `b` cannot be stored, or null when it can. */
export function invalidBudget(b: BudgetInput): string | null {
  if (b.name.length > MAX_BUDGET_NAME_CHARS)
    return `a budget's name is at most ${MAX_BUDGET_NAME_CHARS} characters`;
  if (!NAME_SHAPE.test(b.name))
    return `budget name "${b.name}": letters, digits, spaces and . _ : / @ + - only, starting with a letter or digit`;
  if (!Number.isFinite(b.usd) || b.usd <= 0 || b.usd > MAX_BUDGET_USD)
    return `--usd: expected an amount above 0 and at most ${MAX_BUDGET_USD.toLocaleString('en-US')}`;
  for (const [flag, v] of [
    ['--developer', b.developer],
    ['--project', b.project],
    ['--harness', b.harness],
  ] as const) {
    if (v === null) continue;
    if (v.length === 0 || v.length > MAX_BUDGET_FIELD_CHARS || CONTROL.test(v))
      return `${flag}: expected 1 to ${MAX_BUDGET_FIELD_CHARS} printable characters`;
  }
  return null;
}

export interface BudgetDbRow {
  name: string;
  period: string;
  usd: string;
  developer: string | null;
  project: string | null;
  harness: string | null;
  updated_by: string;
  updated_at: Date;
}

/** Every text cut by the database at its bound: the table may hold what no `cctop store budget set` wrote. */
const F = MAX_BUDGET_FIELD_CHARS;
export const BUDGET_COLUMNS = (t: string) =>
  `left(${t}.name, ${F}) AS name, ${t}.period, ${t}.usd::text AS usd, left(${t}.developer, ${F}) AS developer, ` +
  `left(${t}.project, ${F}) AS project, left(${t}.harness, ${F}) AS harness, left(${t}.updated_by, ${F}) AS updated_by, ${t}.updated_at`;

/** A row as read, or null when it is not one cctop wrote (a period the schema's check would refuse). */
export function budgetOf(r: BudgetDbRow): TeamBudget | null {
  const period = TEAM_PERIODS.find((p) => p === r.period);
  const usd = Number(r.usd);
  if (period === undefined || !Number.isFinite(usd)) return null;
  return {
    name: r.name,
    period,
    usd,
    developer: r.developer,
    project: r.project,
    harness: r.harness,
    updatedBy: r.updated_by,
    updatedAt: r.updated_at.toISOString(),
  };
}

/** The budgets, by name, at most `MAX_TEAM_BUDGETS`; `more` says whether the table holds others. */
export async function listBudgets(client: pg.Client): Promise<{ budgets: TeamBudget[]; more: boolean }> {
  const r = await client.query<BudgetDbRow>(
    `SELECT ${BUDGET_COLUMNS('b')} FROM budgets b ORDER BY b.name LIMIT $1`,
    [MAX_TEAM_BUDGETS + 1],
  );
  const budgets = r.rows
    .slice(0, MAX_TEAM_BUDGETS)
    .map(budgetOf)
    .filter((b) => b !== null);
  return { budgets, more: r.rows.length > MAX_TEAM_BUDGETS };
}

/** Insert the budget, or replace the one of that name; returns whether it replaced one. */
export async function setBudget(client: pg.Client, b: BudgetInput): Promise<{ replaced: boolean }> {
  const r = await client.query<{ inserted: boolean }>(
    `INSERT INTO budgets (name, period, usd, developer, project, harness)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (name) DO UPDATE SET period = EXCLUDED.period, usd = EXCLUDED.usd,
       developer = EXCLUDED.developer, project = EXCLUDED.project, harness = EXCLUDED.harness,
       updated_by = current_user, updated_at = now()
     RETURNING (xmax = 0) AS inserted`,
    [b.name, b.period, b.usd, b.developer, b.project, b.harness],
  );
  return { replaced: r.rows[0]?.inserted === false };
}

/** Remove the budget of that name; returns whether there was one. */
export async function removeBudget(client: pg.Client, name: string): Promise<boolean> {
  const r = await client.query('DELETE FROM budgets WHERE name = $1', [name]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * A refusal told as its fix: a role outside `cctop_budgets` may read budgets but not change them.
 * Null for any other error (the caller tells those as `storeError` does).
 */
export function budgetRefusal(e: unknown, role: string): string | null {
  if ((e as { code?: string }).code !== '42501') return null;
  return `the role ${role} may not change team budgets: an admin runs GRANT ${ROLES.budgets} TO "${role}" (docs/team.md, "Team budgets")`;
}
