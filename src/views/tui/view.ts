/**
 * What the live table shows, as lines: a function of the view state and the terminal size, so it
 * can be tested without a terminal and redrawn as often as anything changes. The one thing it
 * changes in the state is the selection, which it settles against the rows it is about to draw.
 *
 * Every word from a transcript, a process table or the keyboard is made safe to print where it is
 * placed (`safeLine`), and every finished line once more (`printable`) in `render`, the one way out.
 */
import type { CallLog } from '../../model/calls.js';
import type { Conversation } from '../../model/conversation.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { countStates, type SessionState } from '../../model/state.js';
import { totalTokens } from '../../model/usage.js';
import { providerById } from '../../providers/index.js';
import type { SessionReport } from '../../report/types.js';
import { type Paint, PLAIN } from '../cli/color.js';
import { clip, padEnd, padStart, percent, shortModel, tokens, UNKNOWN, usd, width } from '../cli/format.js';
import { sparkline } from '../cli/report.js';
import { printable, safeLine } from '../terminal-text.js';
import { type Column, failureRate, permission, projectTitle, type Row, visibleColumns } from './columns.js';

export const PANELS = ['info', 'tools', 'context', 'cost', 'chat'] as const;
export type Panel = (typeof PANELS)[number];
const PANEL_TITLE: Record<Panel, string> = {
  info: 'Info',
  tools: 'Tool activity',
  context: 'Context',
  cost: 'Cost',
  chat: 'Conversation',
};

export const SORTS = ['last', 'cost', 'tokens', 'ctx', 'cpu', 'duration'] as const;
export type Sort = (typeof SORTS)[number];

/** How long a row that rang stays marked. */
export const RANG_MARK_MS = 30_000;

export interface Detail {
  key: string;
  loading: boolean;
  log: CallLog | null;
  report: SessionReport | null;
  conversation: Conversation | null;
  error: string | null;
}

export interface ViewState {
  doc: SessionDocument | null;
  selected: string | null;
  top: number;
  follow: boolean;
  sort: Sort;
  reverse: boolean;
  filter: string;
  filtering: boolean;
  panel: Panel;
  panelScroll: number;
  notify: boolean;
  help: boolean;
  status: string | null;
  rang: Map<string, number>;
  rates: Map<string, number>;
  hidden: ReadonlySet<string>;
  detail: Detail | null;
  /** Shown until the first refresh lands. */
  loading: string | null;
  /** Said in place of rows when there are no sessions (which filter matched nothing); null: the default. */
  empty: string | null;
  /** Bumped whenever `doc` or `rates` change, so sorted rows and totals are worked out once per change. */
  revision: number;
}

export const keyOf = (s: SessionDoc): string => `${s.provider}\u0000${s.id}`;

/** The view as it opens: nothing loaded yet, newest first, following, the Info panel. */
export function initialView(hidden: ReadonlySet<string>): ViewState {
  return {
    doc: null,
    selected: null,
    top: 0,
    follow: true,
    sort: 'last',
    reverse: false,
    filter: '',
    filtering: false,
    panel: 'info',
    panelScroll: 0,
    notify: true,
    help: false,
    status: null,
    rang: new Map(),
    rates: new Map(),
    hidden,
    detail: null,
    loading: 'reading transcripts…',
    empty: null,
    revision: 0,
  };
}

function sortValue(s: SessionDoc, sort: Sort): number {
  switch (sort) {
    case 'last':
      return s.lastActiveAt ? Date.parse(s.lastActiveAt) : 0;
    case 'cost':
      return s.cost.usd ?? -1;
    case 'tokens':
      return totalTokens(s.tokens) ?? -1;
    case 'ctx':
      return s.context.used !== null && s.context.compactAt ? s.context.used / s.context.compactAt : -1;
    case 'cpu':
      return s.process?.cpu ?? -1;
    case 'duration':
      return s.startedAt && s.lastActiveAt ? Date.parse(s.lastActiveAt) - Date.parse(s.startedAt) : -1;
  }
}

function matches(s: SessionDoc, filter: string): boolean {
  if (filter.length === 0) return true;
  const f = filter.toLowerCase();
  return [
    s.title,
    s.project,
    s.branch,
    s.model,
    s.provider,
    providerById(s.provider).label,
    s.id,
    s.state,
    s.permissionMode,
  ]
    .filter((x): x is string => typeof x === 'string')
    .some((x) => x.toLowerCase().includes(f));
}

