/**
 * The columns of a session row, declared once: each one's header, width, alignment and cell. Every
 * view that draws sessions as a table picks from this set by key (`cctop --list` a few, the live
 * table most of them), so a new column is one entry here and one key in the views that want it.
 *
 * A cell that shows a transcript's words (model, branch, permission mode, host) shows them made safe
 * to print. Not here: which columns a view shows, the status mark and the project/title column, or
 * colour (each view's own).
 */
import type { SessionDoc } from '../model/document.js';
import { totalTokens } from '../model/usage.js';
import { placeById } from '../providers/places.js';
import { ago, duration, percent, shortModel, tokens, UNKNOWN, usd } from './cli/format.js';
import { safeLine } from './terminal-text.js';

/** A session as a table row: the document, and what only some views know about it. */
export interface Row {
  s: SessionDoc;
  /** Smoothed tokens per minute, when two refreshes of the live table have seen it. */
  rate: number | null;
  /** The short id the ID column shows (`shortIds` in `index/find.ts`), where the view has one. */
  short?: string;
}

export interface Column {
  key: ColumnKey;
  title: string;
  width: number;
  align: 'left' | 'right';
  cell(r: Row, now: number): string;
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/**
 * The cells a row computes from a few facts, apart so that a view holding those facts without the
 * document (`cctop --list` from the warm snapshot) prints them the same.
 */
export const cells = {
  id: (id: string, short: string | undefined) => safeLine(short ?? id.slice(0, ID_WIDTH)),
  active: (lastActiveAt: string | null, now: number) => ago(ms(lastActiveAt), now),
  duration: (startedAt: string | null, lastActiveAt: string | null) => {
    const a = ms(startedAt);
    const b = ms(lastActiveAt);
    return a === null || b === null ? UNKNOWN : duration(b - a);
  },
  tokens: (total: number | null) => tokens(total),
};

/** The PERM column: as wide as its widest word, `BYPASS` (`read-only` is shown as `ro` to fit). */
export const PERM_WIDTH = 6;

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

/**
 * The HOST column's width: a longer machine name is cut (the Info panel and `--json` have it whole).
 * A view may narrow it to its widest name.
 */
export const HOST_WIDTH = 10;

/** The ID column's width before a view fits it to its short ids (`shortIds`: at least four). */
const ID_WIDTH = 8;

/** Every column of a session row, in the order the views draw them. */
export const SESSION_COLUMNS = {
  // Shown only while some row is another machine's (`--host`); blank for this machine's rows.
  host: {
    key: 'host',
    title: 'HOST',
    width: HOST_WIDTH,
    align: 'left',
    cell: (r) => (r.s.host === undefined ? '' : safeLine(r.s.host)),
  },
  id: {
    key: 'id',
    title: 'ID',
    width: ID_WIDTH,
    align: 'left',
    cell: (r) => cells.id(r.s.id, r.short),
  },
  active: {
    key: 'active',
    title: 'LAST',
    width: 4,
    align: 'right',
    cell: (r, now) => cells.active(r.s.lastActiveAt, now),
  },
  duration: {
    key: 'duration',
    title: 'DUR',
    width: 5,
    align: 'right',
    cell: (r) => cells.duration(r.s.startedAt, r.s.lastActiveAt),
  },
  cost: {
    key: 'cost',
    title: 'COST',
    width: 7,
    align: 'right',
    cell: (r) => usd(r.s.cost.usd, r.s.cost.included),
  },
  cost_hour: {
    key: 'cost_hour',
    title: '$/1H',
    width: 6,
    align: 'right',
    cell: (r) => usd(lastHour(r.s), r.s.cost.included),
  },
  cost_today: {
    key: 'cost_today',
    title: '$/24H',
    width: 7,
    align: 'right',
    cell: (r) => usd(today(r.s), r.s.cost.included),
  },
  ctx: {
    key: 'ctx',
    title: 'CTX%',
    width: 4,
    align: 'right',
    cell: (r) => percent(r.s.context.used, r.s.context.compactAt),
  },
  cpu: {
    key: 'cpu',
    title: 'CPU%',
    width: 5,
    align: 'right',
    cell: (r) =>
      r.s.process?.cpu === null || r.s.process === null ? UNKNOWN : `${Math.round(r.s.process.cpu)}`,
  },
  mem: {
    key: 'mem',
    title: 'MEM',
    width: 5,
    align: 'right',
    cell: (r) => (r.s.process ? memory(r.s.process.memory) : UNKNOWN),
  },
  tools: { key: 'tools', title: 'TOOLS', width: 5, align: 'right', cell: (r) => String(r.s.tools.calls) },
  errors: { key: 'errors', title: 'ERR%', width: 4, align: 'right', cell: (r) => failureRate(r.s) },
  tokens: {
    key: 'tokens',
    title: 'TOKENS',
    width: 6,
    align: 'right',
    cell: (r) => cells.tokens(totalTokens(r.s.tokens)),
  },
  tok_rate: {
    key: 'tok_rate',
    title: 'TOK/M',
    width: 5,
    align: 'right',
    cell: (r) => (r.rate === null ? UNKNOWN : tokens(Math.round(r.rate))),
  },
  model: { key: 'model', title: 'MODEL', width: 13, align: 'left', cell: (r) => shortModel(r.s.model) },
  harness: {
    key: 'harness',
    title: 'HARNESS',
    width: 7,
    align: 'left',
    cell: (r) => placeById(r.s.provider).label.split(' ')[0]!,
  },
  perm: { key: 'perm', title: 'PERM', width: PERM_WIDTH, align: 'left', cell: (r) => permission(r.s) },
  branch: {
    key: 'branch',
    title: 'BRANCH',
    width: 14,
    align: 'left',
    cell: (r) => (r.s.branch === null ? UNKNOWN : safeLine(r.s.branch)),
  },
} as const satisfies Record<string, { key: string } & Omit<Column, 'key'>>;

export type ColumnKey = keyof typeof SESSION_COLUMNS;

/** The columns named by `keys`, in that order. */
export const columnsOf = (keys: readonly ColumnKey[]): Column[] => keys.map((k) => SESSION_COLUMNS[k]);
