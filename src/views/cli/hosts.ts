/**
 * Other machines in the one-shot commands (`--list`, `--json`, `doctor`): which hosts the line, the
 * environment or the config name, reading them while the local index refreshes, and saying on stderr
 * which could not be read. A dead host never changes the exit code of a list: the local rows are the
 * answer, the warning says what is missing from it.
 *
 * Not here: ssh and the remote document (`hosts/`), or printing rows (`list.ts`).
 */
import { loadConfig } from '../../config/index.js';
import {
  explain,
  HostPoller,
  type HostReading,
  type HostSpec,
  hostList,
  readHosts,
  withHosts,
} from '../../hosts/index.js';
import type { SessionDocument } from '../../model/document.js';
import { safeLine } from '../terminal-text.js';
import type { Io } from './main.js';

/** The flags a remote cctop is given as typed here, so its rows are cut and priced the same way. */
const PASSED_ON = ['plan', 'provider', 'since', 'until', 'timezone'] as const;

/** The remote cctop's flags after `--json`, from this command's values. */
export function passedOn(values: Record<string, unknown>): string[] {
  return PASSED_ON.flatMap((f) => (typeof values[f] === 'string' ? [`--${f}`, values[f] as string] : []));
}

/** `--host` values, else `CCTOP_HOSTS`, else the config's `hosts`; refused specs are said on stderr. */
export function hostsOf(io: Io, values: Record<string, unknown>): HostSpec[] {
  const flags = Array.isArray(values.host)
    ? values.host.filter((h): h is string => typeof h === 'string')
    : [];
  const config = flags.length > 0 || io.env.CCTOP_HOSTS !== undefined ? [] : loadConfig(io.env).config.hosts;
  const list = hostList(flags, io.env, config);
  for (const w of list.warnings) io.err(`cctop: ${safeLine(w)}`);
  return list.hosts;
}

/** The live table's poller of the hosts named, or null when none is (or for `--demo`). */
export function pollerFor(io: Io, values: Record<string, unknown>, demo: boolean): HostPoller | null {
  if (demo) return null;
  const hosts = hostsOf(io, values);
  return hosts.length === 0 ? null : new HostPoller({ hosts, env: io.env, args: passedOn(values) });
}

/** Other machines being read while this one's index refreshes. */
export interface Remote {
  /** `local` with the hosts' rows beside its own, once every host answered or gave up. */
  merged(local: SessionDocument): Promise<SessionDocument>;
}

/**
 * Start reading the hosts a one-shot command names, or null when it names none (or `--demo`, whose
 * sample history is this machine's alone). Each host that fails is named on stderr with its fix.
 */
export function startRemote(io: Io, values: Record<string, unknown>, demo: boolean): Remote | null {
  if (demo) return null;
  const hosts = hostsOf(io, values);
  if (hosts.length === 0) return null;
  const pending: Promise<HostReading[]> = readHosts(hosts, { env: io.env, args: passedOn(values) });
  return {
    async merged(local) {
      const readings = await pending;
      for (const r of readings) warnIfFailed(io, r);
      return withHosts(local, readings, new Date().toISOString());
    },
  };
}

/** `cctop: could not read devbox: <the fix>` for a host that failed; nothing for one that answered. */
export function warnIfFailed(io: Io, r: HostReading): void {
  switch (r.kind) {
    case 'read':
      if (r.skipped > 0)
        io.err(
          `cctop: ${safeLine(r.host.name)}: ${r.skipped} session${r.skipped === 1 ? '' : 's'} in its answer could not be read and ${r.skipped === 1 ? 'is' : 'are'} not shown`,
        );
      return;
    case 'failed':
      io.err(`cctop: could not read ${safeLine(r.host.name)}: ${safeLine(explain(r.host.name, r.failure))}`);
      return;
  }
}