/**
 * Rows and the overview line only change with the document or the filter and sort, not with the
 * clock: a redraw with nothing new reuses them, so a quiet screen costs the formatting of the rows
 * it shows, whatever the number of sessions.
 */
const rowsMemo = new WeakMap<ViewState, { key: string; doc: SessionDocument | null; rows: Row[] }>();

/** The rows the table shows: live sessions (deleted ones only count in spend), filtered and sorted. */
export function rowsOf(v: ViewState): Row[] {
  const key = `${v.revision}\u0000${v.filter}\u0000${v.sort}\u0000${v.reverse}`;
  const memo = rowsMemo.get(v);
  if (memo?.key === key && memo.doc === v.doc) return memo.rows;
  const rows = sortedRows(v);
  rowsMemo.set(v, { key, doc: v.doc, rows });
  return rows;
}

function sortedRows(v: ViewState): Row[] {
  const sessions = (v.doc?.sessions ?? []).filter((s) => !s.deleted && matches(s, v.filter));
  const sign = v.reverse ? -1 : 1;
  const value = new Map(sessions.map((s) => [s, sortValue(s, v.sort)]));
  sessions.sort((a, b) => sign * (value.get(b)! - value.get(a)!) || (a.id < b.id ? -1 : 1));
  return sessions.map((s) => ({ s, rate: v.rates.get(keyOf(s)) ?? null }));
}

function mark(s: SessionDoc, rangUntil: number | undefined, now: number, p: Paint): string {
  if (rangUntil !== undefined && rangUntil > now) return p.amber('◉');
  if (s.inferred === 'probably-waiting') return p.amber('?');
  const stopped = s.running === false;
  const shapes: Record<SessionState, [string, string]> = {
    working: ['●', '○'],
    waiting: ['▲', '△'],
    error: ['✖', '✕'],
    idle: ['•', '·'],
  };
  const glyph = shapes[s.state][stopped ? 1 : 0];
  switch (s.state) {
    case 'working':
      return stopped ? p.dim(glyph) : p.green(glyph);
    case 'waiting':
      return p.amber(glyph);
    case 'error':
      return p.red(glyph);
    case 'idle':
      return p.dim(glyph);
  }
}

/** Spend over the last `n` local days (today included), from every session's day series. */
function spendDays(sessions: readonly SessionDoc[], n: number): number {
  let total = 0;
  for (const s of sessions) {
    const days = s.cost.byDay?.usd ?? [];
    for (let i = Math.max(0, days.length - n); i < days.length; i++) total += days[i]!;
  }
  return total;
}

interface Totals {
  hour: number;
  days: [number, number, number];
  working: number;
  waiting: number;
  probably: number;
}

function totalsOf(doc: SessionDocument): Totals {
  const sessions = doc.sessions;
  const states = countStates(sessions, Date.parse(doc.generatedAt));
  return {
    hour: sessions.reduce((n, s) => n + (s.cost.byHour?.usd.at(-1) ?? 0), 0),
    days: [spendDays(sessions, 1), spendDays(sessions, 7), spendDays(sessions, 30)],
    working: states.working,
    waiting: states.waiting,
    probably: states.probablyWaiting,
  };
}

const totalsMemo = new WeakMap<ViewState, { revision: number; doc: SessionDocument; totals: Totals }>();

export function overview(v: ViewState, p: Paint, columns: number): string {
  const doc = v.doc;
  if (doc === null) return '';
  let memo = totalsMemo.get(v);
  if (memo?.revision !== v.revision || memo.doc !== doc) {
    memo = { revision: v.revision, doc, totals: totalsOf(doc) };
    totalsMemo.set(v, memo);
  }
  const { hour, days, working, waiting, probably } = memo.totals;
  const spans = [`hour ${usd(hour)}`, `today ${usd(days[0])}`, `7d ${usd(days[1])}`, `30d ${usd(days[2])}`];
  const agents = (q: Paint) =>
    `${q.green('●')} ${working} working  ${q.amber('▲')} ${waiting} waiting${probably > 0 ? ` ${q.amber('?')} ${probably} probably` : ''}`;
  // On a narrow terminal the agent counts matter more than the longer spend windows.
  for (let n = spans.length; n > 0; n--) {
    const spend = spans.slice(0, n).join(' · ');
    if (width(`cctop  ${spend}   ${agents(PLAIN)}`) <= columns)
      return `${p.bold('cctop')}  ${spend}   ${agents(p)}`;
  }
  return clip(`${p.bold('cctop')}  ${agents(p)}`, columns);
}

