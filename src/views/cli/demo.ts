/**
 * `--demo`: point every provider at the sample history that ships with cctop, so a newcomer on a
 * machine with no agent history sees what cctop shows.
 */
import { join } from 'node:path';
import { packageRoot } from '../../paths.js';
import type { Env } from '../../providers/types.js';

export function demoEnv(env: Env): Env {
  const demo = join(packageRoot(), 'demo');
  return {
    ...env,
    HOME: join(demo, 'home'),
    CLAUDE_CONFIG_DIR: join(demo, 'home', '.claude'),
    CODEX_HOME: join(demo, 'home', '.codex'),
  };
}
