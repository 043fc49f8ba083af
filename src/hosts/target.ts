/**
 * Which other machines to read, and how each is named: `[user@]host[:path-to-cctop]` from `--host`
 * (repeatable), else `CCTOP_HOSTS` (comma-separated), else the config file's `hosts`. The first
 * source given wins whole, as a flag wins over the environment and the environment over the file;
 * `CCTOP_HOSTS=` (set, empty) turns the config's hosts off for one run.
 *
 * A spec is checked before it reaches ssh: a host starting with `-` would be read by ssh as an option
 * (`-oProxyCommand=…` runs a command), and control characters or spaces are never part of a host
 * name. What ssh makes of the name (a `Host` alias in the user's config, a jump host) is ssh's
 * business; this module does not resolve anything.
 */
import { MAX_HOST_SPEC_CHARS, MAX_HOSTS } from './bounds.js';

/** One machine to read. */
export interface HostSpec {
  /** `[user@]host` as written: what ssh is given and what rows are marked with. */
  name: string;
  /** The cctop to run there: a path as written (`~/bin/cctop`), or null for `cctop` on its PATH. */
  cctop: string | null;
}

export type HostParse = { kind: 'ok'; host: HostSpec } | { kind: 'bad'; why: string };

/** Nothing a host name or a path may hold: control characters (a terminal escape, a newline). */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `[user@]host[:path]`, checked; `[::1]:path` brackets an IPv6 address. */
export function parseHost(spec: string): HostParse {
  const s = spec.trim();
  if (s === '') return { kind: 'bad', why: 'an empty host' };
  if (s.length > MAX_HOST_SPEC_CHARS)
    return { kind: 'bad', why: `longer than ${MAX_HOST_SPEC_CHARS} characters` };
  if (CONTROL.test(s)) return { kind: 'bad', why: 'it holds a control character' };
  const at = s.indexOf('@');
  const hostStart = at < 0 ? 0 : at + 1;
  let hostEnd: number;
  if (s[hostStart] === '[') {
    const close = s.indexOf(']', hostStart);
    if (close < 0) return { kind: 'bad', why: 'an IPv6 address opened with [ is not closed with ]' };
    hostEnd = close + 1;
  } else {
    const colon = s.indexOf(':', hostStart);
    hostEnd = colon < 0 ? s.length : colon;
  }
  const name = s.slice(0, hostEnd);
  const rest = s.slice(hostEnd);
  if (rest !== '' && rest[0] !== ':') return { kind: 'bad', why: 'expected :path after the host' };
  const path = rest.slice(1);
  if (name.startsWith('-') || s[hostStart] === '-')
    return { kind: 'bad', why: 'a host cannot start with - (ssh would read it as an option)' };
  if (/\s/.test(name)) return { kind: 'bad', why: 'a host name has no spaces' };
  if (s.slice(hostStart, hostEnd) === '' || name.endsWith('@'))
    return { kind: 'bad', why: 'no host name after the user' };
  return { kind: 'ok', host: { name, cctop: path === '' ? null : path } };
}

/** Where the host list came from, to name it in a warning. */
export type HostSource = '--host' | 'CCTOP_HOSTS' | 'config';

export interface HostList {
  hosts: HostSpec[];
  /** What was refused, each naming its source and why; said on stderr, never fatal. */
  warnings: string[];
}

/**
 * The hosts to read: `flags` (the `--host` values) when any, else `CCTOP_HOSTS` when set, else the
 * config file's list. A host named twice (the same `[user@]host`, whatever its path) is read once, as
 * first given, and a differing second spec is named; past `MAX_HOSTS` the rest are named.
 */
export function hostList(
  flags: readonly string[],
  env: { CCTOP_HOSTS?: string },
  config: readonly string[],
): HostList {
  const [source, specs]: [HostSource, readonly string[]] =
    flags.length > 0
      ? ['--host', flags]
      : env.CCTOP_HOSTS !== undefined
        ? ['CCTOP_HOSTS', env.CCTOP_HOSTS.split(',').filter((h) => h.trim() !== '')]
        : ['config', config];
  const hosts: HostSpec[] = [];
  const warnings: string[] = [];
  /** The spec each host name was first given as: the one read. */
  const seen = new Map<string, string>();
  for (const spec of specs) {
    const r = parseHost(spec);
    if (r.kind === 'bad') {
      warnings.push(
        `${source}: ${JSON.stringify(spec.slice(0, 80))} is not [user@]host[:path-to-cctop]: ${r.why}`,
      );
      continue;
    }
    const kept = seen.get(r.host.name);
    if (kept !== undefined) {
      // `box` and `box:/opt/cctop` are one machine: read once, as first given; the same spec twice is no news.
      if (kept !== spec.trim())
        warnings.push(
          `${source}: ${JSON.stringify(spec.slice(0, 80))} names ${r.host.name} again; it is read once, as ${JSON.stringify(kept.slice(0, 80))}`,
        );
      continue;
    }
    seen.set(r.host.name, spec.trim());
    hosts.push(r.host);
  }
  if (hosts.length > MAX_HOSTS) {
    const left = hosts.splice(MAX_HOSTS);
    warnings.push(`${source}: only ${MAX_HOSTS} hosts are read; not ${left.map((h) => h.name).join(', ')}`);
  }
  return { hosts, warnings };
}
