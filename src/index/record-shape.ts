/**
 * The small readers that check a stored session record's JSON is shaped as this code writes it,
 * before anything computes with it: a row that fails is built again (`session-record.ts`), never
 * guessed at. Apart so the codec reads as the layout of a record.
 *
 * Not here: the layout itself, or the head's check (it names the record's version).
 */
import { PROVIDERS } from '../model/facts.js';
import type { SessionFacts } from './session-record.js';

/** `text` parsed as JSON, or undefined when it is not a string or not JSON. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The provider ids this code knows: a record naming another is not one it wrote. */
export const KNOWN_PROVIDERS: ReadonlySet<string> = new Set(PROVIDERS);

/**
 * The fields every consumer computes with are checked (sorting, matching, totals, windows); the rest
 * are data that a view shows as it finds them.
 */
export function wellFormedFacts(f: unknown): f is SessionFacts {
  if (!wellFormedOwnFacts(f)) return false;
  const cost = f.cost;
  return isObject(cost) && nullableNumber(cost.usd) && Array.isArray(cost.byModel);
}

/** The same of the facts but their cost (kept apart: `--list` reads no cost but the head's). */
export function wellFormedOwnFacts(f: unknown): f is Omit<SessionFacts, 'cost'> & Record<string, unknown> {
  if (!isObject(f)) return false;
  if (typeof f.provider !== 'string' || !KNOWN_PROVIDERS.has(f.provider)) return false;
  if (typeof f.id !== 'string' || typeof f.file !== 'string' || typeof f.deleted !== 'boolean') return false;
  if (!nullableString(f.project) || !nullableString(f.lastActiveAt) || !nullableString(f.title)) return false;
  return typeof f.requests === 'number' && isObject(f.tokens) && isObject(f.tools);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const nullableString = (v: unknown): boolean => v === null || typeof v === 'string';
export const nullableNumber = (v: unknown): boolean => v === null || typeof v === 'number';
export const pairs = (v: unknown): boolean =>
  Array.isArray(v) &&
  v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'number' && typeof p[1] === 'number');
