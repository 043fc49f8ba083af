import { describe, expect, it } from 'vitest';
import { dedupe } from './dedupe.js';
import { hashString, LedgerBuilder, type RequestRecord } from './ledger.js';

const rec = (
  key: string | null,
  requestId: string | null,
  output: number,
  sidechain = false,
): RequestRecord => ({
  key: key === null ? null : hashString(key),
  request: requestId === null ? 0 : hashString(requestId).hi,
  tsMs: 0,
  model: 'm',
  sidechain,
  tokens: { input: 1, output, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: null },
});

const ledger = (...rs: RequestRecord[]) => {
  const b = new LedgerBuilder();
  for (const r of rs) b.push(r);
  return b.build();
};

describe('counting each response once across files', () => {
  it('the same message and request in two files counts once, in the file that had it first', () => {
    const [a, b] = dedupe([ledger(rec('m1', 'r1', 5)), ledger(rec('m1', 'r1', 5), rec('m2', 'r2', 1))]);
    expect([...a!]).toEqual([1]);
    expect([...b!]).toEqual([0, 1]);
  });

  it('of two copies the fuller one counts', () => {
    const [a, b] = dedupe([ledger(rec('m1', 'r1', 1)), ledger(rec('m1', 'r1', 50))]);
    expect([...a!, ...b!]).toEqual([0, 1]);
  });

  it('a sidechain replay with a new request id loses to the main-thread copy, whichever came first', () => {
    const [side, main] = dedupe([ledger(rec('m1', 'r9', 5, true)), ledger(rec('m1', 'r1', 5))]);
    expect([...side!, ...main!]).toEqual([0, 1]);
  });

  it('two main-thread responses with one message id and different request ids both count', () => {
    const [a] = dedupe([ledger(rec('m1', 'r1', 5), rec('m1', 'r2', 5))]);
    expect([...a!]).toEqual([1, 1]);
  });

  it('a file on disk keeps its copy against a later, fuller or main-thread copy in a deleted file', () => {
    // The first ledger is on disk (`settled` 1), the others only remembered: each repeats m1 and m2.
    const [disk, fuller, main] = dedupe(
      [
        ledger(rec('m1', 'r1', 1), rec('m2', 'r9', 5, true)),
        ledger(rec('m1', 'r1', 50)),
        ledger(rec('m2', 'r2', 5), rec('m3', 'r3', 5), rec('m3', 'r3', 9)),
      ],
      1,
    );
    // Among the remembered files the rules hold as ever: the fuller copy of m3 counts.
    expect([...disk!, ...fuller!, ...main!]).toEqual([1, 1, 0, 0, 0, 1]);
  });

  it('records without an identity are never duplicates', () => {
    const [a] = dedupe([ledger(rec(null, null, 5), rec(null, null, 5))]);
    expect([...a!]).toEqual([1, 1]);
  });
});
