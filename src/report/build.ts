import { dedupeGroups, group, type ParsedFile } from '../index/sessions.js';
import { type CallLog, emptyCallLog } from '../model/calls.js';
import { addLedger, type CostClock, emptyTotals } from '../model/cost.js';
import type { SessionDoc } from '../model/document.js';
import { money } from '../model/money.js';
import type { PriceBook, VendorHint } from '../model/pricing.js';
import type { Problem } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { callsOf, type Provider, providerById } from '../providers/index.js';
import { MAX_SERIES_POINTS, REPORT_VERSION, type SessionReport } from './types.js';

/** Rows kept in the failure, slowest and heaviest tables. */
export const TOP_ROWS = 15;
/** Result heads kept per failure group. */
export const FAILURE_SAMPLES = 3;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function thin<T>(xs: T[], max: number): T[] {
  if (xs.length <= max) return xs;
  const step = xs.length / max;
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(xs[Math.floor(i * step)]!);
  out[out.length - 1] = xs[xs.length - 1]!;
  return out;
}

export interface ReportInput {
  session: SessionDoc;
  files: readonly ParsedFile[];
  book: PriceBook;
  time: LocalTime;
  nowMs: number;
  /** The transcript already read (off the main thread, by a live view); read here when absent. */
  log?: CallLog;
  /**
   * Which records count, when decided already over the whole history (the index keeps it); without
   * it, `files` are deduplicated among themselves, so they should be every file of the provider.
   */
  masks?: Map<ParsedFile, Uint8Array>;
}

type Report = SessionReport;
type Bucket = { usd: number | null; tokens: number };
/** Files of the session with which of their records count. */
type Counted = { mine: readonly ParsedFile[]; masks: Map<ParsedFile, Uint8Array> };

function bucket(map: Map<number, Bucket>, key: number, usd: number | null, tokens: number): void {
  const b = map.get(key) ?? { usd: null, tokens: 0 };
  b.tokens += tokens;
  if (usd !== null) b.usd = (b.usd ?? 0) + usd;
  map.set(key, b);
}

/** Spend by local day and by clock hour, oldest first, over the session's own files. */
function spendSeries(
  o: ReportInput,
  { mine, masks }: Counted,
  vendor: VendorHint,
  clock: CostClock,
): Pick<Report['cost'], 'byDay' | 'byHour'> {
  const days = new Map<number, Bucket>();
  const hours = new Map<number, Bucket>();
  const totals = emptyTotals();
  for (const p of mine) {
    addLedger(
      totals,
      p.result.ledger,
      masks.get(p) ?? null,
      o.book,
      vendor,
      clock,
      (ts, _model, usd, tokens) => {
        bucket(days, o.time.dayNumber(ts), usd, tokens);
        bucket(hours, o.time.hourStart(ts), usd, tokens);
      },
    );
  }
  const oldestFirst = (m: Map<number, Bucket>) => [...m.entries()].sort((a, b) => a[0] - b[0]);
  return {
    byDay: oldestFirst(days).map(([d, b]) => ({
      day: LocalTime.dayKey(d),
      usd: b.usd === null ? null : money(b.usd),
      tokens: b.tokens,
    })),
    byHour: oldestFirst(hours).map(([h, b]) => ({
      hour: new Date(h).toISOString(),
      usd: b.usd === null ? null : money(b.usd),
      tokens: b.tokens,
    })),
  };
}

/** Failed calls grouped by tool and identical argument, so a retry loop is one row. */
function failureGroups(log: CallLog): Report['tools']['failures'] {
  const failures = new Map<string, Report['tools']['failures'][number]>();
  for (const c of log.calls) {
    if (!c.failed) continue;
    const key = `${c.name}\u0000${c.argument}`;
    const f = failures.get(key) ?? {
      tool: c.name,
      detail: c.detail,
      argument: c.argument,
      count: 0,
      lastAt: null,
      samples: [],
    };
    f.count++;
    f.lastAt = iso(c.endMs ?? c.startMs) ?? f.lastAt;
    if (c.result && f.samples.length < FAILURE_SAMPLES && !f.samples.includes(c.result))
      f.samples.push(c.result);
    failures.set(key, f);
  }
  return [...failures.values()].sort((a, b) => b.count - a.count).slice(0, TOP_ROWS);
}

/** Every file the calls read or wrote, the most written first. */
function filesTouched(log: CallLog): Report['files'] {
  const files = new Map<string, Report['files'][number]>();
  for (const c of log.calls) {
    for (const f of c.files) {
      const row = files.get(f.path) ?? { path: f.path, reads: 0, writes: 0, added: 0, removed: 0 };
      if (f.write) {
        row.writes++;
        row.added += f.added;
        row.removed += f.removed;
      } else row.reads++;
      files.set(f.path, row);
    }
  }
  return [...files.values()].sort(
    (a, b) => b.writes - a.writes || b.reads - a.reads || (a.path < b.path ? -1 : 1),
  );
}

