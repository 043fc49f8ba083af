/**
 * `cctop budget`: where each budget in the config file stands this period: what the sessions it
 * selects have spent, against its limit, as a bar and a level. Exits 1 when a budget is exceeded (or
 * the config file cannot be used), for scripts and CI; 0 otherwise, with no budgets set too.
 *
 * Not here: the spend itself (the caller's `SpentOf`, over the index, and other machines' with
 * `--host`: `budget-hosts.ts`) or notifying a crossing (`config/crossings.ts`, for the views that run on).
 */
import {
  type BudgetState,
  budgetStates,
  type Level,
  type LoadedConfig,
  type SpentOf,
} from '../../config/index.js';
import { LocalTime } from '../../model/time.js';
import { home } from '../../providers/fsutil.js';
import { budgetJson } from '../../spend/json.js';
import type { ReportHost } from '../../spend/remote.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import type { Paint } from './color.js';
import { clip, NO_PRICE, padEnd, padStart, percent, tildify, usd, width } from './format.js';
import type { Io } from './main.js';
import { hostsLine } from './spend-hosts.js';

/** The share bar's width: 20 cells is 5% a cell, fine enough to see 80% coming. */
const BAR_CELLS = 20;

/** Budget names are cut to this many cells so the numbers stay in line. */
const NAME_CELLS = 24;

export interface BudgetOptions {
  /** The config, loaded once by the caller (whose `[reports]` zone also made `time`). */
  loaded: LoadedConfig;
  nowMs: number;
  time: LocalTime;
  json: boolean;
  color: Paint;
  /** With other machines (`--host`): how each answered; their spend is in `spentOf`. */
  hosts?: ReportHost[] | null;
}

export function budgetCommand(io: Io, spentOf: SpentOf, o: BudgetOptions): number {
  const { loaded } = o;
  for (const w of loaded.warnings) io.err(`cctop: ${w}`);
  if (loaded.error !== null) {
    io.err(`cctop: ${loaded.error}`);
    return 1;
  }
  const states = budgetStates(
    loaded.config.budgets,
    spentOf,
    o.nowMs,
    o.time,
    loaded.config.reports.startOfWeek,
  );
  const hosts = o.hosts ?? null;
  if (o.json)
    io.out(
      terminalJson({ version: 1, budgets: states.map(budgetJson), ...(hosts === null ? {} : { hosts }) }),
    );
  else if (states.length === 0)
    io.out(
      `No budgets are set. Add a [[budget]] to ${tildify(loaded.path, home(io.env))} (docs/config.md shows how).`,
    );
  else {
    for (const line of budgetLines(states, o.color)) io.out(line);
    if (hosts !== null) io.out(hostsLine(hosts, o.color));
  }
  return states.some((s) => s.level === 'over') ? 1 : 0;
}

/** `daily  day  2025-06-14  $12.30 of $50.00  █████░░░…  25%  ok`, aligned. */
function budgetLines(states: readonly BudgetState[], p: Paint): string[] {
  const nameCells = Math.min(NAME_CELLS, Math.max(...states.map((s) => width(safeLine(s.budget.name)))));
  const rows = states.map((s) => ({
    s,
    days:
      s.fromDay === s.toDay
        ? LocalTime.dayKey(s.fromDay)
        : `${LocalTime.dayKey(s.fromDay)} → ${LocalTime.dayKey(s.toDay)}`,
    spent: `${s.spentUsd === null ? NO_PRICE : usd(s.spentUsd)} of ${usd(s.budget.usd)}`,
  }));
  const daysCells = Math.max(...rows.map((r) => width(r.days)));
  const spentCells = Math.max(...rows.map((r) => width(r.spent)));
  return rows.map(({ s, days, spent }) =>
    [
      p.bold(padEnd(safeLine(s.budget.name), nameCells)),
      padEnd(s.budget.period, 5),
      padEnd(days, daysCells),
      padStart(spent, spentCells),
      bar(s.share, s.level, p),
      padStart(percent(s.spentUsd, s.budget.usd), 4),
      // With nothing priced, `ok` is only what is known: it is dimmed, not green.
      (s.spentUsd === null ? p.dim : tint(s.level, p))(s.level),
    ].join('  '),
  );
}

/**
 * Every budget on one line, for the foot of `cctop --list`: `budgets: month $120 of $1,000 12% ·
 * claude daily $19 of $20 95%`, each tinted by its level.
 */
export function budgetSummary(states: readonly BudgetState[], p: Paint): string {
  const parts = states.map((s) => {
    const spent = s.spentUsd === null ? NO_PRICE : usd(s.spentUsd);
    const text = `${clip(safeLine(s.budget.name), NAME_CELLS)} ${spent} of ${usd(s.budget.usd)} ${percent(s.spentUsd, s.budget.usd)}`;
    return (s.spentUsd === null ? p.dim : tint(s.level, p))(text);
  });
  return `${p.dim('budgets:')} ${parts.join(p.dim(' · '))}`;
}

function tint(level: Level, p: Paint): (s: string) => string {
  switch (level) {
    case 'ok':
      return p.green;
    case 'near':
      return p.amber;
    case 'over':
      return p.red;
  }
}

/** The share of the limit as filled cells, full at 100% and beyond; dim dashes when it is unknown. */
function bar(share: number | null, level: Level, p: Paint): string {
  if (share === null) return p.dim('─'.repeat(BAR_CELLS));
  const filled = Math.min(BAR_CELLS, Math.round(share * BAR_CELLS));
  return tint(level, p)('█'.repeat(filled)) + p.dim('░'.repeat(BAR_CELLS - filled));
}
