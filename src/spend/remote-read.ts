/**
 * Reading a spend report another machine's cctop printed (`cctop daily|weekly|monthly|spend --json`
 * run over ssh for `--host`). It crossed a network from a program cctop does not control, so it is
 * read as hostile input: parsed under the depth bound, its version, report, zone and week checked
 * against what was asked (a remote that cut its days elsewhere cannot be summed with this machine's),
 * and each period, group and tally rebuilt field by field. A field of the wrong type reads as unknown
 * (`null`), never as zero; a count past `MAX_REMOTE_COUNT` is unknown too, so a hostile number cannot
 * turn a sum into Infinity. A period whose name is not a period of the asked kind is dropped and
 * counted.
 *
 * Not here: running ssh (`remote.ts`) or summing the answer with this machine's (`merge.ts`).
 */

import { printedJson } from '../hosts/printed.js';
import { type PeriodUnit, periodEnd, periodStart, type StartOfWeek } from '../model/calendar.js';
import { arr, count, isoMs, type JsonObject, num, obj, str } from '../model/json.js';
import { LocalTime } from '../model/time.js';
import { TOKEN_FIELDS, type TokenCounts } from '../model/usage.js';
import type { SessionUsage, UsageCell } from '../model/usage-cells.js';
import { REPORTS_VERSION } from './json.js';
import type { Group, PeriodRow, SplitBy } from './periods.js';
import type { SpendTally } from './tally.js';
import { DIMENSIONS, type Dimension, type Span } from './where.js';

/**
 * The most periods read from one host's report: a daily report over thirty years of history is
 * about 11,000 rows; past it the report is not one this cctop wrote, and the rest are dropped.
 */
export const MAX_REMOTE_PERIODS = 12_000;

/**
 * The most groups (or breakdown lines, or ranked keys) read per period: the local index keeps at
 * most 256 tool names a session and a machine has some hundreds of projects; 4,096 is ten times
 * that. Past it the rest are dropped (the period's own tally still counts them).
 */
export const MAX_REMOTE_GROUPS = 4096;

/** The longest key (a project path, a model, a tool) or model name kept; a longer one is cut. */
export const MAX_REMOTE_KEY_CHARS = 4096;

/**
 * The most hours of requests read from one host's blocks (`--hours`): 200,000 hours is 22 years of
 * an agent at work every hour; past it the rest are dropped and counted.
 */
export const MAX_REMOTE_HOURS = 200_000;

/**
 * The largest token count, request count or dollar figure read as a number: past 2^53 sums stop
 * being exact, and no machine spends a quadrillion tokens. Larger reads as unknown.
 */
export const MAX_REMOTE_COUNT = 1e15;

export type Read<T> =
  | { kind: 'read'; value: T; skipped: number }
  /** Not the report asked for: `why` says what is wrong, in words a user can act on. */
  | { kind: 'refused'; why: string }
  | { kind: 'version'; remote: number };

/** What the remote was asked, so its answer can be held to it. */
export interface PeriodsAsked {
  report: 'daily' | 'weekly' | 'monthly';
  unit: PeriodUnit;
  timeZone: string;
  startOfWeek: StartOfWeek;
  by: SplitBy | null;
  breakdown: boolean;
}

export interface SpendAsked {
  timeZone: string;
  period: Span;
  previous: Span;
}

/** A remote `spend` report: its totals and each dimension's keys with their tallies. */
export interface RemoteWhere {
  total: SpendTally;
  previousTotal: SpendTally;
  ranked: Record<Dimension, (SpendTally & { key: string; previousUsd: number | null })[]>;
}

const amount = (v: unknown): number | null => {
  const n = count(v);
  return n === null || n > MAX_REMOTE_COUNT ? null : n;
};

const key = (v: unknown): string | null => {
  const s = str(v);
  return s === null ? null : s.length > MAX_REMOTE_KEY_CHARS ? s.slice(0, MAX_REMOTE_KEY_CHARS) : s;
};

