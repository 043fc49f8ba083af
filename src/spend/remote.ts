/**
 * Asking other machines for a spend report (`--host`): each host runs the same report with `--json`
 * through the system ssh (`hosts/ssh.ts`: BatchMode, a ControlMaster, bounded output, a wait), all
 * hosts at once, and its answer is read by `remote-read.ts`. A host that fails is a result like any
 * other, never an exception, and its failure is told as its fix: the caller prints this machine's
 * report whatever the hosts do.
 *
 * Not here: which flags the remote is given (the command's, `views/cli/spend-hosts.ts`) or summing
 * the answers (`merge.ts`).
 */
import { explain, type HostSpec, installOn, runFailure, runRemote, UPDATE_HERE } from '../hosts/index.js';
import type { Env } from '../providers/types.js';
import { REPORTS_VERSION } from './json.js';
import type { Read } from './remote-read.js';

export type ReportReading<T> =
  | { kind: 'read'; host: HostSpec; value: T; skipped: number; ms: number }
  /** `error` is the failure told as its fix. */
  | { kind: 'failed'; host: HostSpec; ms: number; error: string };

/** How one host answered, as a report's `--json` carries it (`hosts`, docs/reports.md). */
export interface ReportHost {
  /** `[user@]host` as given. */
  host: string;
  ok: boolean;
  /** Why it could not be counted, with the fix; null when it answered. */
  error: string | null;
  answeredAt: string | null;
}

/** Why an answer that is not the report asked for is not counted, and what to run. */
function refusedWhy(host: string, report: string, why: string): string {
  return `the cctop on ${host} did not answer with the ${report} report asked for (${why}): install this cctop there from a clone, \`${installOn(host)}\`, or name it: --host ${host}:/path/to/cctop`;
}

function versionWhy(host: string, remote: number): string {
  return remote > REPORTS_VERSION
    ? `the cctop on ${host} is newer (reports version ${remote}, this one reads ${REPORTS_VERSION}): update this cctop: ${UPDATE_HERE}`
    : `the cctop on ${host} is too old (reports version ${remote}, this one reads ${REPORTS_VERSION}): update it from its clone there, \`${installOn(host)}\` after a \`git pull\``;
}

/** `args` (a report command, `--json`, its flags) run by the cctop on `host`, read by `read`. */
export async function readReport<T>(
  host: HostSpec,
  args: readonly string[],
  env: Env,
  read: (bytes: Buffer, host: string) => Read<T>,
): Promise<ReportReading<T>> {
  const run = await runRemote(host, args, { env });
  const ms = run.kind === 'no-ssh' ? 0 : run.ms;
  const failed = runFailure(run);
  if (failed !== null || run.kind !== 'exited')
    return { kind: 'failed', host, ms, error: explain(host.name, failed?.failure ?? { kind: 'ssh-failed' }) };
  const r = read(run.stdout, host.name);
  switch (r.kind) {
    case 'read':
      return { kind: 'read', host, value: r.value, skipped: r.skipped, ms };
    case 'refused':
      return { kind: 'failed', host, ms, error: refusedWhy(host.name, args[0] ?? 'spend', r.why) };
    case 'version':
      return { kind: 'failed', host, ms, error: versionWhy(host.name, r.remote) };
  }
}

/** Every host at once, the answers in the order the hosts were given. */
export function readReports<T>(
  hosts: readonly HostSpec[],
  args: readonly string[],
  env: Env,
  read: (bytes: Buffer, host: string) => Read<T>,
): Promise<ReportReading<T>[]> {
  return Promise.all(hosts.map((h) => readReport(h, args, env, read)));
}

/** A reading as its `hosts` entry, answered at `nowIso`. */
export function reportHost(r: ReportReading<unknown>, nowIso: string): ReportHost {
  return r.kind === 'read'
    ? { host: r.host.name, ok: true, error: null, answeredAt: nowIso }
    : { host: r.host.name, ok: false, error: r.error, answeredAt: null };
}
