/**
 * The spend reports and budgets with other machines (`--host`, `CCTOP_HOSTS`, the config's hosts):
 * the flags each remote cctop is given so its periods line up with this machine's (this machine's
 * resolved zone and week, never the remote's own), asking every host while the local index loads,
 * and saying which hosts a report counts: on stderr for a host that could not be read (with its
 * fix; the exit code stays this machine's), in `--json` as `hosts`, and in a line under a table.
 *
 * Not here: running ssh and reading the answers (`spend/remote.ts`, `spend/remote-read.ts`) or
 * summing them (`spend/merge.ts`, `spend/spent.ts`).
 */
import type { StartOfWeek } from '../../model/calendar.js';
import { LocalTime } from '../../model/time.js';
import type { ReportHost, ReportReading } from '../../spend/remote.js';
import type { Read } from '../../spend/remote-read.js';
import { safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import { namesHosts } from './hosts-named.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';

/** The days a report covers, as this machine counts them: local day numbers, inclusive, or null. */
export interface DayRange {
  fromDay: number | null;
  toDay: number | null;
}

/** This machine's zone (the flag, else the config's, else the system's) and `--since`/`--until` in it. */
export function daysOf(o: CommonOptions): DayRange & { time: LocalTime } {
  const time = new LocalTime(o.timeZone);
  return {
    time,
    // `--since`/`--until` were parsed as the starts of local days: back to day numbers.
    fromDay: o.sinceMs === null ? null : time.dayNumber(o.sinceMs),
    toDay: o.untilMs === null ? null : time.dayNumber(o.untilMs) - 1,
  };
}

/**
 * The flags every remote report is given: the zone and week this machine resolved (so a remote with
 * another system zone or config cuts the same days), the plan, the harnesses as typed, and the days.
 */
export function remoteFlags(
  o: CommonOptions,
  timeZone: string,
  days: DayRange,
  startOfWeek: StartOfWeek | null,
): string[] {
  const flags = ['--json', '--timezone', timeZone, '--plan', o.plan];
  if (startOfWeek !== null) flags.push('--start-of-week', startOfWeek);
  if (o.providers !== null) flags.push('--provider', o.providers.join(','));
  if (days.fromDay !== null) flags.push('--since', LocalTime.dayKey(days.fromDay));
  if (days.toDay !== null) flags.push('--until', LocalTime.dayKey(days.toDay));
  return flags;
}

/** Hosts being asked for a report while this machine's is made. */
export interface Asked<T> {
  /** Each host's answer; failures named on stderr as they are told. */
  answers(): Promise<{ values: T[]; hosts: ReportHost[] }>;
}

/**
 * Ask the hosts the command names (none for `--demo`) to run `args`; null when it names none. ssh and
 * the hosts' readers are loaded only when something may name a host.
 */
export async function askHosts<T>(
  io: Io,
  values: Record<string, unknown>,
  o: CommonOptions,
  args: readonly string[],
  read: (bytes: Buffer, host: string) => Read<T>,
): Promise<Asked<T> | null> {
  if (o.demo || !namesHosts(io, values)) return null;
  const [{ hostsOf }, { readReports }] = await Promise.all([
    import('./hosts.js'),
    import('../../spend/remote.js'),
  ]);
  const hosts = hostsOf(io, values);
  if (hosts.length === 0) return null;
  const pending = readReports(hosts, args, io.env, read);
  return {
    async answers() {
      return told(io, await pending);
    },
  };
}

/** The answers read, each failure and skipped period said on stderr. */
export async function told<T>(
  io: Io,
  readings: readonly ReportReading<T>[],
): Promise<{ values: T[]; hosts: ReportHost[] }> {
  const { reportHost } = await import('../../spend/remote.js');
  const nowIso = new Date().toISOString();
  const values: T[] = [];
  for (const r of readings) {
    if (r.kind === 'failed') {
      io.err(`cctop: could not read ${safeLine(r.host.name)}: ${safeLine(r.error)}`);
      continue;
    }
    values.push(r.value);
    if (r.skipped > 0)
      io.err(
        `cctop: ${safeLine(r.host.name)}: ${r.skipped} ${r.skipped === 1 ? 'entry' : 'entries'} of its report could not be read and ${r.skipped === 1 ? 'is' : 'are'} not counted`,
      );
  }
  return { values, hosts: readings.map((r) => reportHost(r, nowIso)) };
}

/** `counted: this machine, box · not counted: gpu-vm (could not be read)`, under a table. */
export function hostsLine(hosts: readonly ReportHost[], p: Paint): string {
  const ok = hosts.filter((h) => h.ok).map((h) => safeLine(h.host));
  const failed = hosts.filter((h) => !h.ok).map((h) => safeLine(h.host));
  const counted = `counted: ${['this machine', ...ok].join(', ')}`;
  return p.dim(
    failed.length === 0 ? counted : `${counted} · not counted: ${failed.join(', ')} (could not be read)`,
  );
}