/** A tally, field by field: a wrong type is unknown, never zero. */
export function remoteTally(v: unknown): SpendTally {
  const o = obj(v) ?? {};
  const t = obj(o.tokens) ?? {};
  const c = obj(o.cost) ?? {};
  const tokens = {} as TokenCounts;
  for (const f of TOKEN_FIELDS) tokens[f] = amount(t[f]);
  const usd = amount(c.usd);
  return {
    requests: amount(o.requests) ?? 0,
    tokens,
    totalTokens: amount(o.totalTokens),
    cost: {
      usd,
      included: usd === null ? null : amount(c.included),
      unpricedTokens: amount(c.unpricedTokens) ?? 0,
    },
  };
}

function groupsOf(v: unknown): Group[] {
  return (arr(v) ?? []).slice(0, MAX_REMOTE_GROUPS).flatMap((g) => {
    const k = key(obj(g)?.key);
    return k === null ? [] : [{ key: k, ...remoteTally(g) }];
  });
}

const DAY_KEY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH_KEY = /^\d{4}-\d{2}$/;

/** The first local day of the period named `name`, or null when it names no period of `unit`. */
function periodDay(name: string, unit: PeriodUnit, startOfWeek: StartOfWeek): number | null {
  const day =
    unit === 'month'
      ? MONTH_KEY.test(name)
        ? LocalTime.dayOf(`${name}-01`)
        : null
      : DAY_KEY.test(name)
        ? LocalTime.dayOf(name)
        : null;
  return day !== null && periodStart(day, unit, startOfWeek) === day ? day : null;
}

/** One period; null when its name is not a period of the asked kind. Its days are ours, not its. */
function periodOf(v: unknown, asked: PeriodsAsked): PeriodRow | null {
  const o = obj(v);
  const name = o === null ? null : str(o.period);
  const start = name === null ? null : periodDay(name, asked.unit, asked.startOfWeek);
  if (o === null || name === null || start === null) return null;
  const row: PeriodRow = {
    period: name,
    from: LocalTime.dayKey(start),
    to: LocalTime.dayKey(periodEnd(start, asked.unit)),
    ...remoteTally(o),
    models: (arr(o.models) ?? []).slice(0, MAX_REMOTE_GROUPS).flatMap((m) => key(m) ?? []),
  };
  if (asked.by !== null) row.groups = groupsOf(o.groups);
  if (asked.breakdown) row.breakdown = groupsOf(o.breakdown);
  return row;
}

/** The document in `bytes`, when it is a report of ours of the expected name and version. */
function documentOf(bytes: Buffer, report: string): Read<JsonObject> {
  const r = printedJson(bytes);
  if (r.kind === 'not') return { kind: 'refused', why: r.why };
  const doc = obj(r.value);
  const version = doc === null ? null : num(doc.version);
  if (doc === null || version === null) return { kind: 'refused', why: 'its JSON is not a report' };
  if (version !== REPORTS_VERSION) return { kind: 'version', remote: version };
  if (doc.report !== report) return { kind: 'refused', why: `it is not a ${report} report` };
  return { kind: 'read', value: doc, skipped: 0 };
}

/** Why a report's days cannot be summed with this machine's, or null when they can. */
function misaligned(doc: JsonObject, timeZone: string, startOfWeek: StartOfWeek | null): string | null {
  if (doc.timeZone !== timeZone)
    return `its days are cut in ${key(doc.timeZone) ?? 'an unnamed zone'}, not ${timeZone} as asked`;
  if (startOfWeek !== null && doc.startOfWeek !== startOfWeek)
    return `its weeks start on ${key(doc.startOfWeek) ?? 'an unnamed day'}, not ${startOfWeek} as asked`;
  return null;
}

/** A remote `cctop daily|weekly|monthly --json`: its periods, oldest first as printed. */
export function readRemotePeriods(bytes: Buffer, asked: PeriodsAsked): Read<PeriodRow[]> {
  const d = documentOf(bytes, asked.report);
  if (d.kind !== 'read') return d;
  const doc = d.value;
  const wrong = misaligned(doc, asked.timeZone, asked.startOfWeek);
  if (wrong !== null) return { kind: 'refused', why: wrong };
  if ((doc.by ?? null) !== asked.by)
    return {
      kind: 'refused',
      why: `it split its periods by ${key(doc.by) ?? 'nothing'}, not ${asked.by ?? 'nothing'}`,
    };
  const list = arr(doc.periods);
  if (list === null) return { kind: 'refused', why: 'its report has no periods list' };
  const rows: PeriodRow[] = [];
  let skipped = Math.max(0, list.length - MAX_REMOTE_PERIODS);
  for (const p of list.slice(0, MAX_REMOTE_PERIODS)) {
    const row = periodOf(p, asked);
    if (row === null) skipped++;
    else rows.push(row);
  }
  return { kind: 'read', value: rows, skipped };
}

