/**
 * `cctop budget` with other machines (`--host`, `CCTOP_HOSTS`, the config's hosts): the budgets of
 * THIS machine's config against the spend summed over every machine, because a budget counts
 * everything you run. Each host is asked for its daily spend by project over the days the budgets
 * cover (once per harness a budget names, with `--provider`), in this machine's zone, while the local
 * index loads; a host that cannot be read is named on stderr with its fix and counts nothing.
 *
 * Not here: the budgets' arithmetic (`config/budgets.ts`, `spend/spent.ts`) or printing (`budget.ts`).
 */
import { type LoadedConfig, periodDays } from '../../config/index.js';
import type { ProviderId } from '../../model/facts.js';
import type { Env } from '../../providers/types.js';
import type { PeriodRow } from '../../spend/periods.js';
import { type ReportHost, type ReportReading, readReport } from '../../spend/remote.js';
import { readRemotePeriods } from '../../spend/remote-read.js';
import { loadUsage } from '../../spend/source.js';
import { spentAcross } from '../../spend/spent.js';
import { budgetCommand } from './budget.js';
import { paint } from './color.js';
import { hostsOf } from './hosts.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';
import { daysOf, remoteFlags, told } from './spend-hosts.js';

type ByHarness = Map<ProviderId | null, readonly PeriodRow[]>;

/** One host's daily rows by project, per harness the budgets name (null: every harness). */
async function askHost(
  host: Parameters<typeof readReport>[0],
  harnesses: readonly (ProviderId | null)[],
  flags: (harness: ProviderId | null) => string[],
  read: (b: Buffer) => ReturnType<typeof readRemotePeriods>,
  env: Env,
): Promise<ReportReading<ByHarness>> {
  const runs = await Promise.all(harnesses.map((h) => readReport(host, flags(h), env, read)));
  const byHarness: ByHarness = new Map();
  let skipped = 0;
  let ms = 0;
  for (const [i, r] of runs.entries()) {
    ms = Math.max(ms, r.ms);
    // One question unanswered makes the host's figures partial: it then counts nothing, and says so.
    if (r.kind === 'failed') return r;
    byHarness.set(harnesses[i]!, r.value);
    skipped += r.skipped;
  }
  return { kind: 'read', host, value: byHarness, skipped, ms };
}

export async function budgetRun(
  io: Io,
  o: CommonOptions,
  env: Env,
  loaded: LoadedConfig,
  values: Record<string, unknown>,
): Promise<number> {
  const nowMs = Date.now();
  const { time } = daysOf(o);
  const { budgets, reports } = loaded.config;
  const hosts = o.demo || budgets.length === 0 || loaded.error !== null ? [] : hostsOf(io, values);
  let pending: Promise<ReportReading<ByHarness>[]> | null = null;
  if (hosts.length > 0) {
    const spans = budgets.map((b) => periodDays(b.period, nowMs, time, reports.startOfWeek));
    const days = {
      fromDay: Math.min(...spans.map((s) => s.fromDay)),
      toDay: Math.max(...spans.map((s) => s.toDay)),
    };
    // A budget's harness is asked of each host on its own; one `--provider` left out answers nothing.
    const harnesses = [...new Set(budgets.map((b) => b.harness))].filter(
      (h) => h === null || o.providers === null || o.providers.includes(h),
    );
    const flags = (h: ProviderId | null) => [
      'daily',
      // Retail, whatever --plan says: a budget counts what the agents burn.
      ...remoteFlags(
        { ...o, plan: 'retail', providers: h === null ? o.providers : [h] },
        time.timeZone,
        days,
        reports.startOfWeek,
      ),
      '--by',
      'project',
    ];
    const read = (b: Buffer) =>
      readRemotePeriods(b, {
        report: 'daily',
        unit: 'day',
        timeZone: time.timeZone,
        startOfWeek: reports.startOfWeek,
        by: 'project',
        breakdown: false,
      });
    pending = Promise.all(hosts.map((h) => askHost(h, harnesses, flags, read, io.env)));
  }
  const u = await loadUsage({ ...o, env });
  const answered = pending === null ? null : await told(io, await pending);
  const hostList: ReportHost[] | null = answered?.hosts ?? null;
  return budgetCommand(io, spentAcross(u.sessions, answered?.values ?? []), {
    loaded,
    nowMs,
    time: u.time,
    json: values.json === true,
    color: paint(io.isTty, io.env),
    hosts: hostList,
  });
}
