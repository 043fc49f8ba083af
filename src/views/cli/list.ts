/**
 * `cctop --list`: every session as a readable table, grouped by harness, newest activity first,
 * that fits the terminal (80 columns when there is none). Every field from a transcript is made safe
 * to print (`../terminal-text.ts`) before it is measured, and every line once more before it is returned.
 */
import { basename } from 'node:path';
import { shortIds } from '../../index/find.js';
import type { Plan, SessionContext, SessionDoc, SessionDocument } from '../../model/document.js';
import type { ProviderId } from '../../model/facts.js';
import type { QuotaFigure } from '../../model/quota.js';
import type { SessionState, StateSource } from '../../model/state.js';
import { PLACE_LIST } from '../../providers/places.js';
import { type Column, type ColumnKey, cells, columnsOf, SESSION_COLUMNS } from '../columns.js';
import { quotaBrief } from '../quota-brief.js';
import { safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import { counted, NO_PRICE, padEnd, padStart, percent, shortModel, usd } from './format.js';
import { fitOf, type ListPlan, layoutList, type PlannedGroup } from './list-layout.js';

// Other views name the marks the list shows.
export { STATE_MARK } from './list-layout.js';

/** The columns `--list` shows, from the one set every session table picks from (`../columns.ts`). */
const LIST_KEYS: readonly ColumnKey[] = ['id', 'active', 'duration', 'cost', 'tokens', 'ctx', 'model'];

/** The project's folder and the title, the way a row names its session; safe to print. */
export function label(s: Pick<SessionDoc, 'project' | 'title' | 'id'>): string {
  const project = s.project ? safeLine(basename(s.project)) : null;
  const title = s.title ? safeLine(s.title) : null;
  if (project && title) return `${project} · ${title}`;
  return project ?? title ?? safeLine(s.id);
}

/** The widest host name the HOST column shows; a longer one is cut (`--json` has it whole). */
const HOST_CELLS = 12;

/**
 * A row of the list as the table reads it: a session document, or what the warm snapshot keeps of
 * one (`ListFacts`), which prints the same cells without the document being built.
 */
export interface ListRow {
  provider: ProviderId;
  id: string;
  host: string | undefined;
  state: SessionState;
  stateSource: StateSource;
  usd: number | null;
  included: boolean;
  /** Whether some of its tokens are on a model without a price (else no price means no usage). */
  unpriced: boolean;
  /** The PROJECT · TITLE cell, safe to print. */
  label(): string;
  /** When it was last active (UTC ms), what its LAST cell reads; null (or NaN) when unknown. */
  activeMs(): number | null;
  cell(c: Column, short: string, nowMs: number): string;
}

/**
 * What `--list` shows of a session beyond its live fields and its tally: the facts its cells read,
 * small enough for the warm snapshot to keep beside each session.
 */
export interface ListFacts {
  provider: ProviderId;
  id: string;
  project: string | null;
  title: string | null;
  lastActiveAt: string | null;
  startedAt: string | null;
  model: string | null;
  usd: number | null;
  included: boolean;
  /** All its tokens (`totalTokens`), null when none was counted. */
  tokens: number | null;
  /** Whether it used a model without a price (`index/held.ts` `anyUnpriced`, as `cost.unpriced` reads). */
  unpriced: boolean;
  context: Pick<SessionContext, 'used' | 'compactAt'>;
}

const msOf = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

const rowOfDoc = (s: SessionDoc): ListRow => ({
  provider: s.provider,
  id: s.id,
  host: s.host,
  state: s.state,
  stateSource: s.stateSource,
  usd: s.cost.usd,
  included: s.cost.included,
  unpriced: s.cost.unpriced.length > 0,
  // An agent `cctop run` holds says so before its title (`cctop attach` takes it back); a list is
  // not printed from the warm snapshot while `cctop run` holds any agent (`root-lists.ts`).
  label: () => (s.process?.cctopRun ? '[cctop run] ' : '') + label(s),
  activeMs: () => msOf(s.lastActiveAt),
  cell: (c, short, nowMs) => c.cell({ s, rate: null, short }, nowMs),
});

/**
 * A row from kept facts and the live fields joined now; its cells are the columns' own (`cells`).
 * `cctopRun`: `cctop run` holds it (its label says so, as `rowOfDoc`'s).
 */
export function rowOfFacts(
  f: ListFacts,
  live: Pick<SessionDoc, 'state' | 'stateSource'> & { cctopRun?: boolean },
): ListRow {
  return {
    provider: f.provider,
    id: f.id,
    host: undefined,
    state: live.state,
    stateSource: live.stateSource,
    usd: f.usd,
    included: f.included,
    unpriced: f.unpriced,
    label: () => (live.cctopRun === true ? '[cctop run] ' : '') + label(f),
    activeMs: () => msOf(f.lastActiveAt),
    cell: (c, short, nowMs) => factsCell(c.key, f, short, nowMs),
  };
}

function factsCell(key: ColumnKey, f: ListFacts, short: string, nowMs: number): string {
  switch (key) {
    case 'id':
      return cells.id(f.id, short);
    case 'active':
      return cells.active(f.lastActiveAt, nowMs);
    case 'duration':
      return cells.duration(f.startedAt, f.lastActiveAt);
    case 'cost':
      return usd(f.usd, f.included);
    case 'tokens':
      return cells.tokens(f.tokens);
    case 'ctx':
      return percent(f.context.used, f.context.compactAt);
    case 'model':
      return shortModel(f.model);
    case 'host':
      return '';
    // Not among `LIST_KEYS`: the kept facts do not hold what these read.
    case 'cost_hour':
    case 'cost_today':
    case 'cpu':
    case 'mem':
    case 'tools':
    case 'errors':
    case 'tok_rate':
    case 'harness':
    case 'perm':
    case 'branch':
      throw new Error(`--list from kept facts has no ${key} column`);
  }
}

/**
 * The columns of this list: HOST only when some row comes from another machine (`--host`), as wide
 * as its longest name; ID as wide as the short ids.
 */
function shownColumns(rows: readonly ListRow[], idLength: number): Column[] {
  const names = rows.flatMap((s) => (s.host === undefined ? [] : [safeLine(s.host)]));
  const host: Column[] =
    names.length === 0
      ? []
      : [
          {
            ...SESSION_COLUMNS.host,
            width: Math.min(HOST_CELLS, Math.max(4, ...names.map((n) => n.length))),
          },
        ];
  return [
    ...host,
    ...columnsOf(LIST_KEYS).map((c) =>
      c.key === 'id' ? { ...c, width: Math.max(c.title.length, idLength) } : c,
    ),
  ];
}

/** The table as lines, for a terminal `columns` wide. */
export function renderList(
  doc: SessionDocument,
  columns: number,
  p: Paint,
  nowMs: number,
  /** The accounts' quota (`cctop quota`), shown in its harness's heading; none when not asked for. */
  quota: readonly QuotaFigure[] = [],
): string[] {
  return renderRows(doc.sessions.map(rowOfDoc), doc.plan, columns, p, nowMs, quota);
}

/** The table of `rows` (in the document's order) as lines, for a terminal `columns` wide. */
export function renderRows(
  all: readonly ListRow[],
  plan: Plan,
  columns: number,
  p: Paint,
  nowMs: number,
  quota: readonly QuotaFigure[] = [],
): string[] {
  return layoutList(planRows(all, plan, quota), columns, p, nowMs);
}

/**
 * The table of `rows` (in the document's order) printed but for the width, the states and the ages
 * (`list-layout.ts` lays it out): what the warm document keeps of a list.
 */
export function planRows(all: readonly ListRow[], plan: Plan, quota: readonly QuotaFigure[] = []): ListPlan {
  const short = shortIds(all);
  const shown = shownColumns(all, short.length);
  const fixed = 2 + 3 + shown.reduce((n, c) => n + c.width + 1, 0);
  const header = `  ${padEnd('', 2)} ${shown.map((c) => (c.align === 'right' ? padStart(c.title, c.width) : padEnd(c.title, c.width))).join(' ')} PROJECT · TITLE`;
  const activeAt = shown.findIndex((c) => c.key === 'active');
  const active = shown[activeAt];
  const groups: PlannedGroup[] = [];
  for (const provider of PLACE_LIST) {
    const rows = all.filter((s) => s.provider === provider.id);
    if (rows.length === 0) continue;
    const spent = rows.reduce((n, s) => n + (s.usd ?? 0), 0);
    const anyPriced = rows.some((s) => s.usd !== null);
    const allIncluded = rows.every((s) => s.included || s.usd === null);
    const money = anyPriced
      ? allIncluded
        ? `${usd(spent)} included in plan`
        : `${usd(spent)} ${plan === 'retail' ? 'est.' : ''}`.trim()
      : rows.some((s) => s.unpriced)
        ? NO_PRICE
        : 'no usage recorded';
    groups.push({
      heading: `${provider.label} — ${counted(rows.length, 'session')} · ${money}`,
      brief: quotaBrief(quota, provider.id),
      rows: rows.map((s) => {
        const id = short.of(s.id);
        const label = s.label();
        return {
          state: s.state,
          stateSource: s.stateSource,
          // The LAST cell moves with the clock: laid out with it.
          cells: shown.map((c) => {
            if (c.key === 'active') return '';
            const v = s.cell(c, id, 0);
            return c.align === 'right' ? padStart(v, c.width) : padEnd(v, c.width);
          }),
          activeMs: s.activeMs(),
          label,
          fit: fitOf(label),
        };
      }),
    });
  }
  return {
    header,
    fixed,
    active: active === undefined ? [-1, 0, false] : [activeAt, active.width, active.align === 'right'],
    groups,
  };
}
