/**
 * `--delay SECONDS`, the refresh interval of every long-running view (the live table, `serve`,
 * `watch`): read once, with one range and one message.
 */
import { MIN_DELAY_MS } from '../../live/engine.js';
import { UsageError } from './options.js';

/** The longest refresh interval accepted: an hour. */
export const MAX_DELAY_S = 3600;

/** The default interval, when `--delay` is not given. */
export const DEFAULT_DELAY_MS = 2000;

/** `--delay`'s value as milliseconds; a usage error outside `MIN_DELAY_MS` to `MAX_DELAY_S`. */
export function delayOption(value: unknown): number {
  if (value === undefined) return DEFAULT_DELAY_MS;
  const s = Number(value);
  if (typeof value !== 'string' || !Number.isFinite(s) || s * 1000 < MIN_DELAY_MS || s > MAX_DELAY_S)
    throw new UsageError(
      `--delay ${String(value)}: expected seconds from ${MIN_DELAY_MS / 1000} to ${MAX_DELAY_S}`,
    );
  return Math.round(s * 1000);
}
