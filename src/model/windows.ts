/**
 * A session's spend windows: the last `HOURS_KEPT` clock hours and `DAYS_KEPT` local days ending now,
 * cut from the absolute buckets its facts keep (`cost.ts` fills them). Kept apart from the cost model
 * so that a warm answer (`../warm-answer.ts`), which cuts windows at the moment of printing, loads
 * this and the clock, not the prices and the ledger.
 *
 * Not here: filling the buckets (`cost.ts`), printing the windows (`index/live-text.ts`).
 */
import type { DaySeries, HourSeries } from './document.js';
import { money } from './money.js';
import { LocalTime } from './time.js';

export const HOURS_KEPT = 48;
export const DAYS_KEPT = 31;
const HOUR = 3_600_000;

/** Spend by absolute bucket, as a session's facts keep it: `[bucket, usd]`, oldest first. */
export interface SpendBuckets {
  hours: [number, number][];
  days: [number, number][];
}

/**
 * The last `HOURS_KEPT` clock hours and `DAYS_KEPT` local days ending now, from absolute buckets:
 * each series oldest first, its last entry the current hour or today.
 */
export function spendWindows(
  s: SpendBuckets,
  time: LocalTime,
  nowMs: number,
): { byHour: HourSeries; byDay: DaySeries } {
  const nowHour = time.hourStart(nowMs);
  const hours = new Array<number>(HOURS_KEPT).fill(0);
  for (const [start, usd] of s.hours) {
    const h = HOURS_KEPT - 1 - Math.round((nowHour - start) / HOUR);
    if (h >= 0 && h < HOURS_KEPT) hours[h] = money(hours[h]! + usd);
  }
  const today = time.dayNumber(nowMs);
  const days = new Array<number>(DAYS_KEPT).fill(0);
  for (const [day, usd] of s.days) {
    const d = DAYS_KEPT - 1 - (today - day);
    if (d >= 0 && d < DAYS_KEPT) days[d] = money(days[d]! + usd);
  }
  return {
    byHour: { start: new Date(nowHour - (HOURS_KEPT - 1) * HOUR).toISOString(), usd: hours },
    byDay: { start: LocalTime.dayKey(today - (DAYS_KEPT - 1)), usd: days },
  };
}
