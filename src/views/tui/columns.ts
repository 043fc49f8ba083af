/**
 * The columns of the live table: what each shows, how wide it is, and which go first when the
 * terminal narrows (from the right; the project/title column stays and takes what is left). A cell
 * that shows a transcript's words (model, branch, permission mode) shows them made safe to print.
 */
import type { SessionDoc } from '../../model/document.js';
import { totalTokens } from '../../model/usage.js';
import { placeById } from '../../providers/places.js';
import { ago, duration, percent, shortModel, tokens, UNKNOWN, usd } from '../cli/format.js';
import { label } from '../cli/list.js';
import { safeLine } from '../terminal-text.js';

export interface Row {
  s: SessionDoc;
  /** Smoothed tokens per minute, when two refreshes have seen it. */
  rate: number | null;
}

export interface Column {
  key: string;
  title: string;
  width: number;
  align: 'left' | 'right';
  cell(r: Row, now: number): string;
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** The PERM column: as wide as its widest word, `BYPASS` (`read-only` is shown as `ro` to fit). */
const PERM_WIDTH = 6;

/**
 * The PERM cell: the session's permission as its provider read it. A mode no provider knows shows
 * the harness's own words, cut to the cell; a document from a newer cctop (`--host`) may hold a
 * permission this one does not know, and shows nothing rather than a guess.
 */
export function permission(s: Pick<SessionDoc, 'permission' | 'permissionMode'>): string {
  const p = s.permission;
  if (p === null || p === undefined) return UNKNOWN;
  switch (p) {
    case 'ask':
    case 'edits':
    case 'plan':
    case 'auto':
    case 'deny':
      return p;
    case 'read-only':
      return 'ro';
    case 'bypass':
      return 'BYPASS';
    case 'unknown':
      return s.permissionMode === null ? UNKNOWN : safeLine(s.permissionMode).slice(0, PERM_WIDTH);
    default:
      return newerPermission(p);
  }
}

/** Unreachable by type, so a new permission fails to compile above; a newer cctop can still send one. */
const newerPermission = (_: never): string => UNKNOWN;

const lastHour = (s: SessionDoc) => s.cost.byHour?.usd.at(-1) ?? (s.cost.usd === null ? null : 0);
const today = (s: SessionDoc) => s.cost.byDay?.usd.at(-1) ?? (s.cost.usd === null ? null : 0);

function memory(bytes: number): string {
  if (bytes < 1 << 20) return `${Math.round(bytes / 1024)}K`;
  if (bytes < 1 << 30) return `${Math.round(bytes / (1 << 20))}M`;
  return `${(bytes / (1 << 30)).toFixed(1)}G`;
}

export function failureRate(s: SessionDoc): string {
  if (s.tools.failed === null) return UNKNOWN;
  if (s.tools.calls === 0) return '0%';
  return `${Math.round((s.tools.failed / s.tools.calls) * 100)}%`;
}

/** The HOST column's width: a longer machine name is cut (the Info panel and `--json` have it whole). */
const HOST_WIDTH = 10;

/** Every column but the status mark and the project/title, in display order. */
export const COLUMNS: Column[] = [
  // Shown only while some row is another machine's (`--host`); blank for this machine's rows.
  { key: 'host', title: 'HOST', width: HOST_WIDTH, align: 'left', cell: (r) => r.s.host ?? '' },
  {
    key: 'active',
    title: 'LAST',
    width: 4,
    align: 'right',
    cell: (r, now) => ago(ms(r.s.lastActiveAt), now),
  },
  {
    key: 'duration',
    title: 'DUR',
    width: 5,
    align: 'right',
    cell: (r) => {
      const a = ms(r.s.startedAt);
      const b = ms(r.s.lastActiveAt);
      return a === null || b === null ? UNKNOWN : duration(b - a);
    },
  },
  { key: 'cost', title: 'COST', width: 7, align: 'right', cell: (r) => usd(r.s.cost.usd, r.s.cost.included) },
  {
    key: 'cost_hour',
    title: '$/1H',
    width: 6,
    align: 'right',
    cell: (r) => usd(lastHour(r.s), r.s.cost.included),
  },
  {
    key: 'cost_today',
    title: '$/24H',
    width: 7,
    align: 'right',
    cell: (r) => usd(today(r.s), r.s.cost.included),
  },
  {
    key: 'ctx',
    title: 'CTX%',
    width: 4,
    align: 'right',
    cell: (r) => percent(r.s.context.used, r.s.context.compactAt),
  },
  {
    key: 'cpu',
    title: 'CPU%',
    width: 5,
    align: 'right',
    cell: (r) =>
      r.s.process?.cpu === null || r.s.process === null ? UNKNOWN : `${Math.round(r.s.process.cpu)}`,
  },
  {
    key: 'mem',
    title: 'MEM',
    width: 5,
    align: 'right',
    cell: (r) => (r.s.process ? memory(r.s.process.memory) : UNKNOWN),
  },
  { key: 'tools', title: 'TOOLS', width: 5, align: 'right', cell: (r) => String(r.s.tools.calls) },
  { key: 'errors', title: 'ERR%', width: 4, align: 'right', cell: (r) => failureRate(r.s) },
  { key: 'tokens', title: 'TOKENS', width: 6, align: 'right', cell: (r) => tokens(totalTokens(r.s.tokens)) },
  {
    key: 'tok_rate',
    title: 'TOK/M',
    width: 5,
    align: 'right',
    cell: (r) => (r.rate === null ? UNKNOWN : tokens(Math.round(r.rate))),
  },
  { key: 'model', title: 'MODEL', width: 13, align: 'left', cell: (r) => shortModel(r.s.model) },
  {
    key: 'harness',
    title: 'HARNESS',
    width: 7,
    align: 'left',
    cell: (r) => placeById(r.s.provider).label.split(' ')[0]!,
  },
  { key: 'perm', title: 'PERM', width: PERM_WIDTH, align: 'left', cell: (r) => permission(r.s) },
  {
    key: 'branch',
    title: 'BRANCH',
    width: 14,
    align: 'left',
    cell: (r) => (r.s.branch === null ? UNKNOWN : safeLine(r.s.branch)),
  },
];

/** The project/title cell: the project's folder, then the title, as `cctop --list` names a session. */
export const projectTitle = (s: SessionDoc): string => label(s);

/** The narrowest the project/title column gets before other columns are dropped. */
export const MIN_TITLE = 16;

/** Columns that fit `columns` cells, dropping from the right, minus the ones the user hid. */
export function visibleColumns(columns: number, hidden: ReadonlySet<string>): Column[] {
  const wanted = COLUMNS.filter((c) => !hidden.has(c.key));
  // Two for the status mark, then each column and its separator, then the title.
  const budget = columns - 2 - MIN_TITLE;
  const out: Column[] = [];
  let used = 0;
  for (const c of wanted) {
    if (used + c.width + 1 > budget) break;
    out.push(c);
    used += c.width + 1;
  }
  return out;
}

export function hiddenFromEnv(value: string | undefined): Set<string> {
  return new Set(
    (value ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}