const sameSpan = (v: unknown, s: Span): boolean => {
  const o = obj(v);
  return o !== null && o.from === s.from && o.to === s.to;
};

/** A remote `cctop spend --json` over the same period (and period before) as this machine's. */
export function readRemoteWhere(bytes: Buffer, asked: SpendAsked): Read<RemoteWhere> {
  const d = documentOf(bytes, 'spend');
  if (d.kind !== 'read') return d;
  const doc = d.value;
  const wrong = misaligned(doc, asked.timeZone, null);
  if (wrong !== null) return { kind: 'refused', why: wrong };
  if (!sameSpan(doc.period, asked.period) || !sameSpan(doc.previous, asked.previous))
    return { kind: 'refused', why: `its period is not ${asked.period.from} to ${asked.period.to} as asked` };
  const lists: Record<Dimension, unknown> = {
    project: doc.projects,
    model: doc.models,
    harness: doc.harnesses,
    tool: doc.tools,
  };
  const ranked = {} as RemoteWhere['ranked'];
  for (const dim of DIMENSIONS)
    ranked[dim] = (arr(lists[dim]) ?? []).slice(0, MAX_REMOTE_GROUPS).flatMap((r) => {
      const k = key(obj(r)?.key);
      return k === null ? [] : [{ key: k, ...remoteTally(r), previousUsd: amount(obj(r)?.previousUsd) }];
    });
  return {
    kind: 'read',
    value: { total: remoteTally(doc.total), previousTotal: remoteTally(doc.previousTotal), ranked },
    skipped: 0,
  };
}

const HOUR_MS = 3_600_000;

/** One hour's cells; null when its times are not one UTC hour's. */
function hourOf(v: unknown): UsageCell[] | null {
  const o = obj(v) ?? {};
  const hour = isoMs(o.hour);
  const firstMs = isoMs(o.firstRequest);
  const lastMs = isoMs(o.lastRequest);
  if (hour === null || firstMs === null || lastMs === null || hour % HOUR_MS !== 0) return null;
  if (firstMs < hour || lastMs < firstMs || lastMs >= hour + HOUR_MS) return null;
  return (arr(o.cells) ?? []).slice(0, MAX_REMOTE_GROUPS).flatMap((c) => {
    const x = obj(c) ?? {};
    const model = key(x.model);
    if (model === null) return [];
    const t = obj(x.tokens) ?? {};
    const tokens = {} as TokenCounts;
    for (const f of TOKEN_FIELDS) tokens[f] = amount(t[f]);
    // Blocks are cut from UTC hours; the local day is not read (`blocks.ts`), so it is not asked for.
    return [
      { hour, day: 0, model, requests: amount(x.requests) ?? 0, tokens, usd: amount(x.usd), firstMs, lastMs },
    ];
  });
}

/**
 * A remote `cctop blocks --json --hours`: its Claude Code requests per UTC hour and model, as one
 * session's cells, to be counted with this machine's (`blocks.ts`).
 */
export function readRemoteHours(bytes: Buffer, host: string): Read<SessionUsage> {
  const d = documentOf(bytes, 'blocks');
  if (d.kind !== 'read') return d;
  const list = arr(d.value.hours);
  if (list === null) return { kind: 'refused', why: 'its blocks carry no hours' };
  const cells: UsageCell[] = [];
  let skipped = Math.max(0, list.length - MAX_REMOTE_HOURS);
  for (const h of list.slice(0, MAX_REMOTE_HOURS)) {
    const read = hourOf(h);
    if (read === null) skipped++;
    else cells.push(...read);
  }
  return { kind: 'read', value: { provider: 'claude', id: `host ${host}`, project: null, cells }, skipped };
}
