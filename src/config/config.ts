/**
 * Loading the config file (`docs/config.md`): read it within a bound, parse the TOML, check it
 * against the schema. Nothing in the file can stop cctop: a missing file is the defaults; a file that
 * cannot be read or is not TOML is an `error` naming the file and line, with the defaults in use;
 * a wrong setting is a warning naming its key and line, and only that setting is lost.
 *
 * Not here: what the settings do (budgets are `budgets.ts`), or where the file is (`path.ts`).
 */

import { parse, TomlError } from 'smol-toml';
import type { Env } from '../providers/types.js';
import { readRegular } from '../regular-file.js';
import { keyLines, lineOf } from './lines.js';
import { configPath } from './path.js';
import { readConfig } from './read.js';
import { defaultConfig, type LoadedConfig } from './types.js';

/**
 * The largest config file read. A config is a few dozen lines, a few kilobytes; a file far past that
 * is not one (a log written to the wrong path), and parsing it would hold it whole, more than once.
 */
export const MAX_CONFIG_BYTES = 1 << 20;

/** What the user is told to do when the file is not used. */
const FIX = 'cctop runs on its defaults (no budgets) until it is fixed; check it with `cctop config check`';

type Read = { kind: 'missing' } | { kind: 'read'; text: string } | { kind: 'failed'; reason: string };

/** The file at `configPath(env)`, loaded and checked. Never throws. */
export function loadConfig(env: Env): LoadedConfig {
  const path = configPath(env);
  const read = readBounded(path);
  switch (read.kind) {
    case 'missing':
      return { path, found: false, config: defaultConfig(), warnings: [], error: null };
    case 'failed':
      return { path, found: true, config: defaultConfig(), warnings: [], error: `${read.reason}. ${FIX}` };
    case 'read':
      return parseConfig(read.text, path, env);
  }
}

/** The text of a config file (named `path` in what it says), checked. */
export function parseConfig(text: string, path: string, env: Env): LoadedConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text);
  } catch (err) {
    const error =
      err instanceof TomlError
        ? `${path} line ${err.line}, column ${err.column}: ${tomlReason(err)}. ${FIX}`
        : `${path} could not be read as TOML (${(err as Error).message}). ${FIX}`;
    return { path, found: true, config: defaultConfig(), warnings: [], error };
  }
  const found: { at: string; message: string }[] = [];
  const config = readConfig(raw, env, (at, message) => found.push({ at, message }));
  const lines = found.length > 0 ? keyLines(text) : new Map<string, number>();
  const warnings = found.map(({ at, message }) => {
    const line = lineOf(lines, at);
    return `${path}${line === null ? '' : ` line ${line}`}: ${message}`;
  });
  return { path, found: true, config, warnings, error: null };
}

/**
 * The parser's reason without the excerpt it appends (the lines around the mistake, which the line
 * number already points to): "illegal character in key".
 */
function tomlReason(err: TomlError): string {
  const first = err.message.split('\n', 1)[0] ?? '';
  return first.replace(/^Invalid TOML document:\s*/, '') || 'not valid TOML';
}

/**
 * The file's text, read up to `MAX_CONFIG_BYTES`; a file that does not exist is `missing`. Opened
 * without waiting and read only when it is a regular file (`regular-file.ts`): a named pipe at this
 * path would otherwise hold every command that reads the config, and a running `serve`, for good.
 */
function readBounded(path: string): Read {
  const r = readRegular(path, MAX_CONFIG_BYTES);
  switch (r.kind) {
    case 'missing':
      return r;
    case 'not-file':
      return { kind: 'failed', reason: `${path} is ${r.what}, not a file` };
    case 'too-large':
      return {
        kind: 'failed',
        reason: `${path} is larger than ${MAX_CONFIG_BYTES >> 20} MiB, so it is not a config`,
      };
    case 'failed':
      return { kind: 'failed', reason: `${path} is not readable (${r.reason})` };
    case 'read':
      try {
        return { kind: 'read', text: new TextDecoder('utf-8', { fatal: true }).decode(r.bytes) };
      } catch {
        // The decoder's only error: bytes that are not UTF-8.
        return { kind: 'failed', reason: `${path} is not UTF-8 text` };
      }
  }
}

/**
 * The time zone days are counted in: `--timezone` when given, else the config file's `[reports]
 * timezone`, else the system's (undefined). Every view that counts days asks this, so the live table,
 * the dashboard and the reports agree on what "today" is.
 */
export function zoneFor(env: Env, given: string | undefined): string | undefined {
  return given ?? loadConfig(env).config.reports.timeZone ?? undefined;
}
