/**
 * How the kept tables (`kept-store.ts`) store a kept file and the blobs of numbers beside it as
 * SQLite values: a file as a short JSON array, key and mask lists as raw little-endian words, and a
 * pack's keys sorted (`sortedKeys`).
 *
 * Not here: the tables, their transactions or what is kept (`kept-store.ts`, `kept.ts`).
 */
import type { ProviderId } from '../model/facts.js';
import { type KeptFile, TITLES_UNKNOWN } from './kept.js';

/**
 * A kept file as stored: a short array rather than an object per file (4,000 of them per scope).
 * The last field is the digest of its summaries, or 0 for none (1, from before the digest: some).
 */
export type FileRow = [
  string,
  ProviderId,
  string,
  number,
  number,
  number,
  0 | 1,
  0 | 1,
  number,
  string | 0 | 1,
];

const FILE_FIELDS = 10;

export const isFileRow = (r: unknown): r is FileRow => Array.isArray(r) && r.length === FILE_FIELDS;

export const fileRow = (f: KeptFile): FileRow => [
  f.path,
  f.provider,
  f.session,
  f.size,
  f.mtimeMs,
  f.ino,
  f.deleted ? 1 : 0,
  f.grouped ? 1 : 0,
  f.records,
  f.titles ?? 0,
];

export const fileOf = (r: FileRow): KeptFile => ({
  path: r[0],
  provider: r[1],
  session: r[2],
  size: r[3],
  mtimeMs: r[4],
  ino: r[5],
  deleted: r[6] === 1,
  grouped: r[7] === 1,
  records: r[8],
  titles: titlesOfRow(r[9]),
});

/** A stored summaries field as a digest: anything but a digest or 0 reads as summaries unknown. */
function titlesOfRow(v: unknown): string | null {
  if (typeof v === 'string') return v;
  return v === 0 ? null : TITLES_UNKNOWN;
}

export const bytesOf = (a: Uint32Array | Uint8Array): Buffer =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/**
 * A blob of 32-bit numbers: read in place when SQLite handed it back aligned (it does: each blob is
 * a buffer of its own), else copied so it is. A patch reads 7 MB of them (the pack's keys, sorted and
 * not; 1.2 GiB bench history), and a copy touches as many fresh pages, which cost more than the copy.
 * Nothing writes into kept numbers, so a view of the blob is as good as a copy.
 */
export function words(blob: Buffer): Uint32Array {
  const n = Math.floor(blob.byteLength / 4);
  if ((blob.byteOffset & 3) === 0) return new Uint32Array(blob.buffer, blob.byteOffset, n);
  const out = new Uint32Array(n);
  new Uint8Array(out.buffer).set(blob.subarray(0, n * 4));
  return out;
}

/**
 * Where a key's high and low words are in a pair of `sortedKeys`: the pair read as one 64-bit number
 * (in this machine's byte order) is high * 2^32 + low, so the native sort of 64-bit numbers sorts the
 * pairs by high word, then low word.
 */
export const HIGH = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1 ? 1 : 0;
export const LOW = 1 - HIGH;

/**
 * The keys of key triples (file, high, low) as pairs of words, sorted by high then low word: what a
 * patch's proof looks its keys up in (`shared-keys.ts`), by binary search. Sorted natively, as 64-bit
 * numbers: 160,000 keys in a few milliseconds, once per build.
 */
export function sortedKeys(triples: Uint32Array): Uint32Array {
  const n = triples.length / 3;
  const pairs = new Uint32Array(n * 2);
  for (let i = 0; i < n; i++) {
    pairs[i * 2 + HIGH] = triples[i * 3 + 1]!;
    pairs[i * 2 + LOW] = triples[i * 3 + 2]!;
  }
  new BigUint64Array(pairs.buffer).sort();
  return pairs;
}

/** How many pairs of `sortedKeys` are the key (`high`, `low`): one search, then a step per copy (most keys have one or two). */
export function countSorted(pairs: Uint32Array, high: number, low: number): number {
  let at = firstPair(pairs, high, low);
  const first = at;
  while (at * 2 < pairs.length && pairs[at * 2 + HIGH] === high && pairs[at * 2 + LOW] === low) at++;
  return at - first;
}

/** The first pair at or after (`high`, `low`). */
function firstPair(pairs: Uint32Array, high: number, low: number): number {
  let lo = 0;
  let hi = pairs.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const h = pairs[mid * 2 + HIGH]!;
    if (h < high || (h === high && pairs[mid * 2 + LOW]! < low)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
