/**
 * Spend per day, week or month (`cctop daily|weekly|monthly`): every session's usage cells summed per
 * local period, optionally split by harness, model, project or tool, with a per-model breakdown, and
 * one totals row. Pure: it is given the cells and the clock and returns the rows; printing is elsewhere
 * (`views/cli/spend-table.ts`, the page's Spend screen).
 *
 * Periods are local: a day is a day of the build's zone (`--timezone`), a week starts on the chosen
 * weekday and is named by its first day, a month by `YYYY-MM`. A period with no request has no row.
 *
 * Split by tool, a request's cost, total tokens and count are shared evenly by the tools it called
 * (`(none)` for a request that called none, `(unknown)` where its harness does not say), so the
 * groups still sum to the period. A tool group knows its total tokens, not their kinds (its five
 * token fields are null), and its requests and tokens are shares: rounded when printed (tokens to
 * whole ones, requests to a thousandth), so those sum to the period's up to that rounding.
 */
import { type PeriodUnit, periodEnd, periodStart, type StartOfWeek } from '../model/calendar.js';
import type { ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import { type SessionUsage, type ToolShare, toolShares, type UsageCell } from '../model/usage-cells.js';
import { addCell, addTally, emptyTally, type SpendTally, settled } from './tally.js';

export type SplitBy = 'harness' | 'model' | 'project' | 'tool';

export interface PeriodOptions {
  unit: PeriodUnit;
  startOfWeek: StartOfWeek;
  by: SplitBy | null;
  breakdown: boolean;
  /** Local day numbers, inclusive; null for no bound. */
  fromDay: number | null;
  toDay: number | null;
  /** Whether the plan bundles a harness's usage (`--plan`). */
  included: (provider: ProviderId) => boolean;
}

export interface Group extends SpendTally {
  /**
   * The harness id, model name, project path or tool name; `(none)` for a session without a project
   * or a request that called no tool, `(unknown)` for requests whose harness does not say.
   */
  key: string;
}

export interface PeriodRow extends SpendTally {
  /** `YYYY-MM-DD` (a day, or a week's first day) or `YYYY-MM`. */
  period: string;
  /** The period's first and last local day, `YYYY-MM-DD`. */
  from: string;
  to: string;
  models: string[];
  /** With `by`: the period split, most expensive first; the groups sum to the period. */
  groups?: Group[];
  /** With `breakdown`: per model, most expensive first. */
  breakdown?: Group[];
}

export interface PeriodReport {
  unit: PeriodUnit;
  by: SplitBy | null;
  /** Oldest first. */
  periods: PeriodRow[];
  totals: SpendTally;
}

export const NO_PROJECT = '(none)';

const periodName = (start: number, unit: PeriodUnit): string =>
  unit === 'month' ? LocalTime.dayKey(start).slice(0, 7) : LocalTime.dayKey(start);

function groupKey(by: Exclude<SplitBy, 'tool'>, s: SessionUsage, c: UsageCell): string {
  switch (by) {
    case 'harness':
      return s.provider;
    case 'model':
      return c.model;
    case 'project':
      return s.project ?? NO_PROJECT;
  }
}

/** Add one tool's share of cell `c` into its group, as `addCell` adds a whole cell. */
function addShare(into: Map<string, SpendTally>, share: ToolShare, c: UsageCell, included: boolean): void {
  let t = into.get(share.tool);
  if (t === undefined) {
    t = emptyTally();
    into.set(share.tool, t);
  }
  t.requests += share.requests;
  t.totalTokens = (t.totalTokens ?? 0) + share.tokens;
  // Priced or not as its cell is, so the groups' cost and unpriced tokens sum to the period's.
  if (c.usd === null) {
    t.cost.unpricedTokens += share.tokens;
    return;
  }
  t.cost.usd = (t.cost.usd ?? 0) + share.usd;
  t.cost.included = (t.cost.included ?? 0) + (included ? share.usd : 0);
}

/** Split `c` into `groups` by `by` (the periods here, `cctop spend`'s ranking in `where.ts`). */
export function addGroups(
  groups: Map<string, SpendTally>,
  by: SplitBy,
  s: SessionUsage,
  c: UsageCell,
  included: boolean,
): void {
  if (by === 'tool') for (const share of toolShares(c)) addShare(groups, share, c, included);
  else add(groups, groupKey(by, s, c), c, included);
}

/** A tool group as printed: its shares rounded (see the module comment). */
export function settledShares(g: Group): Group {
  return {
    ...g,
    requests: Math.round(g.requests * 1000) / 1000,
    totalTokens: g.totalTokens === null ? null : Math.round(g.totalTokens),
    cost: { ...g.cost, unpricedTokens: Math.round(g.cost.unpricedTokens) },
  };
}

interface Building {
  start: number;
  tally: SpendTally;
  models: Set<string>;
  groups: Map<string, SpendTally>;
  breakdown: Map<string, SpendTally>;
}

function add(into: Map<string, SpendTally>, key: string, c: UsageCell, included: boolean): void {
  let t = into.get(key);
  if (t === undefined) {
    t = emptyTally();
    into.set(key, t);
  }
  addCell(t, c, included);
}

/** Most expensive first; unpriced after priced, then by tokens, then by name. */
export function byCost(a: Group, b: Group): number {
  const au = a.cost.usd ?? -1;
  const bu = b.cost.usd ?? -1;
  if (au !== bu) return bu - au;
  const at = a.totalTokens ?? 0;
  const bt = b.totalTokens ?? 0;
  if (at !== bt) return bt - at;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

const groupsOf = (m: Map<string, SpendTally>): Group[] =>
  [...m].map(([key, t]) => ({ key, ...settled(t) })).sort(byCost);

/** The report over `sessions`' cells. */
export function periodReport(sessions: readonly SessionUsage[], o: PeriodOptions): PeriodReport {
  const periods = new Map<number, Building>();
  const totals = emptyTally();
  for (const s of sessions) {
    const included = o.included(s.provider);
    for (const c of s.cells) {
      if ((o.fromDay !== null && c.day < o.fromDay) || (o.toDay !== null && c.day > o.toDay)) continue;
      const start = periodStart(c.day, o.unit, o.startOfWeek);
      let p = periods.get(start);
      if (p === undefined) {
        p = { start, tally: emptyTally(), models: new Set(), groups: new Map(), breakdown: new Map() };
        periods.set(start, p);
      }
      addCell(p.tally, c, included);
      p.models.add(c.model);
      if (o.by !== null) addGroups(p.groups, o.by, s, c, included);
      if (o.breakdown) add(p.breakdown, c.model, c, included);
    }
  }
  const rows: PeriodRow[] = [];
  for (const p of [...periods.values()].sort((a, b) => a.start - b.start)) {
    addTally(totals, p.tally);
    const row: PeriodRow = {
      period: periodName(p.start, o.unit),
      from: LocalTime.dayKey(p.start),
      to: LocalTime.dayKey(periodEnd(p.start, o.unit)),
      ...settled(p.tally),
      models: [...p.models].sort(),
    };
    if (o.by !== null)
      row.groups = o.by === 'tool' ? groupsOf(p.groups).map(settledShares) : groupsOf(p.groups);
    if (o.breakdown) row.breakdown = groupsOf(p.breakdown);
    rows.push(row);
  }
  return { unit: o.unit, by: o.by, periods: rows, totals: settled(totals) };
}
