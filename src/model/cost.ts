/**
 * Turning ledger records into money and token totals: per request (its own long-context tier), then
 * summed per model, per clock hour and per local day.
 *
 * Spend per hour and per day is kept by absolute bucket (the hour's start, the local day's number),
 * not by distance from now: what a build learns does not move with the clock, and the windows a view
 * shows ("the last 48 hours") are cut at the moment of printing (`spendWindows`).
 */

import { sparseList, valueList } from './kinds.js';
import { F, FLAG, type Ledger, RECORD_FIELDS } from './ledger.js';
import { money } from './money.js';
import { PriceBook, type PriceLookup, type Rates, type VendorHint } from './pricing.js';
import { fastMultiplier } from './pricing-speed.js';
import type { LocalTime } from './time.js';
import { emptyTokens, type TokenCounts } from './usage.js';
import { CellSink, NO_TOOL, UNKNOWN_TOOLS } from './usage-cells.js';
import type { SpendBuckets } from './windows.js';

// The windows cut from the buckets at the moment of printing live apart, so that a warm answer
// (`warm-answer.ts`) cuts them without loading the cost model.
export { DAYS_KEPT, HOURS_KEPT, type SpendBuckets, spendWindows } from './windows.js';

export interface ModelTotals {
  model: string;
  /** Requests served in fast mode, kept apart from the model's standard ones (`pricing-speed.ts`). */
  fast: boolean;
  tokens: TokenCounts;
  requests: number;
  /** Estimated cost of the priced part; null when the model has no price. */
  usd: number | null;
  reportedUsd: number;
}

export interface Totals {
  tokens: TokenCounts;
  requests: number;
  estimatedUsd: number;
  reportedUsd: number;
  /** Some request had a price (estimated or reported). */
  priced: boolean;
  /** By model, its fast-mode requests under `modelKey(model, true)`. */
  byModel: Map<string, ModelTotals>;
  /** Spend per clock hour, by the hour's start (ms). */
  hours: Map<number, number>;
  /** Spend per local day, by day number (days since 1970-01-01 in the zone). */
  days: Map<number, number>;
  /** Requests per UTC hour, local day and model: what the spend reports are made of. */
  cells: CellSink;
}

export function emptyTotals(): Totals {
  return {
    tokens: emptyTokens(),
    requests: 0,
    estimatedUsd: 0,
    reportedUsd: 0,
    priced: false,
    byModel: new Map(),
    hours: new Map(),
    days: new Map(),
    cells: new CellSink(),
  };
}

export interface CostClock {
  time: LocalTime;
  /** Only requests in [sinceMs, untilMs) count, when set. */
  sinceMs: number | null;
  untilMs: number | null;
}

function addTokens(
  t: TokenCounts,
  flags: number,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  reasoning: number,
): void {
  // Every field is summed and stored on every call, the unknown ones kept as they were: a field
  // whose store first runs after the code was optimised (reasoning, which only Codex records know)
  // threw that code away ("insufficient type feedback") and had it compiled again.
  const i = (t.input ?? 0) + input;
  const o = (t.output ?? 0) + output;
  const cr = (t.cacheRead ?? 0) + cacheRead;
  const cw = (t.cacheWrite ?? 0) + cacheWrite;
  const r = (t.reasoning ?? 0) + reasoning;
  t.input = flags & FLAG.INPUT_KNOWN ? i : t.input;
  t.output = flags & FLAG.OUTPUT_KNOWN ? o : t.output;
  t.cacheRead = flags & FLAG.CACHE_READ_KNOWN ? cr : t.cacheRead;
  t.cacheWrite = flags & FLAG.CACHE_WRITE_KNOWN ? cw : t.cacheWrite;
  t.reasoning = flags & FLAG.REASONING_KNOWN ? r : t.reasoning;
}

/** Where a model's totals are kept in `Totals.byModel`: its fast-mode requests apart. */
export const modelKey = (model: string, fast: boolean): string => (fast ? `${model}\u0000fast` : model);

/** Each model's fast-mode multiple by its index, looked up the first time a fast request of it turns up. */
function fastMultiples(models: readonly string[]): (mi: number) => number | null {
  const known = sparseList<number | null>();
  return (mi) => {
    let k = known[mi];
    if (k === undefined) {
      k = fastMultiplier(models[mi] ?? 'unknown');
      known[mi] = k;
    }
    return k;
  };
}

/** The cells' model id of each of a ledger's models. */
function cellModelIds(cells: CellSink, models: readonly string[]): Int32Array {
  const ids = new Int32Array(models.length);
  for (let mi = 0; mi < models.length; mi++) ids[mi] = cells.modelId(models[mi]!);
  return ids;
}

/** The cells' tool ids of each of a ledger's tool sets, `NO_TOOL` for the empty set. */
function cellToolIds(cells: CellSink, toolSets: readonly (readonly string[])[]): Int32Array[] {
  const noTool = Int32Array.of(cells.toolId(NO_TOOL));
  const out = valueList(noTool);
  for (const s of toolSets) {
    if (s.length === 0) {
      out.push(noTool);
      continue;
    }
    const ids = new Int32Array(s.length);
    for (let k = 0; k < s.length; k++) ids[k] = cells.toolId(s[k]!);
    out.push(ids);
  }
  return out;
}

