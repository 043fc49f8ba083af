/**
 * How cctop writes a number for people, in every view: the terminal's tables and reports and the web
 * page read spend, tokens, times and shares through these, so `$1,204`, `12k`, `3h05` and `─` mean
 * the same thing wherever they appear. A value the harness does not record is `─`, never zero.
 *
 * The page loads this very module: the build compiles it to `dist/views/format.js` and `cctop serve`
 * serves that file as `/assets/shared-format.js`. So it imports nothing and touches no Node or DOM
 * API; a browser must be able to run it as it is.
 *
 * Not here: making text safe to show. A terminal needs escape sequences removed (`terminal-text.ts`,
 * applied by the CLI before these see a name); the page puts every string in a text node. Nor
 * anything only one view means (cell padding, local clock times, the page's labels).
 */

/** What every view shows for a value nobody recorded. */
export const UNKNOWN = '─';

/**
 * What every view shows for money spent on models with no price (and nothing priced beside it):
 * tokens were spent, their cost is not known. Never `$0.00`.
 */
export const NO_PRICE = 'no price';

/**
 * How long ago `ms` was, in the largest whole unit: `42s`, `5m`, `3h`, `12d`, `2y`. NaN (a timestamp
 * that did not parse) is unknown like null.
 */
export function ago(ms: number | null, nowMs: number): string {
  if (ms === null || Number.isNaN(ms)) return UNKNOWN;
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  // Hours up to two days: "30h" reads better than "1d" for a session that ran overnight.
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 365) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** A span of time: `45m`, `3h05`, then whole days past a hundred hours. */
export function duration(ms: number | null): string {
  if (ms === null || Number.isNaN(ms) || ms < 0) return UNKNOWN;
  const m = Math.round(ms / 60_000);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 100) return `${h}h${String(m % 60).padStart(2, '0')}`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * Dollars, short, the one way every view writes money (the terminal's tables, reports and status
 * line, the dashboard and the team dashboard): `$0.00`, `<$0.01`, `$3.20`, `$1,204`, `$250k`; `─`
 * when no price is known. `included` (the plan bundles it) reads `incl` whatever the amount, since
 * the user pays nothing more for it.
 */
export function usd(v: number | null, included = false): string {
  if (included) return 'incl';
  if (v === null) return UNKNOWN;
  if (v === 0) return '$0.00';
  if (v < 0.01) return '<$0.01';
  if (v < 1000) return `$${v.toFixed(2)}`;
  // Grouped by hand: the first `toLocaleString` loads the locale data (about 50 ms of a warm `--list`).
  if (v < 100_000) return `$${thousands(Math.round(v))}`;
  return `$${(v / 1000).toFixed(0)}k`;
}

/** A whole number from 1,000 to 100,000 as en-US writes it: one comma. */
function thousands(n: number): string {
  const digits = String(n);
  return `${digits.slice(0, -3)},${digits.slice(-3)}`;
}

/** A count with its noun, in the plural unless it is one: `1 compaction`, `3 compactions`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A token count, at most four characters: `950`, `9.5k`, `95k`, `9.5M`, `950M`, `9.5G`. */
export function tokens(n: number | null): string {
  if (n === null) return UNKNOWN;
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1e6).toFixed(1)}M`;
  if (n < 1_000_000_000) return `${Math.round(n / 1e6)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

/** `used` as a whole percentage of `of`; unknown when either is, or when `of` is not positive. */
export function percent(used: number | null, of: number | null): string {
  if (used === null || of === null || of <= 0) return UNKNOWN;
  return `${Math.round((used / of) * 100)}%`;
}

/**
 * A model name short enough for a column: `claude-sonnet-4-5-20250929` → `sonnet-4.5`. Takes the name
 * as given; a terminal view makes it safe to print first.
 */
export function shortModel(model: string | null): string {
  if (model === null) return UNKNOWN;
  let m = model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
  const claude = /^(opus|sonnet|haiku|fable)-(\d+)-(\d+)(.*)$/.exec(m);
  if (claude) m = `${claude[1]}-${claude[2]}.${claude[3]}${claude[4]}`;
  return m;
}

/** A whole number grouped by threes, as en-US writes it (by hand: see `thousands`). */
function grouped(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * How far a build is, in one line: `reading transcripts: 1,204 of 3,782 files, 412 of 1,234 MiB`.
 * The same words on stderr, in the live table's header and on the page.
 */
export function buildProgress(b: {
  files: number;
  filesTotal: number;
  bytes: number;
  bytesTotal: number;
}): string {
  const mib = (n: number) => grouped(n / (1 << 20));
  return `reading transcripts: ${grouped(b.files)} of ${grouped(b.filesTotal)} files, ${mib(b.bytes)} of ${mib(b.bytesTotal)} MiB`;
}
