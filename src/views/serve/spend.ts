/**
 * `GET /api/spend`: the numbers of the page's Spend screen. Cost per day (or week, or month) split by
 * harness, model or project, Claude Code's recent 5-hour blocks, and where each budget stands, each
 * built by the same report and the same JSON builder as the commands (`cctop daily --by … --json`,
 * `cctop blocks --json`, `cctop budget --json`), so the page and the terminal agree to the cent.
 *
 * Read-only, from what the live picture already holds: the usage cells of its last refresh, in its
 * zone. Not here: the token (the app's guard runs before this route), drawing (`web/spend.js`), or
 * computing anything a report in `src/spend/` or `src/config/` computes.
 *
 * known limit: each request walks every session's cells afresh, with no cache (not measured on a large
 * history yet); an open Spend screen asks at most every 10 s.
 */
import type { Hono, Env as HonoEnv } from 'hono';
import { budgetStates, type LoadedConfig, type StartOfWeek } from '../../config/index.js';
import type { LiveSessions } from '../../live/engine.js';
import { type PeriodUnit, periodStart } from '../../model/calendar.js';
import type { Plan } from '../../model/document.js';
import { LocalTime } from '../../model/time.js';
import type { SessionUsage } from '../../model/usage-cells.js';
import { activeBlock, blockReport } from '../../spend/blocks.js';
import {
  type BlockJson,
  type BudgetJson,
  blockJson,
  budgetJson,
  includedBy,
  type PeriodCommand,
  type PeriodsJson,
  periodsJson,
} from '../../spend/json.js';
import { periodReport, type SplitBy } from '../../spend/periods.js';
import { spentOver } from '../../spend/spent.js';
import type { ErrorAnswer } from './api.js';
import type { Checked } from './ids.js';

/** What the screen asks for when the address says nothing: the last month, day by day. */
export const DEFAULT_SPEND_DAYS = 31;

/**
 * The longest range one request may ask for. The answer is a row per period, each with its groups:
 * a year of days split by a few dozen projects is about 2 MB of JSON, and a longer range is what
 * `cctop monthly` is for. A year and a day, so a leap year's 366 fit.
 */
export const MAX_SPEND_DAYS = 366;

/** Finished blocks sent beside the running one: the last day or so of work, one line each on the page. */
export const RECENT_BLOCKS = 5;

const UNITS: readonly PeriodUnit[] = ['day', 'week', 'month'];
const SPLITS: readonly SplitBy[] = ['harness', 'model', 'project', 'tool'];
const REPORT_OF: Record<PeriodUnit, PeriodCommand> = { day: 'daily', week: 'weekly', month: 'monthly' };
const DAYS = /^\d{1,4}$/;

export interface SpendQuery {
  unit: PeriodUnit;
  by: SplitBy;
  /** Today and the days before it; the first period is widened to start where its week or month does. */
  days: number;
}

/** `/api/spend`: `cctop daily|weekly|monthly --by … --json` over the range, with the blocks and budgets. */
export interface SpendAnswer extends PeriodsJson {
  days: number;
  /** The range's first and last local day, `YYYY-MM-DD`: `periods` holds only those with requests. */
  from: string;
  to: string;
  /** Claude Code's last finished blocks, then the running one if any; oldest first, no gaps. */
  blocks: BlockJson[];
  /** The running block (also last in `blocks`), or null. */
  active: BlockJson | null;
  budgets: BudgetJson[];
  /** The config file the budgets come from; null when this server reads none (no budgets then). */
  configPath: string | null;
  /** Why the config file, or some of its settings, were not used; each names the file and line. */
  configProblems: string[];
}

export interface SpendDeps {
  live: LiveSessions;
  /** Waits for the first picture (the app's `current`). */
  ready: () => Promise<unknown>;
  /** The config, read when asked (so an edited budget shows on the next update); null: none is read. */
  config: (() => LoadedConfig) | null;
}

/** One of `allowed`, `fallback` when absent, else an error naming the parameter and the choices. */
function oneOf<T extends string>(
  name: string,
  v: string | undefined,
  allowed: readonly T[],
  fallback: T,
): Checked<T> {
  if (v === undefined || v === '') return { ok: true, value: fallback };
  const found = allowed.find((a) => a === v);
  return found === undefined
    ? { ok: false, error: `${name}: expected ${allowed.join(', ')}` }
    : { ok: true, value: found };
}

