/**
 * Small readers for values smol-toml parsed, shared by the config's section readers: whether a value
 * is a table, and how a warning quotes a value it refuses.
 */

export type Table = Record<string, unknown>;

/** How much of a value a warning quotes: enough to recognise it, never a whole pasted blob. */
const SHOWN_VALUE_CHARS = 40;

/** A TOML table (smol-toml gives null-prototype objects); not a list, a date or a scalar. */
export function isTable(v: unknown): v is Table {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

/** A value as a warning quotes it. */
export function shown(v: unknown): string {
  if (typeof v === 'string') {
    const s = JSON.stringify(v);
    return s.length > SHOWN_VALUE_CHARS ? `${s.slice(0, SHOWN_VALUE_CHARS - 2)}…"` : s;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'a list';
  return v instanceof Date ? 'a date' : 'a table';
}