/** Fold the counted records of `ledger` (mask 1) into `into`. */
export function addLedger(
  into: Totals,
  ledger: Ledger,
  mask: Uint8Array | null,
  book: PriceBook,
  vendor: VendorHint,
  clock: CostClock,
  /** Called for every counted request that has a time, for views that bucket differently (the report). */
  each?: (tsMs: number, model: string, usd: number | null, tokens: number, sidechain: boolean) => void,
): void {
  const d = ledger.data;
  // Tables filled by loops into arrays of one kind (`kinds.ts`): an optimised `map` returns another
  // kind (holey) than the interpreter's, and the loop below, compiled for one, died on the other.
  const models = ledger.models;
  const lookups = valueList<PriceLookup | null>(null);
  // Rates per model and tier, resolved on first use: the loop below must not build strings.
  const tiers = valueList(sparseList<Rates | null>());
  for (const m of models) {
    lookups.push(book.lookup(m, vendor));
    tiers.push(sparseList<Rates | null>());
  }
  const cellModels = cellModelIds(into.cells, models);
  const multipleOf = fastMultiples(models);
  const unknownModel = into.cells.modelId('unknown');
  // The cells' tool ids of each of the ledger's tool sets, so a request is split without a string.
  const unknownTools = Int32Array.of(into.cells.toolId(UNKNOWN_TOOLS));
  const cellTools = cellToolIds(into.cells, ledger.toolSets);
  const ratesOf = (mi: number, model: string, prompt: number, tsMs: number): Rates | null => {
    const found = lookups[mi];
    if (found?.kind !== 'priced') return null;
    if (found.pricing.timeDependent) return book.ratesFor(model, vendor, prompt, tsMs);
    const tier = PriceBook.tierOf(found.pricing, prompt);
    const known = tiers[mi]!;
    let r = known[tier];
    if (r === undefined) {
      r = book.ratesFor(model, vendor, prompt, tsMs);
      known[tier] = r;
    }
    return r;
  };
  for (let r = 0, at = 0; at < d.length; r++, at += RECORD_FIELDS) {
    if (mask && mask[r] === 0) continue;
    const tsMs = d[at + F.TS]! * 1000;
    if (clock.sinceMs !== null && tsMs < clock.sinceMs) continue;
    if (clock.untilMs !== null && tsMs >= clock.untilMs) continue;
    const flags = d[at + F.FLAGS]!;
    const model = models[d[at + F.MODEL]!] ?? 'unknown';
    const input = d[at + F.INPUT]!;
    const output = d[at + F.OUTPUT]!;
    const cacheRead = d[at + F.CACHE_READ]!;
    const cw5 = d[at + F.CACHE_WRITE_5M]!;
    const cw1 = d[at + F.CACHE_WRITE_1H]!;
    const reasoning = d[at + F.REASONING]!;

    const fast = (flags & FLAG.FAST) !== 0;
    const key = fast ? modelKey(model, true) : model;
    let m = into.byModel.get(key);
    if (!m) {
      m = { model, fast, tokens: emptyTokens(), requests: 0, usd: null, reportedUsd: 0 };
      into.byModel.set(key, m);
    }
    addTokens(into.tokens, flags, input, output, cacheRead, cw5 + cw1, reasoning);
    addTokens(m.tokens, flags, input, output, cacheRead, cw5 + cw1, reasoning);
    into.requests++;
    m.requests++;

    let usd: number | null = null;
    if (flags & FLAG.REPORTED_COST) {
      usd = d[at + F.COST_MICRO]! / 1e6;
      into.reportedUsd += usd;
      m.reportedUsd += usd;
    } else {
      const mi = d[at + F.MODEL]!;
      const rates = ratesOf(mi, model, input + cacheRead + cw5 + cw1, tsMs);
      // A fast request costs its multiple of the standard price; a model without one has no price.
      const multiple = fast ? multipleOf(mi) : 1;
      if (rates && multiple !== null) {
        usd =
          (input * rates.input +
            cacheRead * rates.cacheRead +
            cw5 * rates.cacheWrite5m +
            cw1 * rates.cacheWrite1h +
            output * rates.output +
            rates.perRequest) *
          multiple;
        into.estimatedUsd += usd;
        m.usd = (m.usd ?? 0) + usd;
      }
    }
    if (usd !== null) into.priced = true;
    // A request with no time (no line of its file had one) counts toward its session but toward no
    // period: it did not happen on 1970-01-01. `cctop doctor` counts them (`untimedRequests`).
    if (tsMs === 0) continue;
    each?.(tsMs, model, usd, input + output + cacheRead + cw5 + cw1, (flags & FLAG.SIDECHAIN) !== 0);
    const day = clock.time.dayNumber(tsMs);
    const cell = into.cells.cell(tsMs, day, cellModels[d[at + F.MODEL]!] ?? unknownModel);
    cell.requests++;
    addTokens(cell.tokens, flags, input, output, cacheRead, cw5 + cw1, reasoning);
    // A set index past the table (a damaged row) says nothing: unknown, as a record that never knew.
    const tools = flags & FLAG.TOOLS_KNOWN ? (cellTools[d[at + F.TOOLS]!] ?? unknownTools) : unknownTools;
    into.cells.split(cell, tools, usd ?? 0, input + output + cacheRead + cw5 + cw1);
    if (usd === null) continue;
    cell.usd = (cell.usd ?? 0) + usd;
    const hour = clock.time.hourStart(tsMs);
    into.hours.set(hour, (into.hours.get(hour) ?? 0) + usd);
    into.days.set(day, (into.days.get(day) ?? 0) + usd);
  }
}

export function spendBuckets(t: Totals): SpendBuckets {
  const sorted = (m: Map<number, number>): [number, number][] =>
    [...m].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, money(v)]);
  return { hours: sorted(t.hours), days: sorted(t.days) };
}