/** The request's parameters, checked; a wrong one is refused, never bent to fit. */
export function spendQuery(param: (name: string) => string | undefined): Checked<SpendQuery> {
  const unit = oneOf('unit', param('unit'), UNITS, 'day');
  if (!unit.ok) return unit;
  const by = oneOf('by', param('by'), SPLITS, 'harness');
  if (!by.ok) return by;
  const raw = param('days');
  const days = raw === undefined || raw === '' ? DEFAULT_SPEND_DAYS : DAYS.test(raw) ? Number(raw) : 0;
  if (days < 1 || days > MAX_SPEND_DAYS)
    return { ok: false, error: `days: expected a whole number from 1 to ${MAX_SPEND_DAYS}` };
  return { ok: true, value: { unit: unit.value, by: by.value, days } };
}

export interface SpendInputs {
  nowMs: number;
  /** The zone the cells' days were cut in (the live picture's). */
  time: LocalTime;
  plan: Plan;
  query: SpendQuery;
  config: LoadedConfig | null;
}

/** Claude Code's recent blocks and the running one (billing blocks are Claude's alone). */
function blocksOf(
  sessions: readonly SessionUsage[],
  i: SpendInputs,
): { blocks: BlockJson[]; active: BlockJson | null } {
  const claude = sessions.filter((s) => s.provider === 'claude');
  const r = blockReport(claude, { nowMs: i.nowMs, included: includedBy(i.plan), tokenLimit: null });
  const running = activeBlock(r);
  const finished = r.blocks.filter((b) => b.kind === 'block' && !b.active).slice(-RECENT_BLOCKS);
  const shown = running === null ? finished : [...finished, running];
  return { blocks: shown.map(blockJson), active: running === null ? null : blockJson(running) };
}

/** Every budget of the config, where it stands now. */
function budgetsOf(
  sessions: readonly SessionUsage[],
  i: SpendInputs,
  startOfWeek: StartOfWeek,
): BudgetJson[] {
  if (i.config === null || i.config.error !== null) return [];
  return budgetStates(i.config.config.budgets, spentOver(sessions), i.nowMs, i.time, startOfWeek).map(
    budgetJson,
  );
}

/** The answer over `sessions`' cells. Pure: the clock, zone, plan and config come in `i`. */
export function spendAnswer(sessions: readonly SessionUsage[], i: SpendInputs): SpendAnswer {
  const { unit, by, days } = i.query;
  const startOfWeek = i.config?.config.reports.startOfWeek ?? 'monday';
  const toDay = i.time.dayNumber(i.nowMs);
  const fromDay = periodStart(toDay - (days - 1), unit, startOfWeek);
  const included = includedBy(i.plan);
  const r = periodReport(sessions, { unit, startOfWeek, by, breakdown: false, fromDay, toDay, included });
  const doc = periodsJson(r, {
    report: REPORT_OF[unit],
    nowMs: i.nowMs,
    timeZone: i.time.timeZone,
    startOfWeek,
    plan: i.plan,
  });
  return {
    ...doc,
    days,
    from: LocalTime.dayKey(fromDay),
    to: LocalTime.dayKey(toDay),
    ...blocksOf(sessions, i),
    budgets: budgetsOf(sessions, i, startOfWeek),
    configPath: i.config?.path ?? null,
    configProblems:
      i.config === null ? [] : [...(i.config.error === null ? [] : [i.config.error]), ...i.config.warnings],
  };
}

/** `GET /api/spend`, on an app whose guards (token, shape) are already in place. */
export function spendRoutes<E extends HonoEnv>(app: Hono<E>, d: SpendDeps): void {
  app.get('/api/spend', async (c) => {
    c.header('Cache-Control', 'no-store');
    const q = spendQuery((name) => c.req.query(name));
    if (!q.ok) return c.json({ error: q.error } satisfies ErrorAnswer, 400);
    await d.ready();
    const answer = spendAnswer(d.live.usage(), {
      nowMs: Date.now(),
      time: d.live.localTime,
      plan: d.live.document?.plan ?? 'retail',
      query: q.value,
      config: d.config?.() ?? null,
    });
    return c.json(answer);
  });
}
