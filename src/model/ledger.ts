/**
 * The request ledger: one fixed-size record per billed model call.
 *
 * Providers write a record for every API request they find (tokens, model, time, a dedupe key);
 * everything about money is derived from the ledger on read: cost per request with its own
 * long-context tier, spend by hour and by day, `--since`/`--until`, and deduplication across files
 * (a resumed Claude session replays its parent's responses into a new file; a subagent's `/btw`
 * replays the parent's messages). Storing requests rather than dollars is what lets a price update or
 * another `--plan` re-read nothing.
 *
 * It is a packed `Uint32Array` rather than objects because a heavy history holds a few hundred thousand
 * requests and the index stores the ledger as one blob per file: 56 bytes a request, no parsing.
 *
 * Which tools a request called is billing too (spend split by tool): each record names a set in the
 * ledger's table of tool sets (`tool-sets.ts`), or says its harness did not tell.
 *
 * Deliberately not here: conversation text, the calls themselves, anything that is not billing.
 */
import type { IdHash } from './id-hash.js';
import { valueList, valueListOf } from './kinds.js';
import { type ToolSet, ToolSetTable } from './tool-sets.js';

// The ids' hash lives in its own module, which a reader of one line (the status line) loads alone;
// its names are still offered here for everything that knows them from the ledger.
export { hashBytes, hashBytesUnless, hashString, type IdHash, idNumber } from './id-hash.js';

/** Field offsets inside one record. */
export const F = {
  /** 64-bit hash of the response's message id (Claude) or of the event's identity (Codex), two halves. */
  KEY_HI: 0,
  KEY_LO: 1,
  /** 32-bit hash of the request id, compared only when the message ids are equal. */
  REQ: 2,
  /** Seconds since the epoch (UTC); good until 2106. */
  TS: 3,
  /** Index into the ledger's model table. */
  MODEL: 4,
  FLAGS: 5,
  INPUT: 6,
  OUTPUT: 7,
  CACHE_READ: 8,
  CACHE_WRITE_5M: 9,
  CACHE_WRITE_1H: 10,
  REASONING: 11,
  /** Cost the harness reported itself, in micro-dollars (only with FLAG.REPORTED_COST). */
  COST_MICRO: 12,
  /** Index into the ledger's tool-set table (only with FLAG.TOOLS_KNOWN). */
  TOOLS: 13,
} as const;

export const RECORD_FIELDS = 14;

export const FLAG = {
  /** Written by a subagent / sidechain; loses to a main-thread copy of the same response. */
  SIDECHAIN: 1 << 0,
  /** The record has no identity (no message id): it is never treated as a duplicate. */
  NO_KEY: 1 << 1,
  INPUT_KNOWN: 1 << 2,
  OUTPUT_KNOWN: 1 << 3,
  CACHE_READ_KNOWN: 1 << 4,
  CACHE_WRITE_KNOWN: 1 << 5,
  REASONING_KNOWN: 1 << 6,
  REPORTED_COST: 1 << 7,
  /**
   * The harness says which tools the response called (`F.TOOLS`, the empty set when none). Without
   * it the record's tools are unknown, which a report shows as `(unknown)`, never as none.
   */
  TOOLS_KNOWN: 1 << 8,
  /**
   * Served in fast mode (Claude's `usage.speed: "fast"`): the same tokens at a multiple of the
   * standard price (`model/pricing-speed.ts`).
   */
  FAST: 1 << 9,
} as const;

export interface RequestTokens {
  /** Uncached input. */
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  /** 5-minute (or untiered) cache writes. */
  cacheWrite5m: number | null;
  cacheWrite1h: number | null;
  /** Inside `output`, reported separately. */
  reasoning: number | null;
}

export interface RequestRecord {
  /** Identity of the response (hash of its message id, see `IdHash`), or null when it has none. */
  key: IdHash | null;
  /** Hash of the request id (0 when there is none). */
  request: number;
  tsMs: number;
  model: string;
  sidechain: boolean;
  tokens: RequestTokens;
  reportedCostUsd?: number | null;
  /**
   * The names of the tools the response called (repeats allowed, any order), `[]` when it called
   * none; absent or null when its records do not say.
   */
  tools?: readonly string[] | null;
  /** Served in fast mode, priced at its multiple (absent: standard). */
  fast?: boolean;
}

const INITIAL_CAPACITY = 64;

const clampU32 = (n: number | null): number => {
  if (n === null || !Number.isFinite(n) || n <= 0) return 0;
  return n >= 0xffffffff ? 0xffffffff : Math.floor(n);
};

/** An append-only ledger under construction, with its model and tool-set tables. */
export class LedgerBuilder {
  private data = new Uint32Array(INITIAL_CAPACITY * RECORD_FIELDS);
  private count = 0;
  readonly models: string[];
  private modelIndex = new Map<string, number>();
  private readonly tools: ToolSetTable;

  /** A ledger continuing `initial` (records written with these `models` and `toolSets`), or a new one. */
  constructor(models: string[] = [], initial?: Uint32Array, toolSets: readonly ToolSet[] = []) {
    this.tools = new ToolSetTable(toolSets);
    this.models = valueListOf('', models);
    for (const [i, m] of this.models.entries()) this.modelIndex.set(m, i);
    if (initial && initial.length > 0) {
      this.data = new Uint32Array(Math.max(initial.length * 2, INITIAL_CAPACITY * RECORD_FIELDS));
      this.data.set(initial);
      this.count = initial.length / RECORD_FIELDS;
    }
  }

