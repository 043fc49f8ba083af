/**
 * The proof a patch stands on (`patch.ts`): no message of a changed file appears in any other file,
 * so no other file's deduplication can move. It reads the kept build's message keys (`KeptInputs`)
 * and the changed files' ledgers, and answers yes or no; it decides nothing else.
 */
import { type KeptInputs, keyRange } from './kept.js';
import { KeySet } from './keyset.js';
import type { ParsedFile } from './sessions.js';

/**
 * The proof: no message of a changed file appears in any other file. Their messages now and the ones
 * they had before: a file rewritten without a message it held first gives that message back to
 * whichever other file repeats it. The kept keys are in file order, so the changed files' own are
 * found by a binary search and every other file's are looked at in the runs between them.
 */
export function sharesMessages(
  inputs: KeptInputs,
  index: Map<string, number>,
  parsed: readonly ParsedFile[],
  grouped: Set<ParsedFile>,
): boolean {
  const mine = new KeySet();
  for (const p of parsed) if (grouped.has(p)) mine.addLedger(p.result.ledger.data);
  const keys = inputs.keys;
  const ranges: [number, number][] = [];
  for (const p of parsed) {
    const i = index.get(p.file.path);
    if (i !== undefined) ranges.push(keyRange(keys, i));
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (const [from, to] of ranges) for (let t = from; t < to; t += 3) mine.add(keys[t + 1]!, keys[t + 2]!);
  let from = 0;
  for (const [start, end] of ranges) {
    if (anyShared(keys, from, start, mine)) return true;
    from = Math.max(from, end);
  }
  return anyShared(keys, from, keys.length, mine);
}

/** Whether a key triple in `keys` from `from` to `to` (indexes of numbers) is among `mine`. */
function anyShared(keys: Uint32Array, from: number, to: number, mine: KeySet): boolean {
  for (let t = from; t < to; t += 3) if (mine.has(keys[t + 1]!, keys[t + 2]!)) return true;
  return false;
}
