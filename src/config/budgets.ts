/**
 * Where each budget stands now: the days its period covers, what the sessions it selects have spent
 * in them, and whether that is under, near or over its limit. Pure: the spend comes from the caller
 * (`SpentOf`, which the index answers), the clock and zone from `LocalTime`.
 *
 * Not here: remembering which levels were already notified (`crossings.ts`), or printing (`views/`).
 */
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

const DAYS_PER_WEEK = 7;
/** 1970-01-01, day 0, was a Thursday: days since the Sunday before it. */
const DAY_ZERO_WEEKDAY = 4;
const WEEKDAY_OF_START: Record<StartOfWeek, number> = { sunday: 0, monday: 1 };
const DAY_MS = 86_400_000;

/** The local day's weekday, 0 for Sunday: day numbers count local days, so UTC weekdays are theirs. */
const weekday = (day: number): number =>
  (((day + DAY_ZERO_WEEKDAY) % DAYS_PER_WEEK) + DAYS_PER_WEEK) % DAYS_PER_WEEK;

/** The days of the period containing `nowMs`: today, this week from `startOfWeek`, or this calendar month. */
export function periodDays(
  period: Period,
  nowMs: number,
  time: LocalTime,
  startOfWeek: StartOfWeek,
): DayRange {
  const today = time.dayNumber(nowMs);
  switch (period) {
    case 'day':
      return { fromDay: today, toDay: today };
    case 'week': {
      const back = (weekday(today) - WEEKDAY_OF_START[startOfWeek] + DAYS_PER_WEEK) % DAYS_PER_WEEK;
      return { fromDay: today - back, toDay: today - back + DAYS_PER_WEEK - 1 };
    }
    case 'month': {
      // A day number read as a UTC date is that local day's calendar date (see `LocalTime.dayKey`).
      const date = new Date(today * DAY_MS);
      const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
      const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS;
      return { fromDay: first, toDay: next - 1 };
    }
  }
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