  get length(): number {
    return this.count;
  }

  modelId(model: string): number {
    let id = this.modelIndex.get(model);
    if (id === undefined) {
      id = this.models.length;
      this.models.push(model);
      this.modelIndex.set(model, id);
    }
    return id;
  }

  /** Append a record and return its index. */
  push(r: RequestRecord): number {
    if ((this.count + 1) * RECORD_FIELDS > this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    const at = this.count * RECORD_FIELDS;
    this.write(at, r);
    return this.count++;
  }

  /** Replace record `index` (a later, more complete copy of the same response). */
  replace(index: number, r: RequestRecord): void {
    this.write(index * RECORD_FIELDS, r);
  }

  /**
   * Add `names` to the tools record `index` called (another copy of the response named more of its
   * calls, or its calls came after its usage); a record whose tools were unknown now knows these.
   */
  addTools(index: number, names: readonly string[]): void {
    const at = index * RECORD_FIELDS;
    const d = this.data;
    const flags = d[at + F.FLAGS]!;
    d[at + F.TOOLS] =
      flags & FLAG.TOOLS_KNOWN ? this.tools.union(d[at + F.TOOLS]!, names) : this.tools.idOf(names);
    d[at + F.FLAGS] = flags | FLAG.TOOLS_KNOWN;
  }

  /** The tools record `index` called, or null when that is unknown. */
  toolsAt(index: number): ToolSet | null {
    const at = index * RECORD_FIELDS;
    if (!(this.data[at + F.FLAGS]! & FLAG.TOOLS_KNOWN)) return null;
    return this.tools.sets[this.data[at + F.TOOLS]!] ?? null;
  }

  /** Sum of the four token kinds of record `index`, for "keep the most complete copy". */
  total(index: number): number {
    const at = index * RECORD_FIELDS;
    const d = this.data;
    return (
      d[at + F.INPUT]! +
      d[at + F.OUTPUT]! +
      d[at + F.CACHE_READ]! +
      d[at + F.CACHE_WRITE_5M]! +
      d[at + F.CACHE_WRITE_1H]!
    );
  }

  private write(at: number, r: RequestRecord): void {
    const d = this.data;
    const t = r.tokens;
    let flags = 0;
    if (r.sidechain) flags |= FLAG.SIDECHAIN;
    if (r.fast === true) flags |= FLAG.FAST;
    if (r.key === null) {
      flags |= FLAG.NO_KEY;
      d[at + F.KEY_HI] = 0;
      d[at + F.KEY_LO] = 0;
    } else {
      d[at + F.KEY_HI] = r.key.hi;
      d[at + F.KEY_LO] = r.key.lo;
    }
    d[at + F.REQ] = r.request;
    d[at + F.TS] = clampU32(r.tsMs / 1000);
    d[at + F.MODEL] = this.modelId(r.model);
    if (t.input !== null) flags |= FLAG.INPUT_KNOWN;
    if (t.output !== null) flags |= FLAG.OUTPUT_KNOWN;
    if (t.cacheRead !== null) flags |= FLAG.CACHE_READ_KNOWN;
    if (t.cacheWrite5m !== null || t.cacheWrite1h !== null) flags |= FLAG.CACHE_WRITE_KNOWN;
    if (t.reasoning !== null) flags |= FLAG.REASONING_KNOWN;
    d[at + F.INPUT] = clampU32(t.input);
    d[at + F.OUTPUT] = clampU32(t.output);
    d[at + F.CACHE_READ] = clampU32(t.cacheRead);
    d[at + F.CACHE_WRITE_5M] = clampU32(t.cacheWrite5m);
    d[at + F.CACHE_WRITE_1H] = clampU32(t.cacheWrite1h);
    d[at + F.REASONING] = clampU32(t.reasoning);
    const cost = r.reportedCostUsd;
    if (cost !== undefined && cost !== null && Number.isFinite(cost) && cost >= 0) {
      flags |= FLAG.REPORTED_COST;
      d[at + F.COST_MICRO] = clampU32(Math.round(cost * 1e6));
    } else {
      d[at + F.COST_MICRO] = 0;
    }
    if (r.tools !== undefined && r.tools !== null) {
      flags |= FLAG.TOOLS_KNOWN;
      d[at + F.TOOLS] = this.tools.idOf(r.tools);
    } else {
      d[at + F.TOOLS] = 0;
    }
    d[at + F.FLAGS] = flags;
  }

  /** The finished ledger: a view trimmed to the records written. */
  build(): Ledger {
    return {
      models: valueListOf('', this.models),
      toolSets: valueListOf<ToolSet>([], this.tools.sets),
      data: this.data.slice(0, this.count * RECORD_FIELDS),
    };
  }
}

export interface Ledger {
  models: string[];
  /** The sets of tool names the records' `F.TOOLS` index. */
  toolSets: ToolSet[];
  data: Uint32Array;
}

export function ledgerLength(l: Ledger): number {
  return l.data.length / RECORD_FIELDS;
}

/**
 * Records without a time (`F.TS` 0: the request's line had no timestamp, nor any line before it):
 * counted in their session, in no day, hour or block.
 */
export function untimedRequests(l: Ledger): number {
  let n = 0;
  for (let at = F.TS; at < l.data.length; at += RECORD_FIELDS) if (l.data[at] === 0) n++;
  return n;
}

export const emptyLedger = (): Ledger => ({
  models: valueList(''),
  toolSets: valueList<ToolSet>([]),
  data: new Uint32Array(0),
});
