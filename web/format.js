// How numbers read on the page: short, and `─` where a value is unknown. A number the harness does
// not record is never shown as zero (the same rule as the terminal).

export const UNKNOWN = '─';

export const HARNESS = {
  claude: 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot CLI',
  gemini: 'Gemini CLI',
  opencode: 'OpenCode',
  cursor: 'Cursor',
  pi: 'Pi',
  qwen: 'Qwen Code',
  windsurf: 'Windsurf',
};

export const harness = (id) => HARNESS[id] ?? id;

export const ms = (iso) => (iso ? Date.parse(iso) : null);

export function ago(t, now = Date.now()) {
  if (t === null || Number.isNaN(t)) return UNKNOWN;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs}h`;
  const d = Math.floor(hrs / 24);
  return d < 365 ? `${d}d` : `${Math.floor(d / 365)}y`;
}

export function duration(span) {
  if (span === null || Number.isNaN(span) || span < 0) return UNKNOWN;
  const m = Math.round(span / 60_000);
  if (m < 60) return `${m}m`;
  const hrs = Math.floor(m / 60);
  if (hrs < 100) return `${hrs}h${String(m % 60).padStart(2, '0')}`;
  return `${Math.floor(hrs / 24)}d`;
}

export function usd(v, included = false) {
  if (included) return 'incl';
  if (v === null || v === undefined) return UNKNOWN;
  if (v === 0) return '$0';
  if (v < 0.01) return '<$0.01';
  if (v < 1000) return `$${v.toFixed(2)}`;
  if (v < 100_000) return `$${Math.round(v).toLocaleString('en-US')}`;
  return `$${(v / 1000).toFixed(0)}k`;
}

export function tokens(n) {
  if (n === null || n === undefined) return UNKNOWN;
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1e6).toFixed(1)}M`;
  if (n < 1_000_000_000) return `${Math.round(n / 1e6)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

export function percent(part, whole) {
  if (part === null || part === undefined || !whole) return UNKNOWN;
  return `${Math.round((part / whole) * 100)}%`;
}

export function msText(v) {
  if (v === null || v === undefined) return UNKNOWN;
  if (v < 1000) return `${Math.round(v)}ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(1)}s`;
  return duration(v);
}

/** Input + cache read + cache write + output, or null when the harness recorded none of them. */
export function totalTokens(t) {
  let sum = null;
  for (const k of ['input', 'cacheRead', 'cacheWrite', 'output']) {
    if (t && typeof t[k] === 'number') sum = (sum ?? 0) + t[k];
  }
  return sum;
}

/** `claude-sonnet-4-5-20250929` → `sonnet-4.5`. */
export function shortModel(model) {
  if (!model) return UNKNOWN;
  let m = model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
  const c = /^(opus|sonnet|haiku)-(\d+)-(\d+)(.*)$/.exec(m);
  if (c) m = `${c[1]}-${c[2]}.${c[3]}${c[4]}`;
  return m;
}

export const basename = (p) =>
  p
    ? (p
        .replace(/[/\\]+$/, '')
        .split(/[/\\]/)
        .pop() ?? p)
    : null;

/** Control characters (escape sequences in a title) read as spaces. */
export const clean = (s) => (s ? s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ') : s);

export function label(s) {
  const project = basename(s.project);
  const title = s.title ? clean(s.title) : null;
  if (project && title) return `${project} · ${title}`;
  return project ?? title ?? s.id;
}

export function localTime(iso) {
  const t = ms(iso);
  if (t === null || Number.isNaN(t)) return '';
  const d = new Date(t);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The current hour's, today's and the last 7 days' spend of one session (null: no price known). */
export function recentSpend(s) {
  const h = s.cost.byHour;
  const d = s.cost.byDay;
  const last = (xs, n) => xs.slice(-n).reduce((a, b) => a + b, 0);
  return {
    hour: h && h.usd.length > 0 ? last(h.usd, 1) : null,
    today: d && d.usd.length > 0 ? last(d.usd, 1) : null,
    week: d && d.usd.length > 0 ? last(d.usd, 7) : null,
  };
}

export const STATE_MARK = { working: '●', waiting: '▲', error: '✖', idle: '·' };
export const STATE_ORDER = { waiting: 0, error: 1, working: 2, idle: 3 };
