import { describe, expect, it } from 'vitest';
import { codexQuota, newestCodexQuota } from './quota.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const WROTE = NOW - 10 * 60_000;
const s = (ms: number) => Math.round(ms / 1000);

describe("Codex's rate limits", () => {
  it('0.169 names its weekly window primary: a window is named by its length', () => {
    // As Codex 0.169.0 wrote it on a `token_count` event (a Pro login).
    const rl = {
      limit_id: 'codex',
      limit_name: null,
      plan_type: 'pro',
      primary: { used_percent: 1.0, window_minutes: 10080, resets_at: s(NOW + 3 * 86_400_000) },
      secondary: null,
      credits: { has_credits: false, unlimited: false, balance: '0' },
    };
    expect(codexQuota(rl, WROTE, NOW)).toEqual([
      {
        harness: 'codex',
        account: null,
        plan: 'pro',
        window: '7d',
        usedPercent: 1,
        resetsAt: new Date(s(NOW + 3 * 86_400_000) * 1000).toISOString(),
        source: 'rollout',
        fetchedAt: new Date(WROTE).toISOString(),
        stale: false,
      },
    ]);
  });

  it('the 5-hour and weekly windows of 0.5x, with the 5-hour one reset since: stale', () => {
    const rl = {
      primary: { used_percent: 85, window_minutes: 300, resets_at: s(NOW - 60_000) },
      secondary: { used_percent: 12, window_minutes: 10080, resets_at: s(NOW + 86_400_000) },
    };
    expect(codexQuota(rl, WROTE, NOW).map((f) => [f.window, f.usedPercent, f.stale])).toEqual([
      ['5h', 85, true],
      ['7d', 12, false],
    ]);
  });

  it('an older reset given in seconds from the event counts from when it was written', () => {
    const rl = { primary: { used_percent: 40, window_minutes: 299, resets_in_seconds: 3600 } };
    expect(codexQuota(rl, WROTE, NOW)).toMatchObject([
      { window: '5h', usedPercent: 40, resetsAt: new Date(WROTE + 3_600_000).toISOString() },
    ]);
  });

  it('the oldest flat spelling reads, without a reset time', () => {
    const rl = {
      primary_used_percent: 20,
      secondary_used_percent: 5,
      primary_window_minutes: 299,
      secondary_window_minutes: 10079,
    };
    expect(codexQuota(rl, WROTE, NOW).map((f) => [f.window, f.usedPercent, f.resetsAt])).toEqual([
      ['5h', 20, null],
      ['7d', 5, null],
    ]);
  });

  it('an API-key login writes all-null limits: no figures', () => {
    const rl = { limit_id: 'codex', primary: null, secondary: null, credits: null, plan_type: null };
    expect(codexQuota(rl, WROTE, NOW)).toEqual([]);
    expect(codexQuota(null, WROTE, NOW)).toEqual([]);
  });

  it('the account’s figure is the newest session’s that holds one', () => {
    const at = (pct: number) => ({
      primary: { used_percent: pct, window_minutes: 300, resets_at: s(NOW + 3_600_000) },
    });
    const sessions = [
      { rateLimits: at(10), lastActiveAt: new Date(NOW - 3_600_000).toISOString() },
      { rateLimits: at(55), lastActiveAt: new Date(NOW - 600_000).toISOString() },
      { rateLimits: { primary: null }, lastActiveAt: new Date(NOW - 60_000).toISOString() },
      { rateLimits: at(20), lastActiveAt: new Date(NOW - 7_200_000).toISOString() },
    ];
    expect(newestCodexQuota(sessions, NOW).map((f) => f.usedPercent)).toEqual([55]);
  });
});
