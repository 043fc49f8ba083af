/**
 * How numbers read in a terminal cell: short, aligned, and `─` where a value is unknown. A value the
 * harness does not record is never printed as zero.
 *
 * Text from transcripts is not made safe here: that is `../terminal-text.ts`, whose cell widths and
 * cuts these helpers use.
 */
import { clip, safeLine, width } from '../terminal-text.js';

export { clip, width };

export const UNKNOWN = '─';

export function ago(ms: number | null, nowMs: number): string {
  if (ms === null) return UNKNOWN;
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 365) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

export function duration(ms: number | null): string {
  if (ms === null || ms < 0) return UNKNOWN;
  const m = Math.round(ms / 60_000);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 100) return `${h}h${String(m % 60).padStart(2, '0')}`;
  return `${Math.floor(h / 24)}d`;
}

export function usd(v: number | null, included = false): string {
  if (included) return 'incl';
  if (v === null) return UNKNOWN;
  if (v === 0) return '$0';
  if (v < 0.01) return '<$0.01';
  if (v < 1000) return `$${v.toFixed(2)}`;
  if (v < 100_000) return `$${Math.round(v).toLocaleString('en-US')}`;
  return `$${(v / 1000).toFixed(0)}k`;
}

export function tokens(n: number | null): string {
  if (n === null) return UNKNOWN;
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1e6).toFixed(1)}M`;
  if (n < 1_000_000_000) return `${Math.round(n / 1e6)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

export function percent(used: number | null, of: number | null): string {
  if (used === null || of === null || of <= 0) return UNKNOWN;
  return `${Math.round((used / of) * 100)}%`;
}

/** A model name short enough for a column: `claude-sonnet-4-5-20250929` → `sonnet-4.5`; made safe to print. */
export function shortModel(model: string | null): string {
  if (model === null) return UNKNOWN;
  let m = safeLine(model)
    .replace(/^claude-/, '')
    .replace(/-\d{8}$/, '');
  const claude = /^(opus|sonnet|haiku|fable)-(\d+)-(\d+)(.*)$/.exec(m);
  if (claude) m = `${claude[1]}-${claude[2]}.${claude[3]}${claude[4]}`;
  return m;
}

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
