/**
 * Quota alerts (`cctop watch`, the live table, `serve`): a window that passes the config's share, or
 * that at today's burn runs out before it resets, is told once per window per period; what was
 * already crossed when cctop started is not told again on every start; a stale figure never alerts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../config/index.js';
import type { SessionDocument } from '../model/document.js';
import type { QuotaFigure, QuotaPace } from '../model/quota.js';
import { LocalTime } from '../model/time.js';
import { totalsOf } from '../model/totals.js';
import { tempDir } from '../test-support/corpus.js';
import { alertLine } from '../views/alert-text.js';
import { type Alert, AlertWatcher } from './alerts.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const MIN = 60_000;
const TIME = new LocalTime('UTC');
const t = tempDir('cctop-quota-alerts-');
afterAll(t.cleanup);

const doc = (atMs: number): SessionDocument => ({
  version: 1,
  generatedAt: new Date(atMs).toISOString(),
  plan: 'max',
  timeZone: 'UTC',
  sessions: [],
  problems: [],
  totals: totalsOf([]),
});

const config = (quotaPercent: number | null): Config => {
  const c = defaultConfig();
  return { ...c, alerts: { ...c.alerts, errorLoop: null, stallMinutes: null, quotaPercent } };
};

const fig = (usedPercent: number, over: Partial<QuotaFigure> = {}): QuotaFigure => ({
  harness: 'claude',
  account: 'a',
  plan: null,
  window: '5h',
  usedPercent,
  resetsAt: new Date(NOW + 90 * MIN).toISOString(),
  source: 'statusline',
  fetchedAt: new Date(NOW - MIN).toISOString(),
  stale: false,
  ...over,
});

const pace = (runsOutInMin: number | null): QuotaPace => ({
  harness: 'claude',
  window: '5h',
  windowTokens: 100_000,
  burnPerHour: 50_000,
  runsOutAt: runsOutInMin === null ? null : new Date(NOW + runsOutInMin * MIN).toISOString(),
  beforeReset: runsOutInMin !== null,
  fastest: null,
});

function feed(w: AlertWatcher, quota: QuotaFigure[], paces: QuotaPace[], c: Config, nowMs = NOW): Alert[] {
  return w.update({
    doc: doc(nowMs),
    usage: () => [],
    config: c,
    nowMs,
    time: TIME,
    quota: () => ({ quota, pace: paces }),
  });
}

const watcher = () =>
  new AlertWatcher({
    env: { CCTOP_CACHE_DIR: t.dir },
    calls: () => Promise.reject(new Error('no')),
    later: () => {},
  });

describe('quota alerts', () => {
  it('a window passing the threshold is told once, with its figure and source', () => {
    const w = watcher();
    expect(feed(w, [fig(70)], [], config(90))).toEqual([]);
    const told = feed(w, [fig(91)], [], config(90));
    expect(told.map(alertLine)).toEqual(['Quota past 90%: claude 5h: 91% used (statusline), resets in 1h30']);
    expect(feed(w, [fig(95)], [], config(90))).toEqual([]);
  });

  it('the next period of the window (a new reset time) can be told again', () => {
    const w = watcher();
    feed(w, [fig(10)], [], config(90));
    expect(feed(w, [fig(92)], [], config(90))).toHaveLength(1);
    const next = fig(93, { resetsAt: new Date(NOW + 6 * 60 * MIN).toISOString() });
    expect(feed(w, [next], [], config(90))).toHaveLength(1);
  });

  it('a window already past the threshold when cctop starts is not told at the first look', () => {
    const w = watcher();
    expect(feed(w, [fig(97)], [], config(90))).toEqual([]);
    expect(feed(w, [fig(98)], [], config(90))).toEqual([]);
  });

  it('a projection that runs out before the reset is told as cctop’s estimate', () => {
    const w = watcher();
    feed(w, [fig(40)], [pace(null)], config(null));
    expect(feed(w, [fig(45)], [pace(40)], config(null)).map(alertLine)).toEqual([
      "Quota runs out before it resets: claude 5h: 45% used (statusline), resets in 1h30; at today's burn it runs out in 40m (cctop's estimate)",
    ]);
  });

  it('a stale figure never alerts, whatever it says', () => {
    const w = watcher();
    feed(w, [], [], config(90));
    expect(feed(w, [fig(99, { stale: true })], [pace(10)], config(90))).toEqual([]);
  });

  it('turned off (quota_percent = 0), passing a share is not told', () => {
    const w = watcher();
    feed(w, [fig(10)], [], config(null));
    expect(feed(w, [fig(99)], [], config(null))).toEqual([]);
  });
});
