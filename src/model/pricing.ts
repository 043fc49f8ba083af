/**
 * Prices from a maintained catalogue (`@pydantic/genai-prices`, bundled data, offline), resolved once
 * per model and long-context tier, so that pricing a request is five multiplications.
 *
 * The catalogue's own `calcPrice` is the source of truth for what a token costs: rather than
 * re-implementing its unit and tier rules, a model's per-token rates are read off it with a few probe
 * calls (all-uncached, all-cache-read, …) at a prompt size inside each tier. Prices are linear within
 * a tier, so the probes recover the rates exactly, and the per-request arithmetic stays cheap enough
 * for a scan of a few hundred thousand requests.
 *
 * The catalogue's `input_tokens` is the whole prompt, cache included, whereas cctop's `input` is the
 * uncached part; the conversion happens here and nowhere else.
 *
 * Not here: loading an updated catalogue from disk (the caller hands the data in), plans (see
 * `plan.ts`), and any network access.
 */
import { createRequire } from 'node:module';
import type { ModelInfo, Provider } from '@pydantic/genai-prices';

type Catalogue = typeof import('@pydantic/genai-prices');

const require = createRequire(import.meta.url);
let catalogue: Catalogue | null = null;
/** Newer provider data to apply when the catalogue is first loaded (`cctop pricing update`). */
let pendingData: (() => Provider[] | null) | null = null;

/**
 * The catalogue module, loaded on first use: it is a few megabytes of JavaScript, and a warm run
 * whose prices are all in the persistent cache never needs it.
 */
function lib(): Catalogue {
  if (catalogue === null) {
    catalogue = require('@pydantic/genai-prices') as Catalogue;
    const data = pendingData?.();
    pendingData = null;
    if (data) catalogue.updatePrices(({ setProviderData }) => setProviderData(data));
  }
  return catalogue;
}

/** Somewhere to keep resolved prices between runs (the index); keys include the catalogue digest. */
export interface PriceCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/** USD per token for each kind of token a request can carry. */
export interface Rates {
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
  /** A flat fee per request, where the catalogue has one. */
  perRequest: number;
}

export interface ModelPricing {
  /** The catalogue's id for the model (`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
  catalogueId: string;
  providerId: string;
  contextWindow: number | null;
  /** Prompt sizes above which a long-context tier applies, ascending. */
  thresholds: number[];
  /** Prices that change over time (a start date or time of day) are looked up per hour. */
  timeDependent: boolean;
}

export type PriceLookup = { kind: 'priced'; pricing: ModelPricing } | { kind: 'unpriced'; reason: string };

/** Which catalogue provider to try first for a harness's models. */
export type VendorHint = 'anthropic' | 'openai' | 'google' | null;

const HOUR_MS = 3_600_000;

function tierStarts(prices: unknown): number[] {
  const out = new Set<number>();
  const visit = (p: unknown) => {
    if (p && typeof p === 'object') {
      for (const v of Object.values(p as Record<string, unknown>)) {
        if (v && typeof v === 'object' && Array.isArray((v as { tiers?: unknown }).tiers)) {
          for (const t of (v as { tiers: { start?: unknown }[] }).tiers) {
            if (typeof t.start === 'number') out.add(t.start);
          }
        }
      }
    }
  };
  if (Array.isArray(prices)) for (const c of prices) visit((c as { prices?: unknown }).prices);
  else visit(prices);
  return [...out].sort((a, b) => a - b);
}

/** Normalise a harness's model string to what a catalogue recognises. */
export function catalogueModelName(model: string): string {
  return model
    .replace(/\[[^\]]*\]$/, '')
    .trim()
    .toLowerCase();
}

export class PriceBook {
  private lookups = new Map<string, PriceLookup>();
  private rates = new Map<string, Rates | null>();

  /**
   * @param digest names the catalogue in use, so cached prices from another catalogue never apply.
   * @param cache keeps resolved prices between runs.
   */
  constructor(
    private readonly digest = 'bundled',
    private readonly cache: PriceCache | null = null,
  ) {}

  /** Replace the bundled catalogue with newer data (from `cctop pricing update`), when it is loaded. */
  static useCatalogue(load: () => Provider[] | null): void {
    if (catalogue !== null) {
      const data = load();
      if (data) catalogue.updatePrices(({ setProviderData }) => setProviderData(data));
    } else pendingData = load;
  }

