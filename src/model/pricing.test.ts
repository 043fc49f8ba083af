import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { PriceBook } from './pricing.js';

describe('prices read off the catalogue', () => {
  const book = new PriceBook();
  const cost = (
    model: string,
    r: { input: number; cacheRead: number; cacheWrite: number; output: number },
  ) => {
    const prompt = r.input + r.cacheRead + r.cacheWrite;
    const rates = book.ratesFor(model, 'anthropic', prompt, Date.now())!;
    return (
      r.input * rates.input +
      r.cacheRead * rates.cacheRead +
      r.cacheWrite * rates.cacheWrite5m +
      r.output * rates.output
    );
  };

  it('per-request arithmetic gives what the catalogue itself computes, in both tiers', () => {
    for (const r of [
      { input: 1_200, cacheRead: 80_000, cacheWrite: 3_000, output: 900 },
      { input: 5_000, cacheRead: 240_000, cacheWrite: 20_000, output: 4_000 },
    ]) {
      const theirs = calcPrice(
        {
          input_tokens: r.input + r.cacheRead + r.cacheWrite,
          cache_read_tokens: r.cacheRead,
          cache_write_tokens: r.cacheWrite,
          output_tokens: r.output,
        },
        'claude-sonnet-4-5-20250929',
      )!.total_price;
      expect(cost('claude-sonnet-4-5-20250929', r)).toBeCloseTo(theirs, 10);
    }
  });

  it('a model the catalogue does not know has no price, rather than a price of zero', () => {
    expect(book.lookup('claude-imaginary-9', 'anthropic').kind).toBe('unpriced');
    expect(book.ratesFor('claude-imaginary-9', 'anthropic', 10, Date.now())).toBeNull();
    expect(book.lookup('<synthetic>', 'anthropic').kind).toBe('unpriced');
  });

  it('a model name with a [1m] suffix prices as its base model', () => {
    const base = book.lookup('claude-sonnet-4-5-20250929', 'anthropic');
    const pinned = book.lookup('claude-sonnet-4-5-20250929[1m]', 'anthropic');
    expect(pinned).toEqual(base);
  });

  it('knows the long-context thresholds of a tiered model', () => {
    const found = book.lookup('claude-sonnet-4-5-20250929', 'anthropic');
    expect(found.kind === 'priced' && found.pricing.thresholds).toEqual([200_000]);
  });
});
