/**
 * The 64-bit hash the ledger keys its records by (a response's message id, a request id, a tool call,
 * a uuid), kept apart from the ledger: a reader of a few transcript lines (the status line's tail)
 * needs the hash and none of the ledger's tables. `ledger.ts` offers the same names.
 *
 * Not here: the records themselves, or deduplication (`ledger.ts`).
 */

/**
 * A 64-bit identity for an id (message, request, tool call, uuid), as two unsigned 32-bit halves.
 * Computed over the id's UTF-8 bytes, so the byte extractors never decode an id they only compare.
 */
export interface IdHash {
  hi: number;
  lo: number;
}

/** FNV-1a in two lanes over `b[s..e)`. */
export function hashBytes(b: Uint8Array, s: number, e: number): IdHash {
  return hashBytesUnless(b, s, e, NO_STOP)!;
}

const NO_STOP = new Uint8Array(256);

/**
 * `hashBytes(b, s, e)`, or null as soon as a byte marked in `stop` (256 entries) turns up: one pass
 * for a caller hashing raw JSON text, which must decode it first when it holds an escape or a
 * non-ASCII byte.
 */
export function hashBytesUnless(b: Uint8Array, s: number, e: number, stop: Uint8Array): IdHash | null {
  let x = 0x811c9dc5;
  let y = 0x01000193 ^ 0x9e3779b9;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (stop[c] !== 0) return null;
    x = Math.imul(x ^ c, 0x01000193);
    y = Math.imul(y ^ c, 0x01000193) ^ (y >>> 15);
  }
  return { hi: x >>> 0, lo: y >>> 0 };
}

const encoder = new TextEncoder();

/** The same hash of a decoded string (its UTF-8 bytes). */
export function hashString(s: string): IdHash {
  // An ASCII string's UTF-8 bytes are its character codes: hashed without encoding it first.
  let x = 0x811c9dc5;
  let y = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      const b = encoder.encode(s);
      return hashBytes(b, 0, b.length);
    }
    x = Math.imul(x ^ c, 0x01000193);
    y = Math.imul(y ^ c, 0x01000193) ^ (y >>> 15);
  }
  return { hi: x >>> 0, lo: y >>> 0 };
}

/** 53 bits of an `IdHash` as one number: usable as a Map key; collisions are negligible here. */
export const idNumber = (h: IdHash): number => h.hi * 2 ** 21 + (h.lo >>> 11);
