import { describe, expect, it } from 'vitest';
import { PROVIDER_LIST } from './index.js';
import { PLACE_LIST, placeById } from './places.js';
import type { ProviderPlace } from './types.js';

describe('provider places', () => {
  it('list the same harnesses in the same order as the full providers', () => {
    expect(PLACE_LIST.map((p) => p.id)).toEqual(PROVIDER_LIST.map((p) => p.id));
  });

  it('find files and size sessions exactly as the full providers do: they are the same rules', () => {
    for (const [i, full] of PROVIDER_LIST.entries()) {
      const place = PLACE_LIST[i]!;
      for (const key of Object.keys(place) as (keyof ProviderPlace)[]) expect(full[key]).toBe(place[key]);
    }
  });

  it('an unknown provider id is refused rather than answered with another', () => {
    expect(placeById('codex').label).toBe('Codex');
    expect(() => placeById('nope' as ProviderPlace['id'])).toThrow('unknown provider nope');
  });
});
