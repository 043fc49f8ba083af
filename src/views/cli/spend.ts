/**
 * `cctop daily|weekly|monthly`, `cctop blocks` and `cctop spend`: the flags, the reports from
 * `src/spend/`, and their two outputs (a table on a terminal, `--json` as documented in
 * docs/reports.md). One load of the index's usage cells serves each.
 */

import type { PeriodUnit, StartOfWeek } from '../../model/calendar.js';
import type { Plan } from '../../model/document.js';
import { home } from '../../providers/fsutil.js';
import { type Block, type BlockReport, blockReport } from '../../spend/blocks.js';
import { blocksJson, includedBy, type PeriodCommand, periodsJson, whereJson } from '../../spend/json.js';
import { type PeriodReport, periodReport, type SplitBy } from '../../spend/periods.js';
import { loadUsage } from '../../spend/source.js';
import { whereReport } from '../../spend/where.js';
import { paint } from './color.js';
import type { Io } from './main.js';
import { type CommonOptions, UsageError } from './options.js';
import { blockTable, COMPACT_COLUMNS, periodTable, type TableStyle, whereTable } from './spend-table.js';

const UNITS: Record<PeriodCommand, PeriodUnit> = { daily: 'day', weekly: 'week', monthly: 'month' };

type Values = Record<string, unknown>;

function oneOf<T extends string>(flag: string, v: unknown, allowed: readonly T[], fallback: T): T {
  if (v === undefined) return fallback;
  const found = allowed.find((a) => a === String(v).toLowerCase());
  if (found === undefined) throw new UsageError(`--${flag} ${String(v)}: expected ${allowed.join(' or ')}`);
  return found;
}

interface Loaded {
  o: CommonOptions;
  nowMs: number;
  sessions: Awaited<ReturnType<typeof loadUsage>>['sessions'];
  time: Awaited<ReturnType<typeof loadUsage>>['time'];
  fromDay: number | null;
  toDay: number | null;
}

async function load(io: Io, o: CommonOptions, env: Io['env']): Promise<Loaded> {
  const nowMs = Date.now();
  const u = await loadUsage({ ...o, env, nowMs });
  if (u.notice) io.err(`cctop: ${u.notice}`);
  // `--since`/`--until` were parsed as the starts of local days: back to day numbers.
  const fromDay = o.sinceMs === null ? null : u.time.dayNumber(o.sinceMs);
  const toDay = o.untilMs === null ? null : u.time.dayNumber(o.untilMs) - 1;
  return { o, nowMs, sessions: u.sessions, time: u.time, fromDay, toDay };
}

function styleOf(io: Io, values: Values, plan: Plan): TableStyle {
  const columns = io.isTty ? (io.columns ?? 80) : Number(io.env.COLUMNS) || 120;
  return {
    paint: paint(io.isTty, io.env),
    compact: values.compact === true || columns <= COMPACT_COLUMNS,
    home: home(io.env),
    paid: plan !== 'retail',
  };
}

function printJson(io: Io, doc: object): number {
  io.out(JSON.stringify(doc, null, 2));
  return 0;
}

export async function periodCommand(
  io: Io,
  command: PeriodCommand,
  o: CommonOptions,
  env: Io['env'],
  values: Values,
): Promise<number> {
  const by =
    values.by === undefined
      ? null
      : oneOf<SplitBy>('by', values.by, ['harness', 'model', 'project', 'tool'], 'harness');
  const startOfWeek = oneOf<StartOfWeek>(
    'start-of-week',
    values['start-of-week'],
    ['monday', 'sunday'],
    'monday',
  );
  const order = oneOf('order', values.order, ['asc', 'desc'] as const, 'asc');
  const l = await load(io, o, env);
  const r: PeriodReport = periodReport(l.sessions, {
    unit: UNITS[command],
    startOfWeek,
    by,
    breakdown: values.breakdown === true,
    fromDay: l.fromDay,
    toDay: l.toDay,
    included: includedBy(o.plan),
  });
  if (order === 'desc') r.periods.reverse();
  if (values.json === true)
    return printJson(
      io,
      periodsJson(r, {
        report: command,
        nowMs: l.nowMs,
        timeZone: l.time.timeZone,
        startOfWeek,
        plan: o.plan,
      }),
    );
  for (const line of periodTable(r, styleOf(io, values, o.plan))) io.out(line);
  return 0;
}

function parseLimit(v: unknown): number | 'max' | null {
  if (v === undefined) return null;
  if (String(v).toLowerCase() === 'max') return 'max';
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--token-limit ${String(v)}: expected a number of tokens or max`);
  return n;
}

export async function blocksCommand(
  io: Io,
  o: CommonOptions,
  env: Io['env'],
  values: Values,
): Promise<number> {
  const tokenLimit = parseLimit(values['token-limit']);
  const order = oneOf('order', values.order, ['asc', 'desc'] as const, 'asc');
  const l = await load(io, o, env);
  // Billing blocks are Claude Code's: the other harnesses' requests do not count against them.
  const claude = l.sessions.filter((s) => s.provider === 'claude');
  const r: BlockReport = blockReport(claude, { nowMs: l.nowMs, included: includedBy(o.plan), tokenLimit });
  const inRange = (b: Block) => {
    const day = l.time.dayNumber(b.startMs);
    return (l.fromDay === null || day >= l.fromDay) && (l.toDay === null || day <= l.toDay);
  };
  let blocks = r.blocks.filter(inRange);
  if (values.active === true) blocks = blocks.filter((b) => b.kind === 'block' && b.active);
  if (order === 'desc') blocks.reverse();
  if (values.json === true)
    return printJson(io, blocksJson(blocks, { nowMs: l.nowMs, plan: o.plan, tokenLimit: r.tokenLimit }));
  for (const line of blockTable({ ...r, blocks }, l.nowMs, styleOf(io, values, o.plan))) io.out(line);
  return 0;
}

export async function whereCommand(
  io: Io,
  o: CommonOptions,
  env: Io['env'],
  values: Values,
): Promise<number> {
  const unit = oneOf<PeriodUnit>('period', values.period, ['day', 'week', 'month'], 'month');
  const startOfWeek = oneOf<StartOfWeek>(
    'start-of-week',
    values['start-of-week'],
    ['monday', 'sunday'],
    'monday',
  );
  const l = await load(io, o, env);
  const r = whereReport(l.sessions, {
    unit,
    startOfWeek,
    today: l.time.dayNumber(l.nowMs),
    fromDay: l.fromDay,
    toDay: l.toDay,
    included: includedBy(o.plan),
  });
  if (values.json === true)
    return printJson(io, whereJson(r, { nowMs: l.nowMs, timeZone: l.time.timeZone, plan: o.plan }));
  for (const line of whereTable(r, styleOf(io, values, o.plan))) io.out(line);
  return 0;
}
