/**
 * Just enough of the protobuf wire format to read the blobs Antigravity keeps in its conversation
 * databases: a message is a list of numbered fields, each a varint, a fixed-width number or a
 * length-delimited run of bytes (a string or a nested message). There is no schema here: the
 * caller asks for field numbers (`record.ts` says which mean what).
 *
 * A blob is as untrusted as a transcript line: every read is bounded by the blob, a truncated or
 * malformed one is refused with `ProtoError` (never read past its end). Nothing here recurses: a
 * nested message is read only where the caller names it, so a deep blob costs no depth.
 */

export class ProtoError extends Error {}

/** One field as it sits in its message: a number, or the bytes of a string or nested message. */
export type ProtoField =
  | { no: number; kind: 'varint'; value: number }
  | { no: number; kind: 'bytes'; value: Uint8Array }
  | { no: number; kind: 'fixed' };

/**
 * Fields read from one blob. Antigravity's metadata messages hold a few dozen; a blob claiming more
 * than this is not one of them, and reading it is refused rather than looped over.
 */
export const MAX_FIELDS = 4096;

/**
 * A varint as a JavaScript number. Token counts and seconds fit in 53 bits many times over; a varint
 * beyond that is not a count, and reads as `Number.MAX_SAFE_INTEGER` rather than a rounded lie.
 */
function readVarint(b: Uint8Array, at: { i: number }): number {
  let value = 0;
  let scale = 1;
  for (let n = 0; n < 10; n++) {
    if (at.i >= b.length) throw new ProtoError('truncated varint');
    const byte = b[at.i++]!;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return Math.min(value, Number.MAX_SAFE_INTEGER);
    scale *= 128;
  }
  throw new ProtoError('varint longer than 10 bytes');
}

/** The fields of one message, in the order they were written. */
export function fields(b: Uint8Array): ProtoField[] {
  const out: ProtoField[] = [];
  const at = { i: 0 };
  while (at.i < b.length) {
    if (out.length >= MAX_FIELDS) throw new ProtoError('too many fields');
    const tag = readVarint(b, at);
    const no = Math.floor(tag / 8);
    if (no === 0) throw new ProtoError('field number 0');
    switch (tag % 8) {
      case 0:
        out.push({ no, kind: 'varint', value: readVarint(b, at) });
        break;
      case 1:
      case 5: {
        const width = tag % 8 === 1 ? 8 : 4;
        if (at.i + width > b.length) throw new ProtoError('truncated fixed-width value');
        at.i += width;
        out.push({ no, kind: 'fixed' });
        break;
      }
      case 2: {
        const length = readVarint(b, at);
        if (at.i + length > b.length) throw new ProtoError('truncated length-delimited value');
        out.push({ no, kind: 'bytes', value: b.subarray(at.i, at.i + length) });
        at.i += length;
        break;
      }
      default:
        throw new ProtoError(`wire type ${tag % 8} is not read`);
    }
  }
  return out;
}

/** The last varint written as field `no` (protobuf's rule for a repeated scalar), or null. */
export function varint(f: readonly ProtoField[], no: number): number | null {
  for (let i = f.length - 1; i >= 0; i--) {
    const x = f[i]!;
    if (x.no === no && x.kind === 'varint') return x.value;
  }
  return null;
}

/** The first nested message or string written as field `no`, or null. */
export function bytes(f: readonly ProtoField[], no: number): Uint8Array | null {
  for (const x of f) if (x.no === no && x.kind === 'bytes') return x.value;
  return null;
}

/** Every nested message written as field `no` (a repeated field), in order. */
export function allBytes(f: readonly ProtoField[], no: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const x of f) if (x.no === no && x.kind === 'bytes') out.push(x.value);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The last string written as field `no`, when it is UTF-8 and not blank; else null. */
export function string(f: readonly ProtoField[], no: number): string | null {
  for (let i = f.length - 1; i >= 0; i--) {
    const x = f[i]!;
    if (x.no !== no || x.kind !== 'bytes') continue;
    let s: string;
    try {
      s = utf8.decode(x.value);
    } catch {
      // Bytes that are not UTF-8 are a nested message under the same number, not a name.
      return null;
    }
    return s.trim().length > 0 ? s : null;
  }
  return null;
}
