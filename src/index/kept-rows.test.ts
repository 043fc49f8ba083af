import { describe, expect, it } from 'vitest';
import { countSorted, sortedKeys } from './kept-rows.js';

describe("a pack's sorted keys", () => {
  // Triples of (file, high, low): keys at the ends of both words' ranges, one held by two files, one twice by one.
  const MAX = 0xffff_ffff;
  const triples = Uint32Array.from([
    0,
    5,
    MAX,
    0,
    0,
    0,
    1,
    MAX,
    1,
    1,
    5,
    MAX,
    2,
    6,
    0,
    2,
    0,
    0,
    2,
    0,
    0,
    3,
    MAX,
    MAX,
  ]);

  it('count every key as often as the triples hold it, and a key they do not hold as none', () => {
    const sorted = sortedKeys(triples);
    const count = (h: number, l: number) => countSorted(sorted, h, l);
    expect([count(5, MAX), count(0, 0), count(MAX, 1), count(6, 0), count(MAX, MAX)]).toEqual([
      2, 3, 1, 1, 1,
    ]);
    expect([count(5, 0), count(6, MAX), count(0, 1), count(MAX, 0), count(4, MAX)]).toEqual([0, 0, 0, 0, 0]);
  });

  it('of no triples count nothing', () => {
    expect(countSorted(sortedKeys(new Uint32Array(0)), 0, 0)).toBe(0);
  });
});
