/**
 * How numbers read in a terminal cell: short, aligned, and `─` where a value is unknown. A value the
 * harness does not record is never printed as zero.
 *
 * Text from transcripts is not made safe here: that is `../terminal-text.ts`, whose cell widths and
 * cuts these helpers use.
 */
import type { LocalTime } from '../../model/time.js';
import { shortModel as sharedShortModel, UNKNOWN } from '../format.js';
import { clip, safeLine, width } from '../terminal-text.js';

// The numbers read the same in every view: the terminal and the page share these (`../format.ts`).
export { ago, counted, duration, NO_PRICE, percent, tokens, UNKNOWN, usd } from '../format.js';
export { clip, width };

/** A model name short enough for a column (`claude-sonnet-4-5-20250929` → `sonnet-4.5`), made safe to print. */
export const shortModel = (model: string | null): string =>
  sharedShortModel(model === null ? null : safeLine(model));

export function padEnd(s: string, cells: number): string {
  const f = clip(s, cells);
  return f + ' '.repeat(Math.max(0, cells - width(f)));
}

export function padStart(s: string, cells: number): string {
  const f = clip(s, cells);
  return ' '.repeat(Math.max(0, cells - width(f))) + f;
}

/** Shorten a path for display: the home directory becomes `~`; made safe to print. */
export function tildify(path: string, home: string): string {
  return safeLine(
    home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path,
  );
}

/**
 * A path in at most `cells` cells, the one way every terminal view shortens one: the home directory
 * becomes `~`, and a path still too long loses its start, never its end (`…/src/billing`), since the
 * last name is the project's (or the file's) own. Made safe to print.
 */
export function shortPath(path: string, home: string, cells: number): string {
  const p = tildify(path, home);
  if (width(p) <= cells) return p;
  const chars = [...p];
  let kept = '';
  for (let i = chars.length - 1; i >= 0 && width(chars[i] + kept) <= cells - 1; i--) kept = chars[i] + kept;
  return `…${kept}`;
}

/** A moment as `2026-12-01 06:41` on the clock of `zone`; `─` for NaN (a time that did not parse). */
export function localClock(ms: number, zone: LocalTime): string {
  if (Number.isNaN(ms)) return UNKNOWN;
  return new Date(ms + zone.offsetMinutes(ms) * 60_000).toISOString().replace('T', ' ').slice(0, 16);
}

/** The short name of `zone` at `ms` (`UTC`, `GMT+1`, `EST`), for a column header with little room. */
export function zoneName(zone: LocalTime, ms: number): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone.timeZone, timeZoneName: 'short' })
    .formatToParts(new Date(ms))
    .find((x) => x.type === 'timeZoneName');
  return part?.value ?? zone.timeZone;
}
