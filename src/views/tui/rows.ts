/**
 * The table: which sessions it shows (filtered, sorted, memoised per change of the document), and
 * the header and visible rows as lines, with the selected row in inverse video.
 *
 * It draws the rows only; the columns' cells are `columns.ts`'s, the overview line above the table
 * is `overview.ts`'s, and the panels below it are `panels.ts`'s.
 */
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { SessionState } from '../../model/state.js';
import { totalTokens } from '../../model/usage.js';
import { placeById } from '../../providers/places.js';
import { type Paint, PLAIN } from '../cli/color.js';
import { clip, padEnd, padStart } from '../cli/format.js';
import { safeLine } from '../terminal-text.js';
import { collisionCell, collisionOf } from './collisions-panel.js';
import { type Column, permission, projectTitle, type Row, visibleColumns } from './columns.js';
import { keyOf, type Sort, type ViewState } from './state.js';

/** A context fill past this share of the compaction point is marked: the agent compacts soon. */
const CONTEXT_WARN = 0.85;

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
    placeById(s.provider).label,
    s.id,
    s.state,
    s.permissionMode,
  ]
    .filter((x): x is string => typeof x === 'string')
    .some((x) => x.toLowerCase().includes(f));
}

/**
 * Rows (like the overview line) only change with the document or the filter and sort, not with the
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

/** Before the title of a session `cctop/drive` drives: which program, and that it can be answered here. */
export function drivenTag(s: SessionDoc): string {
  const d = s.driven;
  if (d === undefined) return '';
  const ask = d.pending.length > 0 ? (d.remote ? ' a/d' : ' asks it') : '';
  return `⇄ ${safeLine(d.program)}${ask} · `;
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

function cellOf(c: Column, r: Row, now: number): string {
  const v = safeLine(c.cell(r, now));
  return c.align === 'right' ? padStart(v, c.width) : padEnd(v, c.width);
}

function colourCell(c: Column, r: Row, text: string, p: Paint): string {
  if (c.key === 'perm' && permission(r.s) === 'BYPASS') return p.red(text);
  if (c.key === 'errors' && r.s.tools.failed !== null && r.s.tools.failed > 0) return p.red(text);
  if (
    c.key === 'ctx' &&
    r.s.context.used !== null &&
    r.s.context.compactAt &&
    r.s.context.used / r.s.context.compactAt > CONTEXT_WARN
  )
    return p.amber(text);
  return text;
}

/** The user's hidden columns, and HOST while every row is this machine's. */
function hiddenNow(v: ViewState): ReadonlySet<string> {
  return v.doc?.hosts === undefined || v.doc.hosts.length === 0 ? new Set([...v.hidden, 'host']) : v.hidden;
}

/** The machines whose last poll failed: their rows are the last they sent, drawn dim. */
export function silentHosts(v: ViewState): ReadonlySet<string> {
  return new Set((v.doc?.hosts ?? []).filter((h) => !h.ok).map((h) => h.host));
}

/** The table (header and visible rows), and the first row shown once the selection is in view. */
export function table(
  v: ViewState,
  rows: Row[],
  p: Paint,
  columns: number,
  height: number,
  now: number,
): { lines: string[]; top: number } {
  const cols = visibleColumns(columns, hiddenNow(v), rows, now);
  const silent = silentHosts(v);
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
    const title = padEnd(`${drivenTag(r.s)}${projectTitle(r.s)}`, titleWidth);
    const m = mark(r.s, v.rang.get(keyOf(r.s)), now, p);
    // The cell between the mark and the first column says whether the session collides.
    const collision = collisionOf(v, r.s);
    const text = `${m}${collisionCell(collision, p)}${cells.join(' ')} ${title}`;
    const plain = `${mark(r.s, v.rang.get(keyOf(r.s)), now, PLAIN)}${collisionCell(collision, PLAIN)}${cols.map((c) => cellOf(c, r, now)).join(' ')} ${title}`;
    // Inverse video for the selected row, drawn on the uncoloured text so it reads cleanly.
    if (keyOf(r.s) === v.selected)
      lines.push(p.enabled ? `\u001b[7m${plain}\u001b[27m` : `>${plain.slice(1)}`);
    // A silent machine's rows are what it last said: dim, so they are not read as current.
    else if (r.s.host !== undefined && silent.has(r.s.host)) lines.push(p.dim(plain));
    else lines.push(text);
  }
  if (rows.length === 0)
    lines.push(
      p.dim(v.filter ? `  nothing matches "${safeLine(v.filter)}"` : `  ${v.empty ?? 'no sessions yet'}`),
    );
  return { lines, top };
}
