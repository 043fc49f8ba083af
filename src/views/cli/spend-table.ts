/**
 * The spend reports as a terminal prints them: a row per period (or block, or ranked key) with a bar
 * that shows cost at a glance, a totals row, and the split or per-model lines indented below their
 * period. Text only: the reports are computed in `src/spend/`, and `--json` prints them as they are.
 *
 * Names (models, projects) come from transcripts: `safeLine` (through `tildify`, `shortModel` and
 * the padding helpers) strips anything a terminal would act on before a name is printed.
 */

import { money as money6 } from '../../model/money.js';
import type { LocalTime } from '../../model/time.js';
import type { Block, BlockReport } from '../../spend/blocks.js';
import type { Group, PeriodReport, PeriodRow } from '../../spend/periods.js';
import type { SpendTally } from '../../spend/tally.js';
import { DIMENSIONS, type Dimension, type Ranked, type WhereReport } from '../../spend/where.js';
import { safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import {
  duration,
  localClock,
  NO_PRICE,
  padEnd,
  padStart,
  shortModel,
  shortPath,
  tokens,
  UNKNOWN,
  usd,
  width,
  zoneName,
} from './format.js';

/** Cells of the cost bar; a full bar is the most expensive row shown. */
const BAR_CELLS = 16;
/** The period column, wide enough for a split's `  └ sonnet-4.5` under it. */
const LABEL = 18;
/** The compact layout fits a terminal this wide. */
export const COMPACT_COLUMNS = 80;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** `share` (0 to 1) of `cells` as a bar of eighth blocks. */
export function bar(share: number, cells = BAR_CELLS): string {
  const eighths = Math.round(Math.max(0, Math.min(1, share)) * cells * 8);
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

export interface TableStyle {
  paint: Paint;
  compact: boolean;
  home: string;
  /** Show what is paid (`--plan`): the retail cost less what the plan bundles. */
  paid: boolean;
  /** The terminal's width: a line that would pass it is laid out on two. */
  columns: number;
  /** The zone times are shown in (`--timezone`, or the system's). */
  time: LocalTime;
}

const money = (t: SpendTally, paid: boolean): string => {
  const u = t.cost.usd;
  if (u === null) return t.cost.unpricedTokens > 0 ? NO_PRICE : UNKNOWN;
  if (!paid) return usd(u);
  const included = t.cost.included ?? 0;
  // All of it in the plan: `incl`, as `--list` says, not a $0 beside a bar of what it would cost.
  return usd(money6(u - included), included > 0 && money6(u - included) === 0);
};

const FULL = [
  ['input', 8],
  ['output', 8],
  ['cache rd', 9],
  ['cache wr', 9],
  ['total', 8],
  ['cost', 10],
] as const;

function numbers(t: SpendTally, s: TableStyle): string {
  const c = t.tokens;
  const cost = padStart(money(t, s.paid), 10);
  if (s.compact) return `${padStart(tokens(t.totalTokens), 8)} ${cost}`;
  return [c.input, c.output, c.cacheRead, c.cacheWrite, t.totalTokens]
    .map((n, i) => padStart(tokens(n), FULL[i]![1]))
    .concat(cost)
    .join(' ');
}

function header(first: string, firstWidth: number, s: TableStyle): string {
  const cols = s.compact
    ? `${padStart('total', 8)} ${padStart('cost', 10)}`
    : FULL.map(([n, w]) => padStart(n, w)).join(' ');
  return s.paint.dim(`${padEnd(first, firstWidth)} ${cols}  ${s.compact ? '' : 'models'}`.trimEnd());
}

function groupLabel(key: string, by: PeriodReport['by'] | 'breakdown', s: TableStyle): string {
  if (by === 'model' || by === 'breakdown') return shortModel(key);
  if (by === 'project') return shortPath(key, s.home, LABEL - 4);
  return safeLine(key);
}

function periodLines(r: PeriodReport, row: PeriodRow, max: number, s: TableStyle): string[] {
  const share = row.cost.usd === null || max <= 0 ? 0 : row.cost.usd / max;
  const models = s.compact ? '' : `  ${row.models.map(shortModel).join(', ')}`;
  const lines = [
    `${padEnd(row.period, LABEL)} ${numbers(row, s)} ${s.paint.green(padEnd(bar(share), BAR_CELLS))}${models}`.trimEnd(),
  ];
  const under = (groups: Group[] | undefined, by: PeriodReport['by'] | 'breakdown') => {
    for (const g of groups ?? [])
      lines.push(s.paint.dim(`${padEnd(`  └ ${groupLabel(g.key, by, s)}`, LABEL)} ${numbers(g, s)}`));
  };
  under(row.groups, r.by);
  under(row.breakdown, 'breakdown');
  return lines;
}

const NAMES = { day: 'day', week: 'week of', month: 'month' } as const;

export function periodTable(r: PeriodReport, s: TableStyle): string[] {
  if (r.periods.length === 0) return ['No spend in this range.'];
  const max = Math.max(0, ...r.periods.map((p) => p.cost.usd ?? 0));
  const out = [header(NAMES[r.unit], LABEL, s)];
  for (const row of r.periods) out.push(...periodLines(r, row, max, s));
  out.push(s.paint.bold(`${padEnd('total', LABEL)} ${numbers(r.totals, s)}`));
  return out;
}

/** A block's state beside its bar: whether it runs still, and whether it passed the token limit. */
function blockState(b: Block & { kind: 'block' }, nowMs: number): string {
  return [b.active ? `active, ${duration(b.endMs - nowMs)} left` : '', b.overLimit ? 'over limit' : '']
    .filter(Boolean)
    .join(', ');
}

function blockLine(
  b: Block & { kind: 'block' },
  max: number,
  nowMs: number,
  s: TableStyle,
  /** The widest state of the table, so the models line up under each other past it. */
  stateCells: number,
): string {
  const share = b.cost.usd === null || max <= 0 ? 0 : b.cost.usd / max;
  const state = padEnd(blockState(b, nowMs), stateCells);
  const shown = b.overLimit ? s.paint.red(state) : b.active ? s.paint.amber(state) : state;
  const models = s.compact ? '' : `  ${b.models.map(shortModel).join(', ')}`;
  return `${localClock(b.startMs, s.time)}  ${padStart(String(b.requests), 5)} ${padStart(tokens(b.totalTokens), 8)} ${padStart(money(b, s.paid), 10)} ${s.paint.green(padEnd(bar(share), BAR_CELLS))}${stateCells > 0 ? ` ${shown}` : ''}${models}`.trimEnd();
}

export function blockTable(r: BlockReport, nowMs: number, s: TableStyle): string[] {
  if (r.blocks.length === 0) return ['No Claude Code blocks in this range.'];
  const max = Math.max(0, ...r.blocks.map((b) => (b.kind === 'block' ? (b.cost.usd ?? 0) : 0)));
  const out = [
    s.paint.dim(
      `${padEnd(`start (${zoneName(s.time, nowMs)})`, 16)}  ${padStart('reqs', 5)} ${padStart('tokens', 8)} ${padStart('cost', 10)}`,
    ),
  ];
  const stateCells = Math.max(
    0,
    ...r.blocks.map((b) => (b.kind === 'block' ? width(blockState(b, nowMs)) : 0)),
  );
  for (const b of r.blocks) {
    if (b.kind === 'gap')
      out.push(
        s.paint.dim(`${localClock(b.startMs, s.time)}  (no block for ${duration(b.endMs - b.startMs)})`),
      );
    else out.push(blockLine(b, max, nowMs, s, stateCells));
  }
  const active = r.blocks.at(-1);
  if (active?.kind === 'block' && active.active) out.push(...activeLines(active, nowMs, s));
  if (r.tokenLimit !== null) out.push(s.paint.dim(`token limit: ${tokens(r.tokenLimit)}`));
  return out;
}

function activeLines(b: Block & { kind: 'block' }, nowMs: number, s: TableStyle): string[] {
  const lines = [
    s.paint.bold(
      `active block: ${localClock(b.startMs, s.time)} to ${localClock(b.endMs, s.time)} ${s.time.timeZone}, ${duration(b.endMs - nowMs)} left`,
    ),
  ];
  const r = b.burnRate;
  if (r !== null) {
    const perMinute = r.usdPerMinute === null ? NO_PRICE : `${usd(r.usdPerMinute)}/min`;
    lines.push(`  burn rate: ${tokens(Math.round(r.tokensPerMinute))} tokens/min, ${perMinute}`);
  }
  const p = b.projection;
  if (p !== null) lines.push(`  projected by its end: ${tokens(p.totalTokens)} tokens, ${usd(p.usd)}`);
  return lines;
}

const TITLES: Record<Dimension, string> = {
  project: 'projects',
  model: 'models',
  harness: 'harnesses',
  tool: 'tools (a request shared by the tools it called)',
};

function change(r: Ranked): string {
  if (r.previousUsd === null || r.previousUsd === 0) return r.cost.usd === null ? '' : 'new';
  if (r.cost.usd === null) return '';
  const pct = Math.round(((r.cost.usd - r.previousUsd) / r.previousUsd) * 100);
  return `${pct >= 0 ? '+' : ''}${pct}%`;
}

/** How many keys each dimension shows before "and N more". */
export const RANKED_SHOWN = 8;

function rankedLines(d: Dimension, rows: Ranked[], s: TableStyle): string[] {
  const out = [s.paint.bold(TITLES[d])];
  for (const r of rows.slice(0, RANKED_SHOWN)) {
    const cells = s.compact ? 24 : 36;
    const label =
      d === 'project' ? shortPath(r.key, s.home, cells) : d === 'model' ? shortModel(r.key) : safeLine(r.key);
    const share = r.share === null ? UNKNOWN : `${Math.round(r.share * 100)}%`;
    out.push(
      `  ${padEnd(label, cells)} ${padStart(money(r, s.paid), 10)} ${padStart(share, 4)} ${s.paint.green(padEnd(bar(r.share ?? 0, 10), 10))} ${padStart(change(r), 6)}`,
    );
  }
  if (rows.length > RANKED_SHOWN) out.push(s.paint.dim(`  and ${rows.length - RANKED_SHOWN} more`));
  return out;
}

export function whereTable(r: WhereReport, s: TableStyle): string[] {
  const range = r.period.from === r.period.to ? r.period.from : `${r.period.from} to ${r.period.to}`;
  const before = r.previousTotal.cost.usd;
  const spent = `${money(r.total, s.paid)} spent ${range}`;
  const then = `(${before === null ? 'nothing priced' : usd(before)} the period before, ${r.previous.from} to ${r.previous.to})`;
  // The period before goes under the period when both do not fit on one line (the compact layout's
  // lines fit 80 cells, whatever the terminal).
  const out =
    width(spent) + 1 + width(then) <= (s.compact ? Math.min(s.columns, COMPACT_COLUMNS) : s.columns)
      ? [`${s.paint.bold(spent)} ${s.paint.dim(then)}`]
      : [s.paint.bold(spent), s.paint.dim(then)];
  if (r.total.requests === 0) return [...out, 'No spend in this period.'];
  for (const d of DIMENSIONS) out.push('', ...rankedLines(d, r.ranked[d], s));
  return out;
}