function cellOf(c: Column, r: Row, now: number): string {
  const v = safeLine(c.cell(r, now));
  return c.align === 'right' ? padStart(v, c.width) : padEnd(v, c.width);
}

function colourCell(c: Column, r: Row, text: string, p: Paint): string {
  if (c.key === 'perm' && permission(r.s.permissionMode) === 'BYPASS') return p.red(text);
  if (c.key === 'errors' && r.s.tools.failed !== null && r.s.tools.failed > 0) return p.red(text);
  if (
    c.key === 'ctx' &&
    r.s.context.used !== null &&
    r.s.context.compactAt &&
    r.s.context.used / r.s.context.compactAt > 0.85
  )
    return p.amber(text);
  return text;
}

/** The table (header and visible rows). */
function table(
  v: ViewState,
  rows: Row[],
  p: Paint,
  columns: number,
  height: number,
  now: number,
): { lines: string[]; top: number } {
  const cols = visibleColumns(columns, v.hidden);
  const fixed = 2 + cols.reduce((n, c) => n + c.width + 1, 0);
  const titleWidth = Math.max(8, columns - fixed);
  const sortedBy = (c: Column) => (c.key === 'active' && v.sort === 'last') || c.key === v.sort;
  // The sorted column's title is bold, the rest dim.
  const heads = cols.map((c) => {
    const t = c.align === 'right' ? padStart(c.title, c.width) : padEnd(c.title, c.width);
    return sortedBy(c) ? p.bold(t) : p.dim(t);
  });
  const lines = [`  ${heads.join(' ')} ${p.dim(clip(padEnd('PROJECT · TITLE', titleWidth), titleWidth))}`];
  const body = height - 1;
  const index = rows.findIndex((r) => keyOf(r.s) === v.selected);
  let top = v.top;
  if (index >= 0) {
    if (index < top) top = index;
    if (index >= top + body) top = index - body + 1;
  }
  top = Math.max(0, Math.min(top, Math.max(0, rows.length - body)));
  for (let i = top; i < Math.min(rows.length, top + body); i++) {
    const r = rows[i]!;
    const cells = cols.map((c) => colourCell(c, r, cellOf(c, r, now), p));
    const title = padEnd(projectTitle(r.s), titleWidth);
    const m = mark(r.s, v.rang.get(keyOf(r.s)), now, p);
    const text = `${m} ${cells.join(' ')} ${title}`;
    if (keyOf(r.s) === v.selected) {
      // Inverse video for the selected row, drawn on the uncoloured text so it reads cleanly.
      const plain = `${mark(r.s, v.rang.get(keyOf(r.s)), now, PLAIN)} ${cols.map((c) => cellOf(c, r, now)).join(' ')} ${title}`;
      lines.push(p.enabled ? `\u001b[7m${plain}\u001b[27m` : `>${plain.slice(1)}`);
    } else lines.push(text);
  }
  if (rows.length === 0)
    lines.push(
      p.dim(v.filter ? `  nothing matches "${safeLine(v.filter)}"` : `  ${v.empty ?? 'no sessions yet'}`),
    );
  return { lines, top };
}

function kv(label: string, value: string, p: Paint): string {
  return `  ${p.dim(padEnd(label, 10))} ${value}`;
}

/**
 * One word for a POSIX shell: as it is when it holds nothing a shell reads specially, else in single
 * quotes, where nothing is special (`$(…)` inside double quotes would run when the command is pasted).
 */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that resumes a session, to show and to copy: it is pasted into a shell, so the path
 * and id from the transcript are made safe to print (no control character reaches the clipboard)
 * and quoted as shell words. An id or a path that would read as an option (`--dangerously-…`) gives
 * no command and no `cd`: quoting does not stop a program from reading a word as a flag.
 */
