/**
 * One transcript's row in the index, and the codec between the row and what the scan uses: where
 * reading stopped, the facts so far and the request ledger (a blob of 32-bit numbers). A row that
 * does not decode is damaged: the file is then simply read again, and its row written anew. When the
 * file is gone the row is dropped (`refresh.ts`): left, it would still be counted as a file the index
 * holds (`IndexStore.countFiles`) but never loaded, and no kept build would ever match the count.
 *
 * Not here: the database (`store.ts`), deciding what to re-read (`refresh.ts`).
 */
import type { FileFacts, ProviderId } from '../model/facts.js';
import { type Ledger, RECORD_FIELDS } from '../model/ledger.js';
import { decodeToolSets } from '../model/tool-sets.js';
import type { ParseResult, SourceFile } from '../providers/types.js';

export interface StoredFile {
  path: string;
  provider: ProviderId;
  root: string;
  sessionHint: string | null;
  role: SourceFile['role'];
  parser: string;
  tailHash: string | null;
  deleted: boolean;
  result: ParseResult;
}

/** A transcript's row as SQLite gives it. */
export interface Row {
  path: string;
  provider: string;
  root: string;
  session_hint: string | null;
  role: string;
  parser: string;
  size: number;
  mtime_ms: number;
  ino: number;
  offset: number;
  pending: number;
  tail_hash: string | null;
  facts: string;
  models: string;
  /** The ledger's tool-set table (`encodeToolSets`). */
  tools: string;
  ledger: Buffer;
  deleted: number;
}

/**
 * A blob of 32-bit numbers as an array: a Buffer of its own and 4-byte aligned is viewed in place
 * (what SQLite hands back usually is), anything else copied. A trailing partial number is dropped.
 */
function words<T extends Uint32Array | Int32Array>(
  blob: Buffer,
  Kind: new (b: ArrayBuffer, o: number, n: number) => T,
): T {
  const n = Math.floor(blob.byteLength / 4);
  if (blob.byteOffset % 4 === 0 && blob.buffer.byteLength === blob.byteLength)
    return new Kind(blob.buffer as ArrayBuffer, blob.byteOffset, n);
  const copy = new Kind(new ArrayBuffer(n * 4), 0, n);
  new Uint8Array(copy.buffer).set(blob.subarray(0, n * 4));
  return copy;
}

function ledgerOf(models: string, tools: string, blob: Buffer): Ledger {
  if (blob.byteLength % 4 !== 0) throw new Error('ledger blob of the wrong size');
  const data = words(blob, Uint32Array);
  if (data.length % RECORD_FIELDS !== 0) throw new Error('ledger blob of the wrong size');
  // A record naming a set past the table reads as tools unknown (`cost.ts`): not worth a walk here.
  return { models: JSON.parse(models) as string[], toolSets: decodeToolSets(tools), data };
}

export const ROW_COLUMNS =
  'path, provider, root, session_hint, role, parser, size, mtime_ms, ino, offset, pending, tail_hash, facts, models, tools, ledger, deleted';

/**
 * A row that does not decode, by the columns that still say which file it was: its path (the key) and
 * its harness (plain text, so a scan of other harnesses leaves it alone).
 */
export interface DamagedRow {
  path: string;
  provider: string;
}

export const damagedRow = (r: Row): DamagedRow => ({ path: r.path, provider: r.provider });

/** A row as the scan uses it, or null when it is damaged (see `DamagedRow`). */
export function storedRow(r: Row): StoredFile | null {
  try {
    return {
      path: r.path,
      provider: r.provider as ProviderId,
      root: r.root,
      sessionHint: r.session_hint,
      role: r.role as SourceFile['role'],
      parser: r.parser,
      tailHash: r.tail_hash,
      deleted: r.deleted === 1,
      result: {
        facts: JSON.parse(r.facts) as FileFacts,
        // The carried parser state is only needed to continue a file: fetched then (`carryOf`).
        carry: null,
        ledger: ledgerOf(r.models, r.tools, r.ledger),
        offset: r.offset,
        size: r.size,
        mtimeMs: r.mtime_ms,
        ino: r.ino,
        pendingBytes: r.pending,
      },
    };
  } catch {
    return null;
  }
}
