/**
 * How numbers read in a terminal cell: short, aligned, and `─` where a value is unknown. A value the
 * harness does not record is never printed as zero.
 *
 * Text from transcripts is not made safe here: that is `../terminal-text.ts`, whose cell widths and
 * cuts these helpers use.
 */
import { shortModel as sharedShortModel } from '../format.js';
import { clip, safeLine, width } from '../terminal-text.js';

// The numbers read the same in every view: the terminal and the page share these (`../format.ts`).
export { ago, duration, percent, tokens, UNKNOWN, usd } from '../format.js';
export { clip, width };

/** A model name short enough for a column (`claude-sonnet-4-5-20250929` → `sonnet-4.5`), made safe to print. */
export const shortModel = (model: string | null): string =>
  sharedShortModel(model === null ? null : safeLine(model));

/** A model as a cost row names it, marked `fast` for its requests served in fast mode (a dearer price). */
export const modelLabel = (model: string | null, fast: boolean | undefined): string =>
  fast === true ? `${shortModel(model)} fast` : shortModel(model);

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
