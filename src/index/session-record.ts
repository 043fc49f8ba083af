/**
 * A built session as the index keeps it: named facts that do not move with the clock or with the
 * process table, and one codec that writes and reads them. Everything that does move (the state
 * read against the clock, the process, the last-48-hours and last-31-days spend windows) is joined
 * when a session is shown (`render.ts`), never stored.
 *
 * The codec is the only code that knows how a record looks on disk. A record that does not decode
 * (another version, a damaged row) is `null`: the caller builds that session again; it never guesses.
 *
 * Not here: building a record from files (`sessions.ts`), or printing one (`render.ts`).
 */
import { crc32 } from 'node:zlib';
import type { SpendBuckets } from '../model/cost.js';
import type { SessionCost, SessionDoc } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { tallyOf } from '../model/totals.js';
import { decodeCells, encodeCells, type UsageCell } from '../model/usage-cells.js';
import { asciiJson, membersOf } from './ascii.js';
import { encodeHead, HeadReader } from './record-head.js';
import { isObject, pairs, parseJson, wellFormedFacts, wellFormedOwnFacts } from './record-shape.js';
import type { HeadFields, LiveInputs } from './session-head.js';

/**
 * Bumped whenever a record's fields change; older records are then built again, never read. 4: the
 * head is binary (`record-head.ts`), no longer JSON.
 */
export const RECORD_VERSION = 4;

/** The session document's fields that are read against the clock or the process table when shown. */
export type LiveKey =
  | 'state'
  | 'stateDetail'
  | 'stateSource'
  | 'running'
  | 'process'
  | 'pendingTool'
  | 'inferred';

/** The session document's own facts: everything but the live fields and the spend windows. */
export type SessionFacts = Omit<SessionDoc, LiveKey | 'cost'> & {
  cost: Omit<SessionCost, 'byHour' | 'byDay'>;
};

export interface SessionRecord {
  /** `provider \0 id`: a session's key in the index and in a build. */
  key: string;
  /** The inputs it was built from (its files, their counted records, its title): reused while equal. */
  signature: string;
  facts: SessionFacts;
  spend: SpendBuckets;
  /** Its requests per hour, day and model: what the spend reports read (`model/usage-cells.ts`). */
  usage: UsageCell[];
  live: LiveInputs;
  /** Tokens per model without a price, for the document's unpriced-model problems. */
  unpriced: HeadFields['unpriced'];
}

export const sessionKeyOf = (provider: ProviderId, id: string): string => `${provider}\u0000${id}`;

/**
 * A record's facts as the index keeps them: two JSON member lists (ASCII, without their braces), the
 * session's own and its cost's. They are the facts' one stored form: decoded by `decodeFacts`, and
 * joined as they are with the live fields and spend windows when a session is printed (`render.ts`),
 * so a warm `cctop --json` writes 7 MB of sessions without parsing or serialising them.
 */
export interface FactsText {
  members: Buffer;
  cost: Buffer;
}

/** The facts as the index keeps them. */
export function factsText(f: SessionFacts): FactsText {
  const { cost, ...rest } = f;
  return { members: Buffer.from(membersOf(rest), 'latin1'), cost: Buffer.from(membersOf(cost), 'latin1') };
}

/**
 * A record as the index stores it: one sealed blob and its CRC-32 (damage SQLite cannot see is
 * caught by it). The blob is a 20-byte header of five lengths, a binary head, then ASCII:
 *
 *   [head][facts][cost][spend][usage] head facts cost spend usage signature
 *
 * `head` (binary, `record-head.ts`) holds everything a run that changes nothing needs of a session to
 * order, annotate, total and print it; the facts and their cost are `FactsText`; `spend` (JSON) is
 * parsed only for a session whose spend windows can hold any of it, `usage` only by a spend report,
 * and the signature only by a build. A scope's records are kept packed in one value (`packRows`): reading a value out of SQLite
 * costs about a microsecond plus a copy, and 4,000 sessions are read on every warm run.
 */
export interface SessionRow {
  key: string;
  record: Buffer;
  crc: number;
}

/** A sealed record and its CRC-32: what a scope's pack holds of each session (`packRows`). */
export type SealedRow = Pick<SessionRow, 'record' | 'crc'>;

const HEADER_BYTES = 20;

/** Of every kept session, what a run that changes nothing reads; its facts and spend stay bytes. */
export interface KeptHead extends HeadFields {
  key: string;
  /** Where its parts begin in the sealed record: read (as views) only when asked for. */
  at: { facts: number; cost: number; spend: number; usage: number; signature: number };
  /** The record as sealed, to keep it again without encoding it again. */
  sealed: SealedRow;
}

/** A sealed record and where its parts begin: all that reading one of its parts needs. */
export type KeptParts = Pick<KeptHead, 'sealed' | 'at'>;

