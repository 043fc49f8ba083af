/**
 * Arrays that keep one shape for their whole life, for the per-request loops of a build (the
 * ledger's writer, `addLedger`, the cells, `dedupe`).
 *
 * V8 gives an empty `[]` room for small integers only; the first string or object stored in it, or
 * the first store past its end that leaves a gap, moves it to another kind of array, and optimised
 * code that had seen only the first kind is thrown away and compiled again (`node --trace-deopt`
 * says "not a Smi" or "wrong map"). A cold build compiled `addLedger` five times and the ledger's
 * `write` four times for that. The arrays made here start in the kind they end in, so the code that
 * reads them sees one map.
 *
 * Not here: anything about what the arrays hold; these only choose how V8 stores them.
 */

/** An empty list of values that are not all small integers (strings, objects, null). */
export function valueList<T>(seed: T): T[] {
  // A literal holding a non-integer is born in the general kind; emptying it keeps the kind.
  const a = [seed];
  a.length = 0;
  return a;
}

/** A copy of `from` in the general kind, even when `from` is empty. */
export function valueListOf<T>(seed: T, from: readonly T[]): T[] {
  const a = valueList(seed);
  for (const v of from) a.push(v);
  return a;
}

/**
 * An empty array to be filled at scattered indices (by an id), read back as `undefined` where
 * nothing was stored. It is born with gaps allowed, which storing at an index past its end needs.
 */
export function sparseList<T>(): (T | undefined)[] {
  const a = new Array<T | undefined>(1);
  a[0] = undefined;
  a.length = 0;
  return a;
}
