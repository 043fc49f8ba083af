/**
 * Small readers that narrow `unknown` JSON without casts: every transcript field is untrusted.
 */

export type JsonObject = Record<string, unknown>;

export const obj = (v: unknown): JsonObject | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null;

export const arr = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A non-empty string, or null. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** A finite number, or null (strings, NaN and infinities are not numbers here). */
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A finite, non-negative count, or null. */
export const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;

export const bool = (v: unknown): boolean => v === true;

/** Milliseconds since the epoch for an ISO timestamp, or null when it is not one. */
export function isoMs(v: unknown): number | null {
  if (typeof v !== 'string' || v.length < 10 || v.length > 40) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

/** Parse one JSON line; null when it is not a JSON object. */
export function parseObject(line: string): JsonObject | null {
  try {
    return obj(JSON.parse(line));
  } catch {
    return null;
  }
}
