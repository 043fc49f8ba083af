/**
 * The live table's header names each account's quota (5h and 7d) beside the budgets: a stale window
 * reads `stale`, and on a narrow terminal the quota goes before the budgets and the agent counts do.
 */
import { describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import type { QuotaFigure } from '../../model/quota.js';
import { totalsOf } from '../../model/totals.js';
import { PLAIN } from '../cli/color.js';
import { initialView, render, type ViewState } from './view.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');

const doc: SessionDocument = {
  version: 1,
  generatedAt: new Date(NOW).toISOString(),
  plan: 'max',
  timeZone: 'UTC',
  sessions: [],
  problems: [],
  totals: totalsOf([]),
};

const fig = (over: Partial<QuotaFigure>): QuotaFigure => ({
  harness: 'claude',
  account: 'a',
  plan: null,
  window: '5h',
  usedPercent: 37,
  resetsAt: new Date(NOW + 3_600_000).toISOString(),
  source: 'agent-cache',
  fetchedAt: new Date(NOW - 60_000).toISOString(),
  stale: false,
  ...over,
});

const view = (quota: QuotaFigure[]): ViewState => ({ ...initialView(new Set()), doc, loading: null, quota });

describe('the quota in the live table’s header', () => {
  const v = view([
    fig({}),
    fig({ window: '7d', usedPercent: 12.4 }),
    fig({ harness: 'codex', account: null, usedPercent: 85, stale: true }),
  ]);

  it('names each harness’s 5h and 7d, a stale window as stale and an absent one as ─', () => {
    expect(render(v, PLAIN, 200, 30, NOW).lines[0]).toBe(
      'cctop  hour $0.00 · today $0.00 · 7d $0.00 · 30d $0.00   claude quota 5h 37% · 7d 12%   codex quota 5h stale · 7d ─   ● 0 working  ▲ 0 waiting',
    );
  });

  it('keeps it over the longer spend windows, and drops it before the agent counts', () => {
    expect(render(v, PLAIN, 110, 30, NOW).lines[0]).toBe(
      'cctop  hour $0.00   claude quota 5h 37% · 7d 12%   codex quota 5h stale · 7d ─   ● 0 working  ▲ 0 waiting',
    );
    expect(render(v, PLAIN, 60, 30, NOW).lines[0]).toBe(
      'cctop  hour $0.00 · today $0.00   ● 0 working  ▲ 0 waiting',
    );
  });

  it('with no figure at all, the header is as it was', () => {
    expect(render(view([]), PLAIN, 200, 30, NOW).lines[0]).toBe(
      'cctop  hour $0.00 · today $0.00 · 7d $0.00 · 30d $0.00   ● 0 working  ▲ 0 waiting',
    );
  });
});