export function resumeCommand(s: SessionDoc): string | null {
  if (s.id.startsWith('-')) return null;
  const cd = s.project && !s.project.startsWith('-') ? `cd ${shellWord(safeLine(s.project))} && ` : '';
  const id = shellWord(safeLine(s.id));
  switch (s.provider) {
    case 'claude':
      return `${cd}claude --resume ${id}`;
    case 'codex':
      return `${cd}codex resume ${id}`;
    default:
      return null;
  }
}

/** The call still without a result: pending while the session runs, unanswered once it went quiet. */
function pending(s: SessionDoc): string {
  if (s.pendingTool === null) return '';
  const tool = safeLine(s.pendingTool);
  return s.state === 'idle' ? `  last call unanswered: ${tool}` : `  pending ${tool}`;
}

function infoPanel(s: SessionDoc, p: Paint, columns: number): string[] {
  const out = [
    kv('session', `${providerById(s.provider).label} ${safeLine(s.id)}`, p),
    kv('title', safeLine(s.title ?? UNKNOWN), p),
    kv('project', `${safeLine(s.project ?? UNKNOWN)}${s.branch ? `  (${safeLine(s.branch)})` : ''}`, p),
    kv('file', safeLine(s.file), p),
    kv(
      'model',
      `${s.models.map(shortModel).join(', ') || UNKNOWN}${s.reasoningEffort ? `  effort ${safeLine(s.reasoningEffort)}` : ''}`,
      p,
    ),
    kv(
      'state',
      `${s.state}${s.stateDetail ? ` (${safeLine(s.stateDetail)})` : ''}${pending(s)}${s.inferred ? `  ${s.inferred}` : ''}`,
      p,
    ),
    kv(
      'process',
      s.process
        ? `pids ${s.process.pids.slice(0, 6).join(' ')}  ${s.process.cpu ?? UNKNOWN}% cpu  ${Math.round(s.process.memory / (1 << 20))} MB  ${safeLine(s.process.command)}`
        : s.running === false
          ? 'not running'
          : UNKNOWN,
      p,
    ),
    kv(
      'tokens',
      `in ${tokens(s.tokens.input)}  out ${tokens(s.tokens.output)}  cache read ${tokens(s.tokens.cacheRead)}  write ${tokens(s.tokens.cacheWrite)}  reasoning ${tokens(s.tokens.reasoning)}`,
      p,
    ),
    kv('resume', resumeCommand(s) ?? UNKNOWN, p),
  ];
  return out.map((l) => clip(l, columns));
}

function toolsPanel(d: Detail | null, p: Paint, columns: number): string[] {
  if (d === null || d.loading) return [p.dim('  reading the transcript…')];
  if (d.error) return [p.red(`  ${safeLine(d.error)}`)];
  const calls = [...(d.log?.calls ?? [])].reverse();
  if (calls.length === 0) return [p.dim('  no tool calls')];
  return calls.map((c) => {
    const markc = c.result === null ? p.amber('…') : c.failed ? p.red('✗') : p.green('✓');
    const when = c.startMs ? new Date(c.startMs).toTimeString().slice(0, 8) : '        ';
    const took =
      c.startMs !== null && c.endMs !== null
        ? `${Math.max(0, Math.round((c.endMs - c.startMs) / 1000))}s`
        : '';
    const lines = c.added + c.removed > 0 ? ` ${p.green(`+${c.added}`)} ${p.red(`-${c.removed}`)}` : '';
    const origin = c.origin === 'main' ? '' : p.dim(` ↳${safeLine(c.origin.slice(0, 8))}`);
    return (
      clip(`  ${p.dim(when)} ${markc} ${padEnd(safeLine(c.name), 10)} ${safeLine(c.detail)}`, columns - 20) +
      `${lines} ${p.dim(took)}${origin}`
    );
  });
}

