/**
 * "Where did the money go" (`cctop spend`): for one period, the projects, models, harnesses and
 * tools ranked by cost (a request's cost shared evenly by the tools it called, as `--by tool` does),
 * each with its share of the period and its cost in the period before, so a change shows at once. Pure, over the same usage cells and tally as the period reports.
 *
 * The period is the day, week or month holding now (or `--since`/`--until` when given); the period
 * before is the one of the same kind just before it (for a range that is a whole month or week, the
 * one before it; for any other range, the same number of days before).
 */

import { type PeriodUnit, periodEnd, periodStart, type StartOfWeek } from '../model/calendar.js';
import type { ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { addGroups, byCost, settledShares } from './periods.js';
import { addCell, emptyTally, type SpendTally, settled } from './tally.js';

export type Dimension = 'project' | 'model' | 'harness' | 'tool';
export const DIMENSIONS: readonly Dimension[] = ['project', 'model', 'harness', 'tool'];

export interface Ranked extends SpendTally {
  key: string;
  /** Of the period's retail cost, 0 to 1; null when the period has no price. */
  share: number | null;
  /** The same key's cost in the period before (null: nothing priced there). */
  previousUsd: number | null;
}

export interface Span {
  from: string;
  to: string;
}

export interface WhereReport {
  unit: PeriodUnit | 'range';
  period: Span;
  previous: Span;
  total: SpendTally;
  previousTotal: SpendTally;
  ranked: Record<Dimension, Ranked[]>;
}

export interface WhereOptions {
  unit: PeriodUnit;
  startOfWeek: StartOfWeek;
  today: number;
  /** An explicit range (local day numbers, inclusive) instead of the period holding today. */
  fromDay: number | null;
  toDay: number | null;
  included: (provider: ProviderId) => boolean;
}

interface Days {
  from: number;
  to: number;
}

function spans(o: WhereOptions): { now: Days; before: Days } {
  if (o.fromDay !== null || o.toDay !== null) {
    const from = o.fromDay ?? o.toDay!;
    const to = o.toDay ?? o.today;
    // A range that is a whole month (or week) is compared with the whole one before it.
    for (const unit of ['month', 'week'] as const) {
      if (periodStart(from, unit, o.startOfWeek) === from && periodEnd(from, unit) === to)
        return {
          now: { from, to },
          before: { from: periodStart(from - 1, unit, o.startOfWeek), to: from - 1 },
        };
    }
    const length = to - from + 1;
    return { now: { from, to }, before: { from: from - length, to: from - 1 } };
  }
  const start = periodStart(o.today, o.unit, o.startOfWeek);
  const before = periodStart(start - 1, o.unit, o.startOfWeek);
  return { now: { from: start, to: periodEnd(start, o.unit) }, before: { from: before, to: start - 1 } };
}

type Sums = Record<Dimension, Map<string, SpendTally>>;

function sumsOf(
  sessions: readonly SessionUsage[],
  days: Days,
  o: WhereOptions,
): { total: SpendTally; by: Sums } {
  const total = emptyTally();
  const by: Sums = { project: new Map(), model: new Map(), harness: new Map(), tool: new Map() };
  for (const s of sessions) {
    const included = o.included(s.provider);
    for (const c of s.cells) {
      if (c.day < days.from || c.day > days.to) continue;
      addCell(total, c, included);
      for (const d of DIMENSIONS) addGroups(by[d], d, s, c, included);
    }
  }
  return { total, by };
}

export function whereReport(sessions: readonly SessionUsage[], o: WhereOptions): WhereReport {
  const { now, before } = spans(o);
  const current = sumsOf(sessions, now, o);
  const previous = sumsOf(sessions, before, o);
  const totalUsd = current.total.cost.usd;
  const ranked = {} as Record<Dimension, Ranked[]>;
  for (const d of DIMENSIONS) {
    ranked[d] = [...current.by[d]]
      .map(([key, t]) => {
        // A tool's figures are its shares of the requests that called it (see periods.ts).
        const s = d === 'tool' ? settledShares({ key, ...settled(t) }) : settled(t);
        const share =
          totalUsd === null || totalUsd === 0 || s.cost.usd === null ? null : s.cost.usd / totalUsd;
        const previousUsd = settled(previous.by[d].get(key) ?? emptyTally()).cost.usd;
        return { key, ...s, share, previousUsd };
      })
      .sort(byCost);
  }
  return {
    unit: o.fromDay !== null || o.toDay !== null ? 'range' : o.unit,
    period: { from: LocalTime.dayKey(now.from), to: LocalTime.dayKey(now.to) },
    previous: { from: LocalTime.dayKey(before.from), to: LocalTime.dayKey(before.to) },
    total: settled(current.total),
    previousTotal: settled(previous.total),
    ranked,
  };
}
