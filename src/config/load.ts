/**
 * The config file for a command that may well have none: when no file is at `configPath`, the
 * defaults, without loading the TOML parser or the modules that check a file (the ACP agents' table
 * reaches the whole of `drive/`). Most runs of `cctop --json` or `cctop daily` have no config; they
 * should not pay for reading one.
 *
 * Not here: reading and checking a file that is there (`config.ts`, loaded only then).
 */
import { statSync } from 'node:fs';
import type { Env } from '../providers/types.js';
import { configPath } from './path.js';
import { defaultConfig, type LoadedConfig } from './types.js';

/** Whether a config file is there to read (a file we cannot stat is there: `config.ts` says why). */
export function configExists(env: Env): boolean {
  try {
    return statSync(configPath(env), { throwIfNoEntry: false }) !== undefined;
  } catch {
    // EACCES and the like: the file may be there, and reading it says what is wrong.
    return true;
  }
}

/** As `loadConfig`, loading the reader only when there is a file to read. */
export async function loadConfigIfAny(env: Env): Promise<LoadedConfig> {
  if (!configExists(env))
    return { path: configPath(env), found: false, config: defaultConfig(), warnings: [], error: null };
  return (await import('./config.js')).loadConfig(env);
}
