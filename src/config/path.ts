/**
 * Where cctop's config file is. Only the path: reading and checking it is `config.ts`, and a missing
 * file is not an error anywhere (cctop runs on its defaults).
 */
import { isAbsolute, join } from 'node:path';
import { home } from '../providers/fsutil.js';
import type { Env } from '../providers/types.js';

/** `$CCTOP_CONFIG`, else `$XDG_CONFIG_HOME/cctop/config.toml`, else `~/.config/cctop/config.toml`. */
export function configPath(env: Env): string {
  if (env.CCTOP_CONFIG) return env.CCTOP_CONFIG;
  // XDG says a relative value is invalid and is to be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'cctop', 'config.toml');
  return join(home(env), '.config', 'cctop', 'config.toml');
}
