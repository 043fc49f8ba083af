import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as terminal from './cli/format.js';
import { ago, counted, duration, percent, shortModel, tokens, UNKNOWN, usd } from './format.js';

const NOW = Date.parse('2026-03-02T12:00:00Z');

describe('how a number reads, in every view', () => {
  it('an unknown value is the dash, never zero', () => {
    expect([
      usd(null),
      tokens(null),
      ago(null, NOW),
      duration(null),
      percent(null, 100),
      shortModel(null),
    ]).toEqual(Array(6).fill(UNKNOWN));
    expect(percent(5, 0)).toBe(UNKNOWN);
    // A timestamp that did not parse is as unknown as a missing one.
    expect(ago(Number.NaN, NOW)).toBe(UNKNOWN);
    expect(duration(Number.NaN)).toBe(UNKNOWN);
  });

  it('spend reads short, and a bundled plan reads incl', () => {
    expect([0, 0.004, 3.2, 1204.4, 99_999.6, 250_000].map((v) => usd(v))).toEqual([
      '$0.00',
      '<$0.01',
      '$3.20',
      '$1,204',
      '$100,000',
      '$250k',
    ]);
    expect(usd(12, true)).toBe('incl');
  });

  it('a count says its noun in the singular for one: 1 compaction, not 1 compactions', () => {
    expect([0, 1, 2].map((n) => counted(n, 'compaction'))).toEqual([
      '0 compactions',
      '1 compaction',
      '2 compactions',
    ]);
  });

  it('tokens read in at most four characters', () => {
    expect([950, 9_500, 95_000, 9_500_000, 950_000_000, 9_500_000_000].map(tokens)).toEqual([
      '950',
      '9.5k',
      '95k',
      '9.5M',
      '950M',
      '9.5G',
    ]);
  });

  it('times read in their largest whole unit', () => {
    expect([42e3, 5 * 60e3, 30 * 3600e3, 12 * 86400e3, 800 * 86400e3].map((d) => ago(NOW - d, NOW))).toEqual([
      '42s',
      '5m',
      '30h',
      '12d',
      '2y',
    ]);
    expect([45 * 60e3, 185 * 60e3, 150 * 3600e3].map(duration)).toEqual(['45m', '3h05', '6d']);
  });

  it('model names lose the vendor prefix and the date', () => {
    expect(shortModel('claude-sonnet-4-5-20250929')).toBe('sonnet-4.5');
    expect(shortModel('claude-fable-5-0')).toBe('fable-5.0');
    expect(shortModel('gpt-5-codex')).toBe('gpt-5-codex');
  });

  it("reads every value as the terminal's own formatters do, so the CLI can take these in their place", () => {
    const money = fc.option(fc.double({ min: 0, max: 1e7, noNaN: true }), { nil: null });
    const count = fc.option(fc.nat({ max: 2e10 }), { nil: null });
    const span = fc.option(fc.integer({ min: -1e6, max: 5e10 }), { nil: null });
    fc.assert(
      fc.property(money, fc.boolean(), count, span, count, (m, incl, n, d, of) => {
        expect(usd(m, incl)).toBe(terminal.usd(m, incl));
        expect(tokens(n)).toBe(terminal.tokens(n));
        expect(duration(d)).toBe(terminal.duration(d));
        expect(ago(d === null ? null : NOW - d, NOW)).toBe(terminal.ago(d === null ? null : NOW - d, NOW));
        expect(percent(n, of)).toBe(terminal.percent(n, of));
      }),
    );
    for (const m of ['claude-opus-4-1-20250805', 'claude-haiku-4-5', 'gemini-2.5-pro', 'o3', ''])
      expect(shortModel(m)).toBe(terminal.shortModel(m));
  });
});

describe('a path in a terminal cell', () => {
  it('keeps its end, the project’s own name, and loses its start when it does not fit', () => {
    expect(terminal.shortPath('/home/sam/src/billing', '/home/sam', 24)).toBe('~/src/billing');
    expect(terminal.shortPath('/srv/work/clients/acme/the-invoice-service', '/home/sam', 24)).toBe(
      '…cme/the-invoice-service',
    );
    expect(terminal.width(terminal.shortPath('/srv/work/clients/acme/the-invoice-service', '', 24))).toBe(24);
  });
});
