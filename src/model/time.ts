/**
 * Local clock arithmetic for "this hour", "today" and day buckets, in the system time zone or a named
 * one (`--timezone`). Offsets are looked up once per UTC hour and cached: a scan buckets a few
 * hundred thousand requests and `Intl` is far too slow to ask each time.
 */

import { systemTimeZone } from './zone.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

export class LocalTime {
  private offsets = new Map<number, number>();
  private readonly format: Intl.DateTimeFormat | null;
  readonly timeZone: string;

  constructor(timeZone?: string) {
    if (timeZone) {
      // Throws RangeError for an unknown zone: the caller turns that into a usage error.
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      });
      this.timeZone = timeZone;
    } else {
      this.format = null;
      this.timeZone = systemTimeZone();
    }
  }

  /** Minutes east of UTC at `ms`. */
  offsetMinutes(ms: number): number {
    const hour = Math.floor(ms / HOUR);
    let off = this.offsets.get(hour);
    if (off === undefined) {
      off = this.format ? this.zoneOffset(hour * HOUR) : -new Date(hour * HOUR).getTimezoneOffset();
      this.offsets.set(hour, off);
    }
    return off;
  }

  private zoneOffset(ms: number): number {
    const parts: Record<string, number> = {};
    for (const p of this.format!.formatToParts(new Date(ms))) {
      if (p.type !== 'literal') parts[p.type] = Number(p.value);
    }
    const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
    return Math.round((asUtc - ms) / 60_000);
  }

  /** Local days since 1970-01-01. */
  dayNumber(ms: number): number {
    return Math.floor((ms + this.offsetMinutes(ms) * 60_000) / DAY);
  }

  /** Start of the local clock hour containing `ms`. */
  hourStart(ms: number): number {
    const off = this.offsetMinutes(ms) * 60_000;
    return Math.floor((ms + off) / HOUR) * HOUR - off;
  }

  /** `YYYY-MM-DD` of the local day number. */
  static dayKey(dayNumber: number): string {
    return new Date(dayNumber * DAY).toISOString().slice(0, 10);
  }

  /**
   * The local day number of a `YYYY-MM-DD` (or `YYYYMMDD`) date, or null when it is not a day of the
   * calendar: `Date.UTC` would carry month 13 into next year and 30 February into March.
   */
  static dayOf(key: string): number | null {
    const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(key);
    if (!m) return null;
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
      return null;
    return Math.floor(date.getTime() / DAY);
  }

  /** UTC milliseconds at which local day `dayNumber` begins. */
  dayStartMs(dayNumber: number): number {
    const guess = dayNumber * DAY;
    // The offset at local midnight; two passes settle a DST change on the day itself.
    let ms = guess - this.offsetMinutes(guess) * 60_000;
    ms = guess - this.offsetMinutes(ms) * 60_000;
    return ms;
  }
}
