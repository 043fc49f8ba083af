/**
 * Days, weeks and months as local day numbers (`LocalTime.dayNumber`): where the one holding a day
 * begins and where one ends. The reports' periods, `cctop spend`'s period before, and the budgets'
 * periods all count with these, so a week or a month is the same days everywhere.
 *
 * A day number read as a UTC date is that local day's calendar date, so the calendar arithmetic
 * below is UTC arithmetic whatever the zone. Not here: turning times into day numbers (`time.ts`).
 */

export type PeriodUnit = 'day' | 'week' | 'month';
export type StartOfWeek = 'monday' | 'sunday';

const DAY_MS = 86_400_000;
const DAYS_PER_WEEK = 7;
/** 1970-01-01, day 0, was a Thursday: days since the Sunday before it. */
const DAY_ZERO_WEEKDAY = 4;

/** The day's weekday, 0 for Sunday. */
const weekday = (day: number): number =>
  (((day + DAY_ZERO_WEEKDAY) % DAYS_PER_WEEK) + DAYS_PER_WEEK) % DAYS_PER_WEEK;

/** The first local day of the period holding `day`. */
export function periodStart(day: number, unit: PeriodUnit, startOfWeek: StartOfWeek): number {
  switch (unit) {
    case 'day':
      return day;
    case 'week':
      return day - ((weekday(day) - (startOfWeek === 'sunday' ? 0 : 1) + DAYS_PER_WEEK) % DAYS_PER_WEEK);
    case 'month': {
      const d = new Date(day * DAY_MS);
      return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS);
    }
  }
}

/** The last local day of the period starting on `start`. */
export function periodEnd(start: number, unit: PeriodUnit): number {
  switch (unit) {
    case 'day':
      return start;
    case 'week':
      return start + DAYS_PER_WEEK - 1;
    case 'month': {
      const d = new Date(start * DAY_MS);
      return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS) - 1;
    }
  }
}