function contextPanel(s: SessionDoc, d: Detail | null, p: Paint, columns: number): string[] {
  const out: string[] = [];
  const frac = s.context.used !== null && s.context.compactAt ? s.context.used / s.context.compactAt : null;
  const barWidth = Math.max(10, Math.min(50, columns - 40));
  const filled = frac === null ? 0 : Math.min(barWidth, Math.round(frac * barWidth));
  out.push(
    `  ${percent(s.context.used, s.context.compactAt)} of the compaction point  ${p.green('█'.repeat(filled))}${p.dim('░'.repeat(barWidth - filled))}  ${tokens(s.context.used)} / ${tokens(s.context.compactAt)} (window ${tokens(s.context.window)})`,
  );
  const b = d?.log?.breakdown ?? null;
  if (b) {
    const row = (label: string, n: number, how: string) =>
      `  ${padEnd(label, 16)} ${padStart(tokens(n), 7)}  ${p.dim(how)}`;
    out.push(row('window', b.window, 'measured: the latest request'));
    out.push(row('startup', b.startup, 'measured: system prompt, tools, memory, summary'));
    out.push(row('tool output', b.toolOutput, 'estimated'));
    out.push(row('tool input', b.toolInput, 'estimated'));
    out.push(row('attachments', b.attachments, 'estimated'));
    out.push(row('your messages', b.user, 'estimated'));
    out.push(row('assistant text', b.assistant, 'estimated'));
    out.push(
      `  ${padEnd('unaccounted', 16)} ${padStart(b.unaccounted < 0 ? `-${tokens(-b.unaccounted)}` : tokens(b.unaccounted), 7)}  ${p.dim('thinking and reminders are not in the transcript')}`,
    );
  } else if (d?.loading) out.push(p.dim('  reading the transcript…'));
  else out.push(p.dim('  no breakdown for this harness'));
  const series = d?.report?.context.series ?? [];
  if (series.length > 1) {
    out.push(
      `  ${sparkline(
        series.map((x) => x.prompt),
        Math.max(10, columns - 4),
      )}`,
    );
    const n = d?.report?.context.compactions.length ?? 0;
    out.push(p.dim(`  how it filled, request by request; ${n} compaction${n === 1 ? '' : 's'}`));
  }
  return out.map((l) => clip(l, columns));
}

function costPanel(s: SessionDoc, p: Paint, columns: number): string[] {
  const out = [
    `  ${usd(s.cost.usd, s.cost.included)}${s.cost.included ? ` (${usd(s.cost.usd)} at retail)` : ''}  this hour ${usd(s.cost.byHour?.usd.at(-1) ?? null)}  today ${usd(s.cost.byDay?.usd.at(-1) ?? null)}`,
  ];
  for (const m of s.cost.byModel)
    out.push(
      `  ${padEnd(shortModel(m.model), 20)} ${padStart(usd(m.usd), 9)}  ${padStart(tokens(totalTokens(m.tokens)), 7)} tokens  ${m.requests} requests`,
    );
  if (s.cost.unpriced.length > 0)
    out.push(p.amber(`  no price for ${s.cost.unpriced.map(safeLine).join(', ')}`));
  const hours = s.cost.byHour?.usd ?? [];
  if (hours.some((h) => h > 0)) out.push(`  last 48h ${sparkline(hours, Math.min(48, columns - 12))}`);
  return out.map((l) => clip(l, columns));
}