  private cached<T>(key: string, compute: () => T): T {
    const full = `${this.digest}\u0000${key}`;
    const hit = this.cache?.get(full);
    if (hit !== undefined) return JSON.parse(hit) as T;
    const value = compute();
    this.cache?.set(full, JSON.stringify(value));
    return value;
  }

  lookup(model: string, hint: VendorHint = null): PriceLookup {
    const cacheKey = `${hint ?? ''}\u0000${model}`;
    const known = this.lookups.get(cacheKey);
    if (known) return known;
    const found = this.cached(`lookup\u0000${cacheKey}`, () => this.resolve(model, hint));
    this.lookups.set(cacheKey, found);
    return found;
  }

  private resolve(model: string, hint: VendorHint): PriceLookup {
    const name = catalogueModelName(model);
    if (name === '' || name === '<synthetic>') return { kind: 'unpriced', reason: 'not a billed model' };
    try {
      const probe = { input_tokens: 1 };
      const { calcPrice } = lib();
      const hinted = hint ? calcPrice(probe, name, { providerId: hint }) : null;
      const result = hinted ?? calcPrice(probe, name);
      if (!result) return { kind: 'unpriced', reason: 'not in the price catalogue' };
      const info: ModelInfo = result.model;
      return {
        kind: 'priced',
        pricing: {
          catalogueId: info.id,
          providerId: result.provider.id,
          contextWindow: info.context_window ?? null,
          thresholds: tierStarts(info.prices),
          timeDependent: Array.isArray(info.prices),
        },
      };
    } catch (err) {
      return { kind: 'unpriced', reason: `the price catalogue rejected it: ${(err as Error).message}` };
    }
  }

  /** The tier a request falls in: how many thresholds its prompt exceeds. */
  static tierOf(pricing: ModelPricing, prompt: number): number {
    let tier = 0;
    for (const t of pricing.thresholds) if (prompt > t) tier++;
    return tier;
  }

  /**
   * Per-token rates for `model` at a prompt of `prompt` tokens sent at `tsMs`, or null when the model
   * is unpriced or the catalogue refused the probe.
   */
  ratesFor(model: string, hint: VendorHint, prompt: number, tsMs: number): Rates | null {
    const found = this.lookup(model, hint);
    if (found.kind === 'unpriced') return null;
    const p = found.pricing;
    const tier = PriceBook.tierOf(p, prompt);
    const hour = p.timeDependent ? Math.floor(tsMs / HOUR_MS) : 0;
    const key = `${hint ?? ''}\u0000${model}\u0000${tier}\u0000${hour}`;
    if (this.rates.has(key)) return this.rates.get(key) ?? null;
    const at = p.timeDependent ? hour * HOUR_MS : Date.now();
    const rates = this.cached(`rates\u0000${key}`, () => this.probe(model, hint, p, tier, at));
    this.rates.set(key, rates);
    return rates;
  }

  private probe(model: string, hint: VendorHint, p: ModelPricing, tier: number, tsMs: number): Rates | null {
    const name = catalogueModelName(model);
    // A prompt size inside the tier: one token past its threshold (or a single token for the base tier).
    const r = tier === 0 ? 1 : p.thresholds[tier - 1]! + 1;
    const options = { timestamp: new Date(tsMs), ...(hint ? { providerId: p.providerId } : {}) };
    const { calcPrice } = lib();
    const price = (usage: Record<string, number>): number => {
      const res = calcPrice(usage, name, options);
      if (!res) throw new Error('no price');
      return res.total_price;
    };
    try {
      const fee = price({ input_tokens: 0 });
      const per = (usage: Record<string, number>) => Math.max(0, price(usage) - fee) / r;
      const input = per({ input_tokens: r });
      return {
        input,
        cacheRead: per({ input_tokens: r, cache_read_tokens: r }),
        cacheWrite5m: per({ input_tokens: r, cache_write_tokens: r }),
        cacheWrite1h: per({ input_tokens: r, cache_write_tokens: r, cache_write_1h_tokens: r }),
        output: per({ input_tokens: r, output_tokens: r }) - input,
        perRequest: fee,
      };
    } catch {
      return null;
    }
  }
}