/** A kept session's facts as kept (views into its record). */
export function keptFacts(h: KeptParts): FactsText {
  const r = h.sealed.record;
  return { members: r.subarray(h.at.facts, h.at.cost), cost: r.subarray(h.at.cost, h.at.spend) };
}

/** The head of a record: what its sealed row keeps first, and what a held session reads it by. */
export function headOf(r: SessionRecord): HeadFields {
  const f = r.facts;
  return {
    provider: f.provider,
    id: f.id,
    file: f.file,
    project: f.project,
    lastActiveAt: f.lastActiveAt,
    deleted: f.deleted,
    live: r.live,
    tally: tallyOf(f),
    unpriced: r.unpriced,
  };
}

/**
 * A record's parts, in the order they are sealed: the head's bytes, then text. Every text part is
 * Latin-1 (ASCII but for the spend, written as it always was), so a part's length is its byte count
 * and the record is written straight into its buffer, with no buffer per part made and dropped.
 */
function sealedParts(r: SessionRecord): (Buffer | string)[] {
  const { cost, ...rest } = r.facts;
  return [
    encodeHead(RECORD_VERSION, headOf(r)),
    membersOf(rest),
    membersOf(cost),
    JSON.stringify(r.spend),
    // Model names come from transcripts: escaped to ASCII like every other part.
    asciiJson(encodeCells(r.usage)),
    asciiJson(JSON.stringify(r.signature)),
  ];
}

const sizeOf = (parts: readonly (Buffer | string)[]): number =>
  parts.reduce((n, p) => n + p.length, HEADER_BYTES);

/** Write a record's sizes and parts at `at` in `b` (which has room for them). */
function sealInto(b: Buffer, at: number, parts: readonly (Buffer | string)[]): void {
  // The sizes of the first five parts; the signature runs to the end.
  for (let i = 0; i < 5; i++) b.writeUInt32LE(parts[i]!.length, at + i * 4);
  let to = at + HEADER_BYTES;
  for (const part of parts) to += typeof part === 'string' ? b.write(part, to, 'latin1') : part.copy(b, to);
}

/** The row of a record. */
export function encodeRecord(r: SessionRecord): SessionRow {
  const parts = sealedParts(r);
  const record = Buffer.allocUnsafe(sizeOf(parts));
  sealInto(record, 0, parts);
  return { key: r.key, record, crc: crc32(record) >>> 0 };
}

/**
 * Room first made for each record sealed into a pack (`packRecords`): a session seals to 2.9 KB on
 * average on the 1.2 GiB bench history. Room never written costs address space, not memory (the
 * pages are never touched); a pack that needs more is moved once into twice the room.
 */
export const PACK_ROW_GUESS_BYTES = 4096;

/**
 * Every record sealed straight into one pack, byte for byte `packRows(records.map(encodeRecord))`,
 * and each row a view into it: the index keeps the pack and the warm snapshot the rows, without the
 * 11 MB of separate rows beside an 11 MB pack (1.2 GiB bench history) that a one-shot build held
 * until the heap came round to them.
 */
export function packRecords(records: readonly SessionRecord[]): { pack: Buffer; rows: SessionRow[] } {
  let room = Buffer.allocUnsafeSlow(Math.max(1, records.length) * PACK_ROW_GUESS_BYTES);
  const starts: number[] = [];
  let at = 0;
  for (const r of records) {
    const parts = sealedParts(r);
    const size = sizeOf(parts);
    if (at + 8 + size > room.length) {
      const more = Buffer.allocUnsafeSlow(Math.max(room.length * 2, at + 8 + size));
      room.copy(more, 0, 0, at);
      room = more;
    }
    sealInto(room, at + 8, parts);
    room.writeUInt32LE(size, at);
    room.writeUInt32LE(crc32(room.subarray(at + 8, at + 8 + size)) >>> 0, at + 4);
    starts.push(at);
    at += 8 + size;
  }
  const pack = room.subarray(0, at);
  const rows = records.map((r, i) => {
    const from = starts[i]!;
    const size = u32(pack, from);
    return { key: r.key, record: pack.subarray(from + 8, from + 8 + size), crc: u32(pack, from + 4) };
  });
  return { pack, rows };
}

/**
 * A scope's sessions as the index keeps them: every session's sealed record, one after another, each
 * behind its length and checksum (8 bytes). One value to read for 4,000 sessions, where a row each
 * cost 60 ms more of a warm run (a Buffer made per row; measured on the 1.2 GiB bench history): the
 * records are then read in place, as views into the pack.
 */
export function packRows(rows: readonly SealedRow[]): Buffer {
  let size = 0;
  for (const r of rows) size += 8 + r.record.length;
  const pack = Buffer.allocUnsafe(size);
  let at = 0;
  for (const r of rows) {
    pack.writeUInt32LE(r.record.length, at);
    pack.writeUInt32LE(r.crc >>> 0, at + 4);
    at += 8 + r.record.copy(pack, at + 8);
  }
  return pack;
}

