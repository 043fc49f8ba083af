/**
 * How numbers read in a terminal cell: short, aligned, and `─` where a value is unknown. A value the
 * harness does not record is never printed as zero.
 */

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

/** A model name short enough for a column: `claude-sonnet-4-5-20250929` → `sonnet-4.5`. */
export function shortModel(model: string | null): string {
  if (model === null) return UNKNOWN;
  let m = model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
  const claude = /^(opus|sonnet|haiku|fable)-(\d+)-(\d+)(.*)$/.exec(m);
  if (claude) m = `${claude[1]}-${claude[2]}.${claude[3]}${claude[4]}`;
  return m;
}

/** A colour or style sequence (CSI … m): no width, and never cut in half. */
const STYLE = /^\u001b\[[0-9;]*m/;

/**
 * Display width of a string: wide (CJK, emoji) characters take two cells, combining marks and
 * colour sequences none.
 */
export function width(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) === 0x1b) {
      const m = STYLE.exec(s.slice(i, i + 24));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    const cp = s.codePointAt(i)!;
    w += charWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return w;
}

function charWidth(cp: number): number {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0;
  if (cp === 0x200b || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Control characters (a title may contain escape sequences) become spaces: a table cell never moves the cursor. */
export function sanitize(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

/** Cut to at most `cells` display cells, marking a cut with `…`; colour sequences are kept whole. */
export function clip(s: string, cells: number): string {
  if (cells <= 0) return '';
  if (width(s) <= cells) return s;
  let out = '';
  let w = 0;
  let styled = false;
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) === 0x1b) {
      const m = STYLE.exec(s.slice(i, i + 24));
      if (m) {
        out += m[0];
        styled = true;
        i += m[0].length;
        continue;
      }
    }
    const cp = s.codePointAt(i)!;
    const cw = charWidth(cp);
    if (w + cw > cells - 1) break;
    out += String.fromCodePoint(cp);
    w += cw;
    i += cp > 0xffff ? 2 : 1;
  }
  return `${out}…${styled ? '\u001b[0m' : ''}`;
}

export function padEnd(s: string, cells: number): string {
  const f = clip(s, cells);
  return f + ' '.repeat(Math.max(0, cells - width(f)));
}

export function padStart(s: string, cells: number): string {
  const f = clip(s, cells);
  return ' '.repeat(Math.max(0, cells - width(f))) + f;
}

/** Shorten a path for display: the home directory becomes `~`. */
export function tildify(path: string, home: string): string {
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}
