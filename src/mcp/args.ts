/**
 * A tool call's arguments, read: the calling agent may send anything (a model writes them), so each
 * is narrowed from `unknown` by a small reader, and a wrong one is refused with what was expected
 * (`ArgError`, which the server turns into an error result the agent can correct itself by).
 *
 * Not here: what the tools do with them.
 */
import { isAbsolute, normalize } from 'node:path';
import { obj } from '../model/json.js';

/** An argument the tool cannot use; its message says which and what it wants. */
export class ArgError extends Error {}

/** The longest string argument read (an id, a path, a query), in UTF-16 units. */
export const MAX_ARG_CHARS = 4096;

/** The most paths one `check_conflicts` call may ask about. */
export const MAX_PATHS_ASKED = 100;

/** The arguments as an object (none given reads as `{}`). */
export function argsOf(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  const o = obj(v);
  if (o === null) throw new ArgError('the arguments must be an object');
  return o;
}

/** A string argument, or null when it is absent. */
export function optString(args: Record<string, unknown>, key: string): string | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ArgError(`${key} must be a string`);
  if (v.length > MAX_ARG_CHARS) throw new ArgError(`${key} is longer than ${MAX_ARG_CHARS} characters`);
  return v;
}

export function reqString(args: Record<string, unknown>, key: string): string {
  const v = optString(args, key);
  if (v === null || v.trim() === '') throw new ArgError(`${key} is required`);
  return v;
}

/** A whole number argument within `[min, max]`, or `fallback` when it is absent. */
export function optInt(
  args: Record<string, unknown>,
  key: string,
  range: { min: number; max: number; fallback: number },
): number {
  const v = args[key];
  if (v === undefined || v === null) return range.fallback;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ArgError(`${key} must be a number from ${range.min} to ${range.max}`);
  if (v < range.min || v > range.max)
    throw new ArgError(`${key} must be from ${range.min} to ${range.max} (got ${v})`);
  return Math.floor(v);
}

/** An absolute path, normalised; a relative one is refused (the server's directory is not the agent's). */
export function absolute(key: string, path: string): string {
  if (!isAbsolute(path) || path.includes('\u0000'))
    throw new ArgError(`${key} must be an absolute path (got ${JSON.stringify(path.slice(0, 200))})`);
  const n = normalize(path);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/** A list of absolute paths (at most `MAX_PATHS_ASKED`), or an empty list when it is absent. */
export function optPaths(args: Record<string, unknown>, key: string): string[] {
  const v = args[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ArgError(`${key} must be a list of absolute paths`);
  if (v.length > MAX_PATHS_ASKED) throw new ArgError(`${key} holds more than ${MAX_PATHS_ASKED} paths`);
  return v.map((p, i) => {
    if (typeof p !== 'string' || p.length > MAX_ARG_CHARS) throw new ArgError(`${key}[${i}] must be a path`);
    return absolute(`${key}[${i}]`, p);
  });
}
