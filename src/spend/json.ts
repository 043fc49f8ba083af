/**
 * The spend reports as JSON (docs/reports.md): what `cctop daily|weekly|monthly|blocks|spend --json`
 * print and what `cctop serve`'s `/api/spend` answers, built by the same functions so the page and
 * the commands cannot drift apart. Each builder takes a report from `periods.ts`, `blocks.ts`,
 * `where.ts` or a budget's state and only renames and stamps it: times become ISO strings, the
 * document says its version, when it was made and under which plan.
 *
 * Not here: computing anything (the reports do), printing it (`JSON.stringify` is the caller's), or
 * choosing which rows to keep (`--order`, `--active`, the page's last blocks are the caller's).
 */
import type { BudgetState, Level } from '../config/budgets.js';
import type { Period } from '../config/types.js';
import type { StartOfWeek } from '../model/calendar.js';
import type { Plan } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import { bundledBy } from '../providers/places.js';
import type { Block, HourCells } from './blocks.js';
import type { PeriodReport, PeriodRow, SplitBy } from './periods.js';
import type { SpendTally } from './tally.js';
import type { Ranked, Span, WhereReport } from './where.js';

/** The version of the reports' JSON (docs/reports.md): bumped when a field changes meaning or goes. */
export const REPORTS_VERSION = 1;

export type PeriodCommand = 'daily' | 'weekly' | 'monthly';

/** Whether `--plan` bundles a harness's usage (what it shows as paid is retail less this). */
export const includedBy =
  (plan: Plan) =>
  (provider: ProviderId): boolean =>
    bundledBy(plan, provider);

const iso = (ms: number): string => new Date(ms).toISOString();

/** `cctop daily|weekly|monthly --json`. */
export interface PeriodsJson {
  version: number;
  report: PeriodCommand;
  generatedAt: string;
  timeZone: string;
  startOfWeek: StartOfWeek;
  plan: Plan;
  by: SplitBy | null;
  periods: PeriodRow[];
  totals: SpendTally;
}

export function periodsJson(
  r: PeriodReport,
  o: { report: PeriodCommand; nowMs: number; timeZone: string; startOfWeek: StartOfWeek; plan: Plan },
): PeriodsJson {
  return {
    version: REPORTS_VERSION,
    report: o.report,
    generatedAt: iso(o.nowMs),
    timeZone: o.timeZone,
    startOfWeek: o.startOfWeek,
    plan: o.plan,
    by: r.by,
    periods: r.periods,
    totals: r.totals,
  };
}

type BlockOnly = Block & { kind: 'block' };

/** A block with its times as ISO strings; a gap is only its span. */
export type BlockJson =
  | { kind: 'gap'; start: string; end: string }
  | (Omit<BlockOnly, 'startMs' | 'endMs' | 'firstMs' | 'lastMs'> & {
      start: string;
      end: string;
      firstRequest: string;
      lastRequest: string;
    });

export function blockJson(b: Block): BlockJson {
  if (b.kind === 'gap') return { kind: 'gap', start: iso(b.startMs), end: iso(b.endMs) };
  const { kind, startMs, endMs, firstMs, lastMs, ...rest } = b;
  return {
    kind,
    start: iso(startMs),
    end: iso(endMs),
    firstRequest: iso(firstMs),
    lastRequest: iso(lastMs),
    ...rest,
  };
}

/** `cctop blocks --json`. */
export interface BlocksJson {
  version: number;
  report: 'blocks';
  generatedAt: string;
  plan: Plan;
  tokenLimit: number | null;
  blocks: BlockJson[];
  /** With `--hours`: every hour's requests per model (retail), for another machine to merge. */
  hours?: HourJson[];
}

/** One UTC hour of requests (`--hours`): what another machine cuts its blocks from. */
export interface HourJson {
  hour: string;
  firstRequest: string;
  lastRequest: string;
  cells: HourCells['cells'];
}

export const hourJson = (h: HourCells): HourJson => ({
  hour: iso(h.hour),
  firstRequest: iso(h.firstMs),
  lastRequest: iso(h.lastMs),
  // Unrounded: a machine that sums them with its own gets what one machine would have.
  cells: h.cells,
});

export function blocksJson(
  blocks: readonly Block[],
  o: { nowMs: number; plan: Plan; tokenLimit: number | null; hours?: readonly HourCells[] },
): BlocksJson {
  return {
    version: REPORTS_VERSION,
    report: 'blocks',
    generatedAt: iso(o.nowMs),
    plan: o.plan,
    tokenLimit: o.tokenLimit,
    blocks: blocks.map(blockJson),
    ...(o.hours === undefined ? {} : { hours: o.hours.map(hourJson) }),
  };
}

/** `cctop spend --json`. */
export interface WhereJson {
  version: number;
  report: 'spend';
  generatedAt: string;
  timeZone: string;
  plan: Plan;
  period: Span & { unit: WhereReport['unit'] };
  previous: Span;
  total: SpendTally;
  previousTotal: SpendTally;
  projects: Ranked[];
  models: Ranked[];
  harnesses: Ranked[];
  /** A request's figures shared evenly by the tools it called (`(none)`, `(unknown)` as `--by tool`). */
  tools: Ranked[];
}

export function whereJson(r: WhereReport, o: { nowMs: number; timeZone: string; plan: Plan }): WhereJson {
  return {
    version: REPORTS_VERSION,
    report: 'spend',
    generatedAt: iso(o.nowMs),
    timeZone: o.timeZone,
    plan: o.plan,
    period: { unit: r.unit, ...r.period },
    previous: r.previous,
    total: r.total,
    previousTotal: r.previousTotal,
    projects: r.ranked.project,
    models: r.ranked.model,
    harnesses: r.ranked.harness,
    tools: r.ranked.tool,
  };
}

/** One budget: its settings, its period's days and where it stands (as `cctop budget --json`). */
export interface BudgetJson {
  name: string;
  period: Period;
  /** The period's first and last local day, `YYYY-MM-DD`. */
  from: string;
  to: string;
  limitUsd: number;
  /** Retail; null when nothing it selects could be priced (unknown, not $0). */
  spentUsd: number | null;
  share: number | null;
  level: Level;
  project: string | null;
  harness: ProviderId | null;
}

export function budgetJson(s: BudgetState): BudgetJson {
  const { budget: b } = s;
  return {
    name: b.name,
    period: b.period,
    from: LocalTime.dayKey(s.fromDay),
    to: LocalTime.dayKey(s.toDay),
    limitUsd: b.usd,
    spentUsd: s.spentUsd,
    share: s.share,
    level: s.level,
    project: b.project,
    harness: b.harness,
  };
}
