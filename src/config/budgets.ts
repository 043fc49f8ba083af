/**
 * Where each budget stands now: the days its period covers, what the sessions it selects have spent
 * in them, and whether that is under, near or over its limit. Pure: the spend comes from the caller
 * (`SpentOf`, which the index answers), the clock and zone from `LocalTime`.
 *
 * Not here: remembering which levels were already notified (`crossings.ts`), or printing (`views/`).
 */
import { periodEnd, periodStart } from '../model/calendar.js';
import type { ProviderId } from '../model/facts.js';
import type { LocalTime } from '../model/time.js';
import type { Budget, Period, StartOfWeek } from './types.js';

/** The share of a limit at which a budget reads as near it: a warning while there is room left. */
export const NEAR_SHARE = 0.8;
/** The share at which it is over. */
export const OVER_SHARE = 1;

export type Level = 'ok' | 'near' | 'over';

/** Local day numbers (`LocalTime.dayNumber`), both ends included. */
export interface DayRange {
  fromDay: number;
  toDay: number;
}

/**
 * Retail dollars spent over the days `fromDay`..`toDay` (inclusive) by the sessions of `harness`
 * whose project is `project` or under it (see `inProject`), a null filter selecting all; null when
 * none of that spend could be priced.
 */
export type SpentOf = (q: DayRange & { harness: ProviderId | null; project: string | null }) => number | null;

export interface BudgetState extends DayRange {
  budget: Budget;
  /** Null when nothing it selects could be priced: unknown, which is not $0. */
  spentUsd: number | null;
  /** `spentUsd / budget.usd`; null with it. */
  share: number | null;
  level: Level;
}

/** The days of the period containing `nowMs`: today, this week from `startOfWeek`, or this calendar month. */
export function periodDays(
  period: Period,
  nowMs: number,
  time: LocalTime,
  startOfWeek: StartOfWeek,
): DayRange {
  const fromDay = periodStart(time.dayNumber(nowMs), period, startOfWeek);
  return { fromDay, toDay: periodEnd(fromDay, period) };
}

export function levelOf(share: number | null): Level {
  if (share === null || share < NEAR_SHARE) return 'ok';
  return share < OVER_SHARE ? 'near' : 'over';
}

/** Each budget's state at `nowMs`, in the order given. */
export function budgetStates(
  budgets: readonly Budget[],
  spentOf: SpentOf,
  nowMs: number,
  time: LocalTime,
  startOfWeek: StartOfWeek,
): BudgetState[] {
  return budgets.map((budget) => {
    const days = periodDays(budget.period, nowMs, time, startOfWeek);
    const spentUsd = spentOf({ ...days, harness: budget.harness, project: budget.project });
    const share = spentUsd === null ? null : spentUsd / budget.usd;
    return { budget, ...days, spentUsd, share, level: levelOf(share) };
  });
}

/**
 * Whether a session whose project (cwd) is `sessionProject` counts toward a budget on `budgetProject`:
 * the same directory or one under it, by whole path segments (`/a/b` holds `/a/b/c`, not `/a/bc`). A
 * session with no known project counts toward no project's budget.
 */
export function inProject(sessionProject: string | null, budgetProject: string): boolean {
  if (sessionProject === null) return false;
  const dir = trimSlashes(budgetProject);
  const p = trimSlashes(sessionProject);
  return p === dir || p.startsWith(`${dir}/`) || (dir === '' && p.startsWith('/'));
}

/** `/a/b/` → `/a/b`; the root becomes `` (every absolute path is under it). */
const trimSlashes = (p: string): string => p.replace(/\/+$/, '');