function chatPanel(d: Detail | null, p: Paint, columns: number): string[] {
  if (d === null || d.loading) return [p.dim('  reading the conversation…')];
  const c = d.conversation;
  if (c === null) return [p.dim('  no conversation')];
  if (!c.supported) return [p.dim(`  ${safeLine(c.note ?? 'no reader for this harness')}`)];
  const out: string[] = [];
  for (const t of c.turns) {
    const who =
      t.role === 'user'
        ? p.bold('you')
        : t.role === 'system'
          ? p.dim('harness')
          : t.kind === 'reasoning'
            ? p.dim('thinking')
            : p.green('agent');
    const text = safeLine(t.text.replace(/\n+/g, ' ⏎ '));
    if (text.length > 0) out.push(clip(`  ${p.dim(`#${t.seq}`)} ${who} ${text}`, columns));
    for (const tool of t.tools)
      out.push(
        clip(
          `      ${tool.result === null ? p.amber('…') : tool.failed ? p.red('✗') : p.green('✓')} ${safeLine(tool.name)} ${safeLine(tool.detail)}`,
          columns,
        ),
      );
  }
  return out;
}

export function panelLines(v: ViewState, s: SessionDoc, p: Paint, columns: number): string[] {
  switch (v.panel) {
    case 'info':
      return infoPanel(s, p, columns);
    case 'tools':
      return toolsPanel(v.detail, p, columns);
    case 'context':
      return contextPanel(s, v.detail, p, columns);
    case 'cost':
      return costPanel(s, p, columns);
    case 'chat':
      return chatPanel(v.detail, p, columns);
  }
}

export const HELP = [
  'cctop: keys',
  '',
  '  ↑ ↓  j k      move            PgUp PgDn     page        g G  Home End   first, last',
  '  ← →  Tab      panel           J K           scroll the panel',
  '  /             filter on anything a row shows (Enter keeps it, Esc clears it)',
  '  s             sort: last, cost, tokens, context, cpu, duration     r   reverse',
  '  f             follow the newest activity',
  '  y             copy the resume command',
  '  w             notifications on or off (bell and desktop notice when a session waits on you)',
  '  click         select a row         ?  this help         q  quit',
  '',
  '  ● working  ▲ waiting on you  ? probably waiting (a call pending, file and process quiet)',
  '  ✖ error  • idle   hollow: no process runs it   ◉ rang in the last 30 s',
  '  CTX% = context used / the point where the agent compacts;  ─ = not recorded',
];

/** Lines for the whole screen. */
export function render(
  v: ViewState,
  p: Paint,
  columns: number,
  rows: number,
  now: number,
): { lines: string[]; top: number; tableRows: Row[]; tableStart: number } {
  // The way out for every line: no line may wrap, whatever a panel produced, and nothing but
  // cctop's own colours reaches the terminal.
  const finished = (lines: string[]) => lines.map((l) => printable(clip(l, columns), p));
  const out: string[] = [overview(v, p, columns)];
  if (v.help)
    return {
      lines: finished([...out, '', ...HELP]),
      top: v.top,
      tableRows: [],
      tableStart: 2,
    };
  const all = rowsOf(v);
  // Following keeps the top row selected; a selection the filter hid moves to the first row shown.
  if (all.length > 0 && ((v.follow && !v.filtering) || !all.some((r) => keyOf(r.s) === v.selected)))
    v.selected = keyOf(all[0]!.s);
  const panelHeight = rows >= 20 ? Math.min(14, Math.floor(rows * 0.4)) : 0;
  const tableHeight = Math.max(2, rows - 1 - 1 - (panelHeight > 0 ? panelHeight + 1 : 0));
  if (v.loading && v.doc === null) out.push(p.dim(`  ${v.loading}`));
  const t = table(v, all, p, columns, tableHeight, now);
  out.push(...t.lines);
  while (out.length < 1 + tableHeight) out.push('');
  const selected = all.find((r) => keyOf(r.s) === v.selected)?.s ?? null;
  if (panelHeight > 0) {
    const tabs = PANELS.map((id) =>
      id === v.panel ? p.bold(`[${PANEL_TITLE[id]}]`) : p.dim(` ${PANEL_TITLE[id]} `),
    ).join(' ');
    out.push(clip(`─ ${tabs} ${'─'.repeat(columns)}`, columns));
    const body = selected ? panelLines(v, selected, p, columns) : [p.dim('  select a session')];
    const scroll = Math.max(0, Math.min(v.panelScroll, Math.max(0, body.length - panelHeight)));
    const shown = body.slice(scroll, scroll + panelHeight);
    out.push(...shown);
    while (out.length < rows - 1) out.push('');
  }
  const hint = v.filtering
    ? `/${safeLine(v.filter)}█  ${p.dim('Enter keep  Esc clear')}`
    : ((v.status === null ? null : safeLine(v.status)) ??
      p.dim(
        `q quit  / filter  ←→ panels  s sort (${v.sort}${v.reverse ? ' ↑' : ''})  f follow${v.follow ? ' on' : ''}  y copy resume  w notify ${v.notify ? 'on' : 'off'}  ? help${v.filter ? `  filter: ${safeLine(v.filter)}` : ''}`,
      ));
  out.length = Math.min(out.length, rows - 1);
  while (out.length < rows - 1) out.push('');
  out.push(hint);
  return { lines: finished(out), top: t.top, tableRows: all, tableStart: 2 };
}

export { failureRate };
