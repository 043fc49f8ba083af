import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../model/facts.js';
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

  it('are the ids of the one list, each in its place in the order', () => {
    expect(PLACE_LIST.map((p) => p.id)).toEqual([...PROVIDERS]);
    for (const id of PROVIDERS) expect(placeById(id).id).toBe(id);
  });

  it('say how to resume a session only for a harness that resumes one by its id', () => {
    expect(placeById('claude').resumeCommand?.('02d7b670-5237-46d6-b46d-86ffd47bdf03')).toEqual([
      'claude',
      '--resume',
      '02d7b670-5237-46d6-b46d-86ffd47bdf03',
    ]);
    expect(placeById('codex').resumeCommand?.('019982b8-3422-79e0-8b3b-05abaf4f3c3e')).toEqual([
      'codex',
      'resume',
      '019982b8-3422-79e0-8b3b-05abaf4f3c3e',
    ]);
    expect(placeById('cursor').resumeCommand).toBeUndefined();
  });

  it('recognise their own processes and no other harness’s', () => {
    const claude = [
      'node',
      '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js',
      '--resume',
      '02d7b670-5237-46d6-b46d-86ffd47bdf03',
    ];
    const codex = ['/usr/local/bin/codex', 'resume', '019982b8-3422-79e0-8b3b-05abaf4f3c3e'];
    expect(PLACE_LIST.filter((p) => p.processes?.isAgent(claude)).map((p) => p.id)).toEqual(['claude']);
    expect(PLACE_LIST.filter((p) => p.processes?.isAgent(codex)).map((p) => p.id)).toEqual(['codex']);
    expect(placeById('claude').processes?.sessionArg(claude)).toBe('02d7b670-5237-46d6-b46d-86ffd47bdf03');
    expect(placeById('codex').processes?.sessionArg(codex)).toBe('019982b8-3422-79e0-8b3b-05abaf4f3c3e');
  });

  it('an unknown provider id is refused rather than answered with another', () => {
    expect(placeById('codex').label).toBe('Codex');
    expect(() => placeById('nope' as ProviderPlace['id'])).toThrow('unknown provider nope');
  });
});
