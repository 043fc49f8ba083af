/**
 * The proof a patch stands on (`patch.ts`): no message of a changed file appears in any other file,
 * so no other file's deduplication can move. It reads the kept build's message keys (`KeptInputs`)
 * and the changed files' ledgers, and answers yes or no; it decides nothing else.
 */

import { type KeptInputs, type KeyIndex, keyRange } from './kept.js';
import { countSorted } from './kept-rows.js';
import { KeySet } from './keyset.js';

/** What the proof reads of a changed file (a `ParsedFile`): its path and its ledger's records. */
export interface ChangedFile {
  file: { path: string };
  result: { ledger: { data: Uint32Array } };
}

/**
 * Below this many kept keys the proof always searches: either way costs well under a millisecond, and
 * the search is then the way every small history (and the random tests) takes.
 */
export const LOOK_FROM_TRIPLES = 4096;

/**
 * The proof: no message of a changed file appears in any other file. Their messages now and the ones
 * they had before: a file rewritten without a message it held first gives that message back to
 * whichever other file repeats it. The kept keys are in file order, so the changed files' own are
 * found by a binary search.
 */
export function sharesMessages(
  inputs: KeptInputs,
  index: ReadonlyMap<string, number>,
  parsed: readonly ChangedFile[],
  grouped: ReadonlySet<ChangedFile>,
): boolean {
  const mine = new KeySet();
  for (const p of parsed) if (grouped.has(p)) mine.addLedger(p.result.ledger.data);
  const keys = inputs.keys;
  const touched = new Set<number>();
  for (const p of parsed) {
    const i = index.get(p.file.path);
    if (i !== undefined) touched.add(i);
  }
  const ranges = [...touched].sort((a, b) => a - b).map((i) => keyRange(keys, i));
  for (const [from, to] of ranges) for (let t = from; t < to; t += 3) mine.add(keys[t + 1]!, keys[t + 2]!);
  // A search per key of mine costs about log2 of the keys' count in steps: for the many keys of large
  // appends (ten files grown by 1 MiB: 20,000 keys), one look at each triple costs less.
  const triples = keys.length / 3;
  const search = triples < LOOK_FROM_TRIPLES || mine.keys * Math.log2(triples + 1) < triples;
  const sorted = inputs.index !== undefined && search ? inputs.index.sorted() : null;
  if (inputs.index !== undefined && sorted !== null)
    return sharedByIndex(inputs, inputs.index, sorted, touched, mine);
  // Every other file's keys looked at, in the runs between the touched files'.
  let from = 0;
  for (const [start, end] of ranges) {
    if (anyShared(keys, from, start, mine)) return true;
    from = Math.max(from, end);
  }
  return anyShared(keys, from, keys.length, mine);
}

/**
 * The same answer from the pack's sorted keys, by a binary search per key of `mine` rather than a
 * look at all 160,000 triples (bench history): a key another file holds is in the pack more often
 * than in the pack's triples of the touched and patched files, or in a patched file's keys now.
 */
function sharedByIndex(
  inputs: KeptInputs,
  x: KeyIndex,
  sorted: Uint32Array,
  touched: ReadonlySet<number>,
  mine: KeySet,
): boolean {
  for (const f of x.patched) {
    if (touched.has(f)) continue;
    const [from, to] = keyRange(inputs.keys, f);
    if (anyShared(inputs.keys, from, to, mine)) return true;
  }
  // The pack's own triples of the files whose keys are the changed files' own, or stale.
  const own = new KeySet();
  for (const f of new Set([...touched, ...x.patched])) {
    const [from, to] = keyRange(x.base, f);
    for (let t = from; t < to; t += 3) own.add(x.base[t + 1]!, x.base[t + 2]!);
  }
  return mine.some((h, l) => countSorted(sorted, h, l) > own.count(h, l));
}

/** Whether a key triple in `keys` from `from` to `to` (indexes of numbers) is among `mine`. */
function anyShared(keys: Uint32Array, from: number, to: number, mine: KeySet): boolean {
  for (let t = from; t < to; t += 3) if (mine.has(keys[t + 1]!, keys[t + 2]!)) return true;
  return false;
}