/** What each subagent of the session cost and did. */
function subagentsOf(
  o: ReportInput,
  { mine, masks }: Counted,
  provider: Provider,
  clock: CostClock,
): Report['subagents'] {
  const vendor = provider.vendor;
  const subagents: Report['subagents'] = [];
  for (const p of mine.filter((x) => x.file.role === 'subagent')) {
    // The harness names its subagents (Claude: `agent-<id>.jsonl` and its `.meta.json`).
    const { agent, type } = provider.subagent?.(p.file.path) ?? { agent: p.file.path, type: null };
    const t = emptyTotals();
    addLedger(t, p.result.ledger, masks.get(p) ?? null, o.book, vendor, clock);
    subagents.push({
      agent,
      type,
      title: p.result.facts.titles.firstPrompt,
      models: p.result.facts.models,
      requests: t.requests,
      tokens: t.tokens,
      usd: t.priced ? money(t.estimatedUsd + t.reportedUsd) : null,
      calls: Object.values(p.result.facts.tools).reduce((n, x) => n + x.calls, 0),
    });
  }
  return subagents;
}

/** The slowest calls, and the calls after which the context grew most. */
function heavyCalls(log: CallLog): Pick<Report['tools'], 'slowest' | 'heaviest'> {
  return {
    slowest: log.calls
      // A call whose end is stamped at its start has no duration recorded (Codex writes one time for
      // both): absent, not a call of 0s.
      .filter((c) => c.startMs !== null && c.endMs !== null && c.endMs > c.startMs)
      .map((c) => ({
        tool: c.name,
        detail: c.detail,
        ms: c.endMs! - c.startMs!,
        at: iso(c.startMs),
        origin: c.origin,
      }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, TOP_ROWS),
    heaviest: log.calls
      .filter((c) => c.growth !== null && c.growth > 0)
      .map((c) => ({
        tool: c.name,
        detail: c.detail,
        growth: c.growth!,
        shared: c.shared,
        at: iso(c.startMs),
      }))
      .sort((a, b) => b.growth - a.growth)
      .slice(0, TOP_ROWS),
  };
}

/**
 * The session's calls: the log a live view read already, else a full read of the main transcript.
 * A transcript gone since the scan, or one its reader cannot get through, gives no calls and a
 * problem that says why; the report keeps what the index knows.
 */
function callLogOf(
  o: ReportInput,
  mine: readonly ParsedFile[],
  provider: Provider,
  problems: Problem[],
): CallLog {
  if (o.log !== undefined) return o.log;
  const mainFile = mine.find((p) => p.file.role === 'main') ?? null;
  if (!mainFile || mainFile.deleted) return emptyCallLog();
  const read = callsOf(provider, mainFile.file.path);
  if (read.kind === 'answered') return read.value;
  problems.push(read.problem);
  return emptyCallLog();
}

export function buildReport(o: ReportInput): SessionReport {
  const s = o.session;
  const provider = providerById(s.provider);
  const groups = group(o.files.filter((p) => p.file.provider === s.provider));
  const masks = o.masks ?? dedupeGroups(groups);
  const mine = groups.find((g) => g.id === s.id)?.files ?? [];
  const counted: Counted = { mine, masks };
  const clock: CostClock = { time: o.time, sinceMs: null, untilMs: null };
  const spend = spendSeries(o, counted, provider.vendor, clock);
  const problems: Problem[] = [];
  const log = callLogOf(o, mine, provider, problems);
  const byTool = Object.entries(s.tools.byTool)
    .map(([name, t]) => ({ name, calls: t.calls, failed: t.failed ?? 0 }))
    .sort((a, b) => b.calls - a.calls);
  return {
    version: REPORT_VERSION,
    session: s,
    cost: { byModel: s.cost.byModel, ...spend },
    context: {
      used: s.context.used,
      window: s.context.window,
      compactAt: s.context.compactAt,
      compactions: log.compactions.map(iso),
      series: thin(log.requests, MAX_SERIES_POINTS).map((r) => ({ at: iso(r.ms), prompt: r.prompt })),
      breakdown: log.breakdown,
    },
    tools: {
      calls: s.tools.calls,
      failed: s.tools.failed,
      byTool,
      failures: failureGroups(log),
      ...heavyCalls(log),
      dropped: log.dropped,
    },
    files: filesTouched(log),
    subagents: subagentsOf(o, counted, provider, clock),
    problems,
  };
}
