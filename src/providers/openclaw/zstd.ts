/**
 * OpenClaw's compressed transcript rows. Since 2026.9 OpenClaw stores an event of 1 KiB or more
 * (a long prompt or answer, a tool's output) as zstd (`event_zstd`, with its size in
 * `event_utf8_bytes`) instead of as text (`event_json`). Node has decompressed zstd since 22.15 and
 * 23.8 (`zlib.zstdDecompressSync`); on an older Node such a row cannot be read, and says so as its
 * own reason rather than as a damaged line.
 *
 * Not here: compressing anything, or reading zstd any other way than Node's own.
 */
import * as zlib from 'node:zlib';

/**
 * The largest event decompressed: OpenClaw's own cap on a stored event (its schema checks
 * `event_utf8_bytes BETWEEN 1 AND 4194304`), so a row claiming more is not one it wrote.
 */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** Node's zstd decompressor, found at run time (Node 20's zlib has none, nor do its types). */
type Inflate = (data: Uint8Array, maxOutputLength: number) => Buffer | null;

function nodeZstd(): Inflate | null {
  const f: unknown = Reflect.get(zlib, 'zstdDecompressSync');
  if (typeof f !== 'function') return null;
  return (data, maxOutputLength) => {
    const out: unknown = Reflect.apply(f, zlib, [data, { maxOutputLength }]);
    return Buffer.isBuffer(out) ? out : null;
  };
}

const inflate = nodeZstd();

/** Whether this Node can read OpenClaw's compressed rows. */
export const canInflate = inflate !== null;

/** What one compressed row reads as: its event's text, or why it could not be read. */
export type Inflated =
  | { kind: 'json'; json: string }
  | { kind: 'bad'; reason: 'zstd-unsupported' | 'not-json-object' };

/**
 * The text of a compressed event of `size` bytes; a size OpenClaw would not have written, bytes that
 * are not zstd, or a result of another size is a row that is not an event.
 */
export function inflateEvent(data: unknown, size: unknown): Inflated {
  if (inflate === null) return { kind: 'bad', reason: 'zstd-unsupported' };
  if (!(data instanceof Uint8Array) || typeof size !== 'number' || !Number.isSafeInteger(size))
    return { kind: 'bad', reason: 'not-json-object' };
  if (size < 1 || size > MAX_EVENT_BYTES) return { kind: 'bad', reason: 'not-json-object' };
  try {
    const out = inflate(data, size);
    return out !== null && out.length === size
      ? { kind: 'json', json: out.toString('utf8') }
      : { kind: 'bad', reason: 'not-json-object' };
  } catch {
    // Not zstd, damaged, or larger than it said: the row is not an event OpenClaw wrote.
    return { kind: 'bad', reason: 'not-json-object' };
  }
}
