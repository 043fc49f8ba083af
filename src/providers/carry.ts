/**
 * Small readers for the state a parser carries from one pass over a growing file to the next, as it
 * comes back from the index: JSON out of SQLite, written by whichever parser version last read the
 * file, or a damaged row. Each reader returns the value when it has the shape a parser writes, else
 * `undefined`; a provider's `readCarry` is built from them, and a carry that does not read makes the
 * file be read again from the start (`readSource` in `fence.ts`), which is always safe.
 *
 * Not here: what any provider carries (its `parser.ts` says), or the facts and ledger beside the carry.
 */
import { arr } from '../model/json.js';
import type { CarriedCall } from './pending.js';
import type { CarryReader } from './types.js';

/** Every element read by `each`, or undefined when the value is not an array or one does not read. */
export function listOf<T>(v: unknown, each: (x: unknown) => T | undefined): T[] | undefined {
  const a = arr(v);
  if (a === null) return undefined;
  const out: T[] = [];
  for (const x of a) {
    const t = each(x);
    if (t === undefined) return undefined;
    out.push(t);
  }
  return out;
}

export const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const numberOf = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

export const booleanOf = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** A string or null, as a carried model name is. */
export const nullableString = (v: unknown): string | null | undefined => (v === null ? null : stringOf(v));

/** A field a newer parser added: absent in an older carry (read as `fallback`), else read by `read`. */
export function added<T>(v: unknown, read: (x: unknown) => T | undefined, fallback: T): T | undefined {
  return v === undefined ? fallback : read(v);
}

/** The calls a pass left open, `[id, tool]` oldest first (`PendingCalls.carry()`). */
export function carriedCalls<Id>(
  v: unknown,
  id: (x: unknown) => Id | undefined,
): CarriedCall<Id>[] | undefined {
  return listOf(v, (c): CarriedCall<Id> | undefined => {
    const pair = arr(c);
    if (pair === null || pair.length !== 2) return undefined;
    const key = id(pair[0]);
    const tool = stringOf(pair[1]);
    return key === undefined || tool === undefined ? undefined : [key, tool];
  });
}

/** The carry of a provider that carries nothing (it reads a changed file again whole). */
export const readNoCarry: CarryReader<null> = (v) => (v === null ? null : undefined);
