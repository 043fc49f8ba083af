/**
 * A harness's quota in a few words, for the headers of the list and the live table and for the
 * status line: `quota 5h 37% · 7d 12%`. A stale window reads `stale`, never its old percentage; a
 * window with no figure reads `─`. Only the windows every plan has (5h, 7d) are named here; the rest
 * are in `cctop quota`.
 *
 * The words come from the agents' files; the caller makes the line safe to print, as it does for
 * every other cell.
 */
import type { ProviderId } from '../model/facts.js';
import type { QuotaFigure } from '../model/quota.js';
import { UNKNOWN } from './format.js';

const BRIEF_WINDOWS = ['5h', '7d'] as const;

/** One window's figure: `37%`, `stale`, or `─`. */
export function quotaCell(f: QuotaFigure | undefined): string {
  if (f === undefined || f.usedPercent === null) return UNKNOWN;
  return f.stale ? 'stale' : `${Math.round(f.usedPercent)}%`;
}

/** `quota 5h 37% · 7d 12%` for `harness`, or null when no source says anything about it. */
export function quotaBrief(figures: readonly QuotaFigure[], harness: ProviderId): string | null {
  const mine = figures.filter(
    (f) => f.harness === harness && (BRIEF_WINDOWS as readonly string[]).includes(f.window),
  );
  if (mine.length === 0) return null;
  return `quota ${BRIEF_WINDOWS.map((w) => `${w} ${quotaCell(mine.find((f) => f.window === w))}`).join(' · ')}`;
}
