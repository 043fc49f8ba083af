/**
 * The walk of a zstd row's frames by their headers alone (RFC 8878), before any decompressor sees
 * it: what the frames claim to hold, so that a row claiming more than an OpenClaw event holds is
 * refused before anything is allocated for it, and where each frame's window size is, so fzstd's
 * window can be made no larger than the event (`zstd.ts`).
 *
 * Not here: decompressing, or deciding what a refused row reads as (`zstd.ts`).
 */
/**
 * The largest event decompressed: OpenClaw's own cap on a stored event (its schema checks
 * `event_utf8_bytes BETWEEN 1 AND 4194304`), so a row claiming more is not one it wrote.
 */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * Frames read in one row. OpenClaw writes one per event; zstd allows them concatenated, and fzstd
 * goes one call deeper for each, so a row of tiny frames could exhaust its stack. 256 is far past
 * anything written and far short of that.
 */
const MAX_FRAMES = 256;

/** zstd's largest block (its `Block_Maximum_Size`): a block header claiming more is damage. */
const MAX_BLOCK_BYTES = 128 * 1024;

/**
 * The largest window a decoder accepts by default (zstd's `ZSTD_WINDOWLOG_LIMIT_DEFAULT`, 2^27, which
 * Node keeps): a frame asking for more is one Node refuses, so both ways refuse it.
 */
const MAX_WINDOW_BYTES = 2 ** 27;

/** The frame magic numbers, as the little-endian words the format stores. */
const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC = 0x184d2a50; // 0x184d2a50 to 0x184d2a5f

/** What the walk of a row's frames found: enough to refuse it, or to size fzstd's window. */
export type FrameFacts =
  | { kind: 'bad'; reason: 'zstd-damaged' | 'zstd-too-large' }
  | {
      kind: 'frames';
      /** The sum of the frames' declared sizes, or null when a frame declares none. */
      declared: number | null;
      /** Where each frame's window descriptor byte is, for the frames that have one. */
      windowBytes: number[];
    };

const u32 = (b: Uint8Array, at: number): number =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** A little-endian unsigned integer of `n` bytes (at most 8; past 2^53 it is only "very large"). */
function uintLe(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[at + i]!;
  return v;
}

/**
 * Walk the frames of `b` by their headers, as RFC 8878 lays them out: each frame's header, then
 * each block's three-byte header and its bytes, then the checksum, until the last byte. Nothing is
 * decompressed; what is counted is what the headers claim: the frames' content sizes, and the bytes
 * raw and repeated-byte blocks stand for (a floor under the output, which compressed blocks add to).
 */
export function frameFacts(b: Uint8Array): FrameFacts {
  const damaged = { kind: 'bad', reason: 'zstd-damaged' } as const;
  const tooLarge = { kind: 'bad', reason: 'zstd-too-large' } as const;
  let at = 0;
  let frames = 0;
  let declared: number | null = 0;
  let floor = 0;
  const windowBytes: number[] = [];
  if (b.length === 0) return damaged;
  while (at < b.length) {
    if (++frames > MAX_FRAMES || b.length - at < 8) return damaged;
    const magic = u32(b, at);
    if ((magic & 0xfffffff0) === SKIPPABLE_MAGIC) {
      at += 8 + u32(b, at + 4);
      if (at > b.length) return damaged;
      continue;
    }
    if (magic !== ZSTD_MAGIC) return damaged;
    const fhd = b[at + 4]!;
    const sizeFlag = fhd >> 6;
    const singleSegment = (fhd >> 5) & 1;
    const checksum = (fhd >> 2) & 1;
    const dictionaryBytes = [0, 1, 2, 4][fhd & 3]!;
    // The reserved bit must be clear; a dictionary is one OpenClaw does not use and we do not have.
    if (fhd & 8 || dictionaryBytes > 0) return damaged;
    const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
    at += 5;
    let window = 0;
    if (!singleSegment) {
      const d = b[at]!;
      const base = 2 ** (10 + (d >> 3));
      window = base + (base / 8) * (d & 7);
      windowBytes.push(at);
      at += 1;
    }
    if (at + sizeBytes > b.length) return damaged;
    const size = sizeBytes === 0 ? null : uintLe(b, at, sizeBytes) + (sizeBytes === 2 ? 256 : 0);
    at += sizeBytes;
    if (singleSegment) window = size ?? 0;
    if (size !== null && size > MAX_EVENT_BYTES) return tooLarge;
    if (window > MAX_WINDOW_BYTES) return tooLarge;
    declared = declared === null || size === null ? null : declared + size;
    for (let last = 0; !last; ) {
      if (at + 3 > b.length) return damaged;
      const h = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
      last = h & 1;
      const type = (h >> 1) & 3;
      const blockSize = h >> 3;
      at += 3;
      if (type === 3 || blockSize > MAX_BLOCK_BYTES) return damaged;
      if (type !== 2) floor += blockSize;
      at += type === 1 ? 1 : blockSize;
      if (at > b.length) return damaged;
    }
    at += checksum * 4;
    if (at > b.length) return damaged;
    if (floor > MAX_EVENT_BYTES || (declared !== null && declared > MAX_EVENT_BYTES)) return tooLarge;
  }
  return { kind: 'frames', declared, windowBytes };
}
