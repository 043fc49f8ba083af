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
import { PROVIDERS } from '../model/facts.js';
import type { LiveSignal } from '../model/state.js';
import { type Tally, tallyOf } from '../model/totals.js';
import { membersOf } from './ascii.js';

/** Bumped whenever a record's fields change; older records are then built again, never read. */
export const RECORD_VERSION = 1;

/** The session document's fields that are read against the clock or the process table when shown. */
export type LiveKey = 'state' | 'stateDetail' | 'running' | 'process' | 'pendingTool' | 'inferred';

/** The session document's own facts: everything but the live fields and the spend windows. */
export type SessionFacts = Omit<SessionDoc, LiveKey | 'cost'> & {
  cost: Omit<SessionCost, 'byHour' | 'byDay'>;
};

/** What the live state is worked out from, at any moment (`stateNow`). */
export interface LiveInputs {
  signal: LiveSignal | null;
  /** Newest modification time of the session's files (ms). */
  mtime: number;
  /** Newest record time (ms), or null. */
  lastMs: number | null;
}

export interface SessionRecord {
  /** `provider \0 id`: a session's key in the index and in a build. */
  key: string;
  /** The inputs it was built from (its files, their counted records, its title): reused while equal. */
  signature: string;
  facts: SessionFacts;
  spend: SpendBuckets;
  live: LiveInputs;
  /** Tokens per model without a price, for the document's unpriced-model problems. */
  unpriced: [string, number][];
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
 * A record as the index stores it, one row per session: its facts (`FactsText`), and as columns of
 * their own what a run that changes nothing reads of every session to order, annotate and total it
 * (`head`: the record's version, the live inputs, the spend buckets, the tally and the unpriced
 * tokens, as one small JSON object).
 */
export interface SessionRow {
  key: string;
  signature: string;
  provider: string;
  id: string;
  file: string;
  project: string | null;
  last_active_at: string | null;
  deleted: 0 | 1;
  head: string;
  facts: Buffer;
  facts_cost: Buffer;
  /** CRC-32 of `head` and the facts: bytes that are printed or decoded later are checked here. */
  crc: number;
}

/** The `head` column: all a run that changes nothing parses of a session. */
interface HeadJson {
  v: number;
  live: LiveInputs;
  spend: SpendBuckets;
  tally: Tally;
  unpriced: [string, number][];
}

/** Of every kept session, what a run that changes nothing reads; its facts stay bytes until asked for. */
export interface KeptHead extends Omit<HeadJson, 'v'> {
  key: string;
  signature: string;
  provider: ProviderId;
  id: string;
  file: string;
  project: string | null;
  lastActiveAt: string | null;
  deleted: boolean;
  facts: FactsText;
}

/** The checksum of a row's head and facts (a damaged row that SQLite cannot see is caught by it). */
function checksum(r: Pick<SessionRow, 'head' | 'facts' | 'facts_cost'>): number {
  return crc32(r.facts_cost, crc32(r.facts, crc32(r.head)));
}

/** The row of a record. */
export function encodeRecord(r: SessionRecord): SessionRow {
  const text = factsText(r.facts);
  const head: HeadJson = {
    v: RECORD_VERSION,
    live: r.live,
    spend: r.spend,
    tally: tallyOf(r.facts),
    unpriced: r.unpriced,
  };
  const row = {
    key: r.key,
    signature: r.signature,
    provider: r.facts.provider,
    id: r.facts.id,
    file: r.facts.file,
    project: r.facts.project,
    last_active_at: r.facts.lastActiveAt,
    deleted: r.facts.deleted ? (1 as const) : (0 as const),
    head: JSON.stringify(head),
    facts: text.members,
    facts_cost: text.cost,
  };
  return { ...row, crc: checksum(row) };
}

/** A stored row as a record, or null when it is of another version or not shaped as this code writes it. */
export function decodeRecord(row: SessionRow): SessionRecord | null {
  const head = decodeHead(row);
  if (head === null) return null;
  const facts = decodeFacts(head);
  if (facts === null) return null;
  return {
    key: head.key,
    signature: head.signature,
    facts,
    spend: head.spend,
    live: head.live,
    unpriced: head.unpriced,
  };
}

/** A stored row's head, or null when it is not shaped as this code writes it. */
export function decodeHead(row: SessionRow): KeptHead | null {
  if (typeof row.key !== 'string' || typeof row.id !== 'string' || !KNOWN_PROVIDERS.has(row.provider))
    return null;
  if (typeof row.signature !== 'string' || typeof row.file !== 'string') return null;
  if (row.key !== sessionKeyOf(row.provider as ProviderId, row.id)) return null;
  if (!nullableString(row.project) || !nullableString(row.last_active_at)) return null;
  if (typeof row.head !== 'string' || !isBytes(row.facts) || !isBytes(row.facts_cost)) return null;
  if (row.crc !== checksum(row)) return null;
  const head = parse(row.head);
  if (!wellFormedHead(head, row.provider)) return null;
  return {
    live: head.live,
    spend: head.spend,
    tally: head.tally,
    unpriced: head.unpriced,
    key: row.key,
    signature: row.signature,
    provider: row.provider as ProviderId,
    id: row.id,
    file: row.file,
    project: row.project,
    lastActiveAt: row.last_active_at,
    deleted: row.deleted === 1,
    facts: { members: row.facts, cost: row.facts_cost },
  };
}

function wellFormedHead(h: unknown, provider: string): h is HeadJson {
  if (!isObject(h) || h.v !== RECORD_VERSION) return false;
  const { live, spend, unpriced, tally } = h;
  if (!isObject(live) || typeof live.mtime !== 'number' || !nullableNumber(live.lastMs)) return false;
  if (live.signal !== null && !isObject(live.signal)) return false;
  if (!isObject(spend) || !pairs(spend.hours) || !pairs(spend.days)) return false;
  if (!Array.isArray(unpriced) || !unpriced.every((u) => Array.isArray(u) && typeof u[0] === 'string'))
    return false;
  if (!isObject(tally) || tally.provider !== provider || typeof tally.requests !== 'number') return false;
  return isObject(tally.tokens) && nullableNumber(tally.usd) && typeof tally.unpricedTokens === 'number';
}

const isBytes = (v: unknown): v is Buffer => Buffer.isBuffer(v);

/** A kept session's facts, or null when they are not what this code writes. */
export function decodeFacts(head: Pick<KeptHead, 'key' | 'facts'>): SessionFacts | null {
  const rest = parse(`{${head.facts.members.toString('latin1')}}`);
  const cost = parse(`{${head.facts.cost.toString('latin1')}}`);
  if (!isObject(rest) || !isObject(cost)) return null;
  const facts = { ...rest, cost };
  if (!wellFormedFacts(facts) || head.key !== sessionKeyOf(facts.provider, facts.id)) return null;
  return facts;
}

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const KNOWN_PROVIDERS: ReadonlySet<string> = new Set(PROVIDERS);

/**
 * The fields every consumer computes with are checked (sorting, matching, totals, windows); the rest
 * are data that a view shows as it finds them.
 */
function wellFormedFacts(f: unknown): f is SessionFacts {
  if (!isObject(f)) return false;
  if (typeof f.provider !== 'string' || !KNOWN_PROVIDERS.has(f.provider)) return false;
  if (typeof f.id !== 'string' || typeof f.file !== 'string' || typeof f.deleted !== 'boolean') return false;
  if (!nullableString(f.project) || !nullableString(f.lastActiveAt) || !nullableString(f.title)) return false;
  if (typeof f.requests !== 'number' || !isObject(f.tokens) || !isObject(f.tools)) return false;
  const cost = f.cost;
  return isObject(cost) && nullableNumber(cost.usd) && Array.isArray(cost.byModel);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const nullableString = (v: unknown): boolean => v === null || typeof v === 'string';
const nullableNumber = (v: unknown): boolean => v === null || typeof v === 'number';
const pairs = (v: unknown): boolean =>
  Array.isArray(v) &&
  v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'number' && typeof p[1] === 'number');
