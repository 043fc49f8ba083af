/**
 * A 64-bit check of a block of bytes from zlib's CRC-32, which every index run loads anyway (the kept
 * sessions' checksum), where `node:crypto` would cost a run about 7 ms to load for one hash.
 *
 * One CRC-32 misses any change that is a multiple of its polynomial (a five-byte pattern placed
 * anywhere). The CRC-32 of the same bytes in reverse order is a CRC of the original bytes by the
 * mirrored polynomial, so a change slips through both only when it is a multiple of both: about
 * one rewrite in 2^64 by accident. For noticing that the user's own files or listings changed, not
 * against a forger.
 *
 * Not here: what is checked, or how the pair is stored (the callers).
 */
import { crc32 } from 'node:zlib';

/** The CRC-32 of `bytes` and of `bytes` reversed. Reverses `bytes` in place: pass a scratch buffer. */
export function crcPair(bytes: Uint8Array): [number, number] {
  const forward = crc32(bytes) >>> 0;
  return [forward, crc32(bytes.reverse()) >>> 0];
}
