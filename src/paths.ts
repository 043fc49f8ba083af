/**
 * Where cctop keeps its own files, and where its package lives (for the bundled demo history).
 */
import { existsSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from './providers/types.js';

/** `$CCTOP_CACHE_DIR`, else `$XDG_CACHE_HOME/cctop`, else the platform's cache directory. */
export function cacheDir(env: Env): string {
  if (env.CCTOP_CACHE_DIR) return env.CCTOP_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'cctop');
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
  return platform() === 'darwin' ? join(home, 'Library', 'Caches', 'cctop') : join(home, '.cache', 'cctop');
}

let root: string | null = null;

/** The directory holding cctop's package.json (works from `src/` in tests and `dist/` installed). */
export function packageRoot(): string {
  if (root !== null) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  root = dir;
  return dir;
}
