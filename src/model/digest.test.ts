import { describe, expect, it } from 'vitest';
import { Digest } from './digest.js';

describe('the change digest', () => {
  it('differs when any field, its boundary or a fraction of a number differs', () => {
    const of = (f: (d: Digest) => Digest) => f(new Digest()).hex();
    const base = of((d) => d.string('ab').string('c').number(1.5));
    expect(of((d) => d.string('ab').string('c').number(1.5))).toBe(base);
    expect(of((d) => d.string('a').string('bc').number(1.5))).not.toBe(base);
    expect(of((d) => d.string('ab').string('c').number(1.500001))).not.toBe(base);
    expect(
      of((d) =>
        d
          .string('ab')
          .string('c')
          .number(2 ** 40 + 1.5),
      ),
    ).not.toBe(base);
    expect(of((d) => d.bytes(Buffer.from('abc')))).not.toBe(of((d) => d.bytes(Buffer.from('abd'))));
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(of((d) => d.text('one long text'))).not.toBe(of((d) => d.text('one long texu')));
    expect(of((d) => d.text('one long text'))).not.toBe(of((d) => d.string('one long text')));
  });

  it('spreads near-identical inputs (no two of 100,000 paths that differ by a digit collide)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++)
      seen.add(new Digest().string(`/home/u/.claude/projects/p/${i}.jsonl`).hex());
    expect(seen.size).toBe(100_000);
  });
});