/** A pack's rows (views into it), or null when it does not split as `packRows` writes it. */
export function unpackRows(pack: Buffer): SealedRow[] | null {
  const out: SealedRow[] = [];
  for (let at = 0; at < pack.length; ) {
    if (at + 8 > pack.length) return null;
    const size = u32(pack, at);
    const crc = u32(pack, at + 4);
    if (at + 8 + size > pack.length) return null;
    out.push({ record: pack.subarray(at + 8, at + 8 + size), crc });
    at += 8 + size;
  }
  return out;
}

/**
 * A little-endian 32-bit length at `at` (which the caller has checked is inside `b`): `readUInt32LE`
 * checks its arguments on every call, which cost 20 ms of a warm run reading 4,000 records.
 */
const u32 = (b: Buffer, at: number): number =>
  b[at]! + b[at + 1]! * 0x100 + b[at + 2]! * 0x10000 + b[at + 3]! * 0x1000000;

/** A stored row as a record, or null when it is of another version or not shaped as this code writes it. */
export function decodeRecord(row: SessionRow): SessionRecord | null {
  const head = decodeHeads([row])?.[0];
  return head === undefined ? null : recordOfHead(head);
}

/** A kept session's whole record (its facts and spend parsed), or null when they do not decode. */
export function recordOfHead(head: KeptHead): SessionRecord | null {
  const facts = decodeFacts(head);
  const spend = decodeSpend(head);
  const usage = decodeUsage(head);
  if (facts === null || spend === null || usage === null) return null;
  const signature = signatureOf(head);
  return { key: head.key, signature, facts, spend, usage, live: head.live, unpriced: head.unpriced };
}

/**
 * Stored rows' heads, in their order, or null when any is not shaped as this code writes it or its
 * bytes are not the ones it was sealed with (its CRC-32 is checked before its head is read).
 */
export function decodeHeads(rows: readonly SealedRow[]): KeptHead[] | null {
  const reader = new HeadReader(RECORD_VERSION, sessionKeyOf);
  const out: KeptHead[] = [];
  for (const row of rows) {
    if (!Buffer.isBuffer(row.record) || crc32(row.record) >>> 0 !== row.crc) return null;
    const h = reader.read(row);
    if (h === null) return null;
    out.push(h);
  }
  return out;
}

/**
 * Where a sealed record's parts begin (from its start), from its sizes alone (its head is not
 * parsed), or null when they do not fit in it; the record is `b` from `start` to `end`. For a record whose head a caller already has in another form (the warm
 * snapshot keeps the heads apart).
 */
export function partsOf(b: Buffer, start = 0, end = b.length): KeptHead['at'] | null {
  if (end - start < HEADER_BYTES || end > b.length) return null;
  const facts = HEADER_BYTES + u32(b, start);
  const cost = facts + u32(b, start + 4);
  const spend = cost + u32(b, start + 8);
  const usage = spend + u32(b, start + 12);
  const signature = usage + u32(b, start + 16);
  return signature > end - start ? null : { facts, cost, spend, usage, signature };
}

/** A kept session's signature. */
export function signatureOf(h: KeptParts): string {
  const s = parseJson(h.sealed.record.toString('latin1', h.at.signature));
  return typeof s === 'string' ? s : '';
}

/** A kept session's spend buckets, or null when they are not what this code writes. */
export function decodeSpend(head: KeptParts): SpendBuckets | null {
  const s = parseJson(head.sealed.record.toString('latin1', head.at.spend, head.at.usage));
  return isObject(s) && pairs(s.hours) && pairs(s.days) ? (s as unknown as SpendBuckets) : null;
}

/**
 * A kept session's usage cells, or null when they are not what this code writes; `withTools` false:
 * without their split by tool (`decodeCells`).
 */
export function decodeUsage(head: KeptParts, withTools = true): UsageCell[] | null {
  return decodeCells(head.sealed.record.toString('latin1', head.at.usage, head.at.signature), withTools);
}

/** A kept session's facts, or null when they are not what this code writes. */
export function decodeFacts(head: KeptParts & Pick<KeptHead, 'key'>): SessionFacts | null {
  const own = decodeOwnFacts(head);
  if (own === null) return null;
  const cost = parseJson(`{${head.sealed.record.toString('latin1', head.at.cost, head.at.spend)}}`);
  const facts = { ...own, cost };
  return wellFormedFacts(facts) ? facts : null;
}

/**
 * A kept session's facts but their cost, or null when they do not decode: what `--list` reads (its
 * cost is the head's tally), without parsing the cost's quarter of the text.
 */
export function decodeOwnFacts(
  head: KeptParts & Pick<KeptHead, 'key'>,
): (Omit<SessionFacts, 'cost'> & Record<string, unknown>) | null {
  const own = parseJson(`{${head.sealed.record.toString('latin1', head.at.facts, head.at.cost)}}`);
  if (!wellFormedOwnFacts(own) || head.key !== sessionKeyOf(own.provider, own.id)) return null;
  return own;
}
