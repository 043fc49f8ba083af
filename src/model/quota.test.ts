import { describe, expect, it } from 'vitest';
import { currentFigures, paceOf, type QuotaFigure, resetPassed, type SpentTokens } from './quota.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-12-07T12:00:00Z');
const TODAY = Date.parse('2026-12-07T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const figure = (over: Partial<QuotaFigure>): QuotaFigure => ({
  harness: 'claude',
  account: 'acct',
  plan: null,
  window: '5h',
  usedPercent: 40,
  resetsAt: iso(NOW + 2 * HOUR),
  source: 'agent-cache',
  fetchedAt: iso(NOW - 60_000),
  stale: false,
  ...over,
});

describe('choosing the current figure', () => {
  it('the newest read of a window wins', () => {
    const old = figure({ usedPercent: 30, fetchedAt: iso(NOW - 10 * 60_000) });
    const fresh = figure({ usedPercent: 41, source: 'statusline', fetchedAt: iso(NOW - 5_000) });
    expect(currentFigures([old, fresh])).toEqual([fresh]);
  });

  it('a current figure wins over a newer stale one', () => {
    const current = figure({ fetchedAt: iso(NOW - HOUR) });
    const stale = figure({ stale: true, fetchedAt: iso(NOW - 60_000) });
    expect(currentFigures([stale, current])).toEqual([current]);
  });

  it('windows keep their order within a harness, and accounts stay apart', () => {
    const week = figure({ window: '7d' });
    const five = figure({ window: '5h' });
    const other = figure({ account: 'other' });
    expect(currentFigures([week, other, five]).map((f) => `${f.account} ${f.window}`)).toEqual([
      'acct 5h',
      'acct 7d',
      'other 5h',
    ]);
  });

  it('a window whose reset time has passed is stale; one with no reset time cannot be proven so', () => {
    expect(resetPassed(iso(NOW - 1), NOW)).toBe(true);
    expect(resetPassed(iso(NOW + 1), NOW)).toBe(false);
    expect(resetPassed(null, NOW)).toBe(false);
  });
});

const session = (id: string, running: boolean, spans: [number, number, number][]): SpentTokens => ({
  provider: 'claude',
  id,
  running,
  spans: spans.map(([firstMs, lastMs, tokens]) => ({ firstMs, lastMs, tokens })),
});

describe('the pace of a window', () => {
  // The 5-hour window began at 09:00 and resets at 14:00; it is 12:00 and 40% is used.
  const f = figure({ resetsAt: iso(NOW + 2 * HOUR) });

  it('lasts until the reset when today’s burn would spend the rest after it', () => {
    const fast = session('fast', true, [[NOW - 30 * 60_000, NOW - 60_000, 100_000]]);
    const p = paceOf(f, [fast], NOW, TODAY)!;
    expect(p.windowTokens).toBe(100_000);
    // Burn since 09:00 (the window's start is later than midnight): 100k over three hours.
    expect(p.burnPerHour).toBeCloseTo(100_000 / 3);
    // 60% left = 150k tokens at 33.3k/h = 4.5 h: past the 14:00 reset.
    expect(p.beforeReset).toBe(false);
    expect(p.runsOutAt).toBeNull();
  });

  it('says when it runs out, and which running session spends it fastest', () => {
    // 80% used by 300k tokens since 09:00: 3,750 a percent, 75k left, at 100k/h: 45 minutes.
    const g = figure({ usedPercent: 80, resetsAt: iso(NOW + 2 * HOUR) });
    const a = session('a', true, [[NOW - 3 * HOUR, NOW - 2 * HOUR, 200_000]]);
    const b = session('b', true, [[NOW - HOUR, NOW - 60_000, 60_000]]);
    const idle = session('idle', false, [[NOW - HOUR, NOW - 60_000, 40_000]]);
    const p = paceOf(g, [a, b, idle], NOW, TODAY)!;
    expect(p.windowTokens).toBe(300_000);
    expect(p.beforeReset).toBe(true);
    expect(p.runsOutAt).toBe(iso(NOW + 45 * 60_000));
    expect(p.fastest).toEqual({ provider: 'claude', id: 'a', share: 200_000 / 300_000 });
  });

  it('tokens spent before the window began do not count', () => {
    const before = session('old', false, [[NOW - 6 * HOUR, NOW - 5 * HOUR, 1_000_000]]);
    expect(paceOf(f, [before], NOW, TODAY)!.windowTokens).toBe(0);
  });

  it('another harness’s tokens do not count', () => {
    const codex: SpentTokens = { ...session('c', true, [[NOW - HOUR, NOW, 5_000]]), provider: 'codex' };
    expect(paceOf(f, [codex], NOW, TODAY)!.windowTokens).toBe(0);
  });

  it('a stale figure, one without a reset time or a window that is not a span has no pace', () => {
    const s = [session('a', true, [[NOW - HOUR, NOW, 5_000]])];
    expect(paceOf(figure({ stale: true }), s, NOW, TODAY)).toBeNull();
    expect(paceOf(figure({ resetsAt: null }), s, NOW, TODAY)).toBeNull();
    expect(paceOf(figure({ window: 'extra' }), s, NOW, TODAY)).toBeNull();
  });
});
