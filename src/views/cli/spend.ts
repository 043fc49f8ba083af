/**
 * `cctop daily|weekly|monthly`, `cctop blocks` and `cctop spend`: the flags, the reports from
 * `src/spend/`, and their two outputs (a table on a terminal, `--json` as documented in
 * docs/reports.md). One load of the index's usage cells serves each. With hosts (`--host`), each
 * host runs the same report while the index loads, and its periods are summed with this machine's
 * (`spend-hosts.ts`); blocks stay this machine's (docs/reports.md says why).
 */

import type { PeriodUnit, StartOfWeek } from '../../model/calendar.js';
import type { Plan } from '../../model/document.js';
import { LocalTime } from '../../model/time.js';
import { home } from '../../providers/fsutil.js';
import { type Block, type BlockReport, blockReport, hourCells } from '../../spend/blocks.js';
import { blocksJson, includedBy, type PeriodCommand, periodsJson, whereJson } from '../../spend/json.js';
import { mergePeriods, mergeWhere } from '../../spend/merge.js';
import { type PeriodReport, periodReport, type SplitBy } from '../../spend/periods.js';
import type { ReportHost } from '../../spend/remote.js';
import { readRemoteHours, readRemotePeriods, readRemoteWhere } from '../../spend/remote-read.js';
import { loadUsage } from '../../spend/source.js';
import { whereReport } from '../../spend/where.js';
import { paint } from './color.js';
import type { Io } from './main.js';
import { type CommonOptions, UsageError } from './options.js';
import { askHosts, daysOf, hostsLine, remoteFlags } from './spend-hosts.js';
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

/** The cells of every session; `withTools`: with their split by tool (only `--by tool` reads it). */
async function load(io: Io, o: CommonOptions, env: Io['env'], withTools = true): Promise<Loaded> {
  const nowMs = Date.now();
  const u = await loadUsage({ ...o, env, nowMs, withTools });
  if (u.notice) io.err(`cctop: ${u.notice}`);
  // `--since`/`--until` were parsed as the starts of local days: back to day numbers.
  const fromDay = o.sinceMs === null ? null : u.time.dayNumber(o.sinceMs);
  const toDay = o.untilMs === null ? null : u.time.dayNumber(o.untilMs) - 1;
  return { o, nowMs, sessions: u.sessions, time: u.time, fromDay, toDay };
}

function styleOf(io: Io, values: Values, plan: Plan, time: LocalTime): TableStyle {
  const columns = io.isTty ? (io.columns ?? 80) : Number(io.env.COLUMNS) || 120;
  return {
    paint: paint(io.isTty, io.env),
    compact: values.compact === true || columns <= COMPACT_COLUMNS,
    home: home(io.env),
    paid: plan !== 'retail',
    columns,
    time,
  };
}

/** The report as JSON, with `hosts` when other machines were asked. */
function printJson(io: Io, doc: object, hosts: ReportHost[] | null = null): number {
  io.out(JSON.stringify(hosts === null ? doc : { ...doc, hosts }, null, 2));
  return 0;
}

/** A table, and under it which machines it counts when other machines were asked. */
function printTable(io: Io, lines: string[], hosts: ReportHost[] | null, style: TableStyle): number {
  // One answer, one write.
  io.out([...lines, ...(hosts === null ? [] : [hostsLine(hosts, style.paint)])].join('\n'));
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
  const breakdown = values.breakdown === true;
  const days = daysOf(o);
  const { timeZone } = days.time;
  const remote = await askHosts(
    io,
    values,
    o,
    [
      command,
      ...remoteFlags(o, timeZone, days, startOfWeek),
      ...(by ? ['--by', by] : []),
      ...(breakdown ? ['--breakdown'] : []),
    ],
    (b) =>
      readRemotePeriods(b, { report: command, unit: UNITS[command], timeZone, startOfWeek, by, breakdown }),
  );
  const l = await load(io, o, env, by === 'tool');
  let r: PeriodReport = periodReport(l.sessions, {
    unit: UNITS[command],
    startOfWeek,
    by,
    breakdown,
    fromDay: l.fromDay,
    toDay: l.toDay,
    included: includedBy(o.plan),
  });
  const answered = remote === null ? null : await remote.answers();
  if (answered !== null) r = mergePeriods(r, answered.values, breakdown);
  const hosts = answered?.hosts ?? null;
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
      hosts,
    );
  const style = styleOf(io, values, o.plan, l.time);
  return printTable(io, periodTable(r, style), hosts, style);
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
  const days = daysOf(o);
  // Every hour the host has, whatever the range: a block's start depends on the requests before it.
  const remote = await askHosts(
    io,
    values,
    o,
    ['blocks', ...remoteFlags(o, days.time.timeZone, { fromDay: null, toDay: null }, null), '--hours'],
    (b, host) => readRemoteHours(b, host),
  );
  const l = await load(io, o, env);
  // Billing blocks are Claude Code's: the other harnesses' requests do not count against them. One
  // account's windows span its machines: their hours are counted as if made here (`blocks.ts`).
  const claude = l.sessions.filter((s) => s.provider === 'claude');
  const answered = remote === null ? null : await remote.answers();
  claude.push(...(answered?.values ?? []));
  const hosts = answered?.hosts ?? null;
  const r: BlockReport = blockReport(claude, { nowMs: l.nowMs, included: includedBy(o.plan), tokenLimit });
  const inRange = (b: Block) => {
    const day = l.time.dayNumber(b.startMs);
    return (l.fromDay === null || day >= l.fromDay) && (l.toDay === null || day <= l.toDay);
  };
  let blocks = r.blocks.filter(inRange);
  if (values.active === true) blocks = blocks.filter((b) => b.kind === 'block' && b.active);
  if (order === 'desc') blocks.reverse();
  if (values.json === true) {
    const hours = values.hours === true ? { hours: hourCells(claude) } : {};
    const doc = blocksJson(blocks, { nowMs: l.nowMs, plan: o.plan, tokenLimit: r.tokenLimit, ...hours });
    return printJson(io, doc, hosts);
  }
  const style = styleOf(io, values, o.plan, l.time);
  return printTable(io, blockTable({ ...r, blocks }, l.nowMs, style), hosts, style);
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
  const days = daysOf(o);
  const { timeZone } = days.time;
  const options = {
    unit,
    startOfWeek,
    fromDay: days.fromDay,
    toDay: days.toDay,
    included: includedBy(o.plan),
  };
  // This machine's period and the one before, from the report over nothing: each host is asked for
  // exactly these days, so a remote clock a little off midnight cannot count another day.
  const spans = whereReport([], { ...options, today: days.time.dayNumber(Date.now()) });
  const asked = { fromDay: LocalTime.dayOf(spans.period.from), toDay: LocalTime.dayOf(spans.period.to) };
  const remote = await askHosts(
    io,
    values,
    o,
    ['spend', ...remoteFlags(o, timeZone, asked, startOfWeek)],
    (b) => readRemoteWhere(b, { timeZone, period: spans.period, previous: spans.previous }),
  );
  const l = await load(io, o, env);
  let r = whereReport(l.sessions, { ...options, today: l.time.dayNumber(l.nowMs) });
  const answered = remote === null ? null : await remote.answers();
  if (answered !== null) r = mergeWhere(r, answered.values);
  const hosts = answered?.hosts ?? null;
  if (values.json === true)
    return printJson(io, whereJson(r, { nowMs: l.nowMs, timeZone: l.time.timeZone, plan: o.plan }), hosts);
  const style = styleOf(io, values, o.plan, l.time);
  return printTable(io, whereTable(r, style), hosts, style);
}
