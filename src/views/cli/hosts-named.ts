/**
 * Whether a command may name other machines, decided without loading them: a `--host` flag,
 * `CCTOP_HOSTS`, or a config file (which may list `hosts`). Only then are ssh, the config reader and
 * the remote answers' readers loaded; a run on this machine alone should not pay for them.
 *
 * Not here: which hosts those are (`hosts.ts`, which reads the config).
 */
import { configExists } from '../../config/load.js';
import type { Io } from './main.js';

export function namesHosts(io: Pick<Io, 'env'>, values: Record<string, unknown>): boolean {
  const flags = Array.isArray(values.host) && values.host.length > 0;
  return flags || io.env.CCTOP_HOSTS !== undefined || configExists(io.env);
}
