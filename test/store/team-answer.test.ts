/**
 * What the team dashboard's page is told, from a picture of the store (no database needed): a
 * period's days, spend lines where nothing had a price (unknown, not $0), sessions whose machine
 * stopped pushing, budgets against their spend, and a failed store said without its address.
 */
import { describe, expect, test } from 'vitest';
import type { TeamBudget } from '../../src/store/budgets.js';
import type { SpendCell } from '../../src/store/team-spend.js';
import { FRESH_PUSH_MS, teamAnswer } from '../../src/views/team/answer.js';
import type { TeamPicture } from '../../src/views/team/poller.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');

const cell = (
  day: string,
  by: SpendCell['by'],
  key: string,
  costUsd: number | null,
  unpriced = 0,
): SpendCell => ({
  day,
  by,
  key,
  requests: 1,
  costUsd,
  unpricedTokens: unpriced,
});

const budget = (name: string, usd: number): TeamBudget => ({
  name,
  period: 'month',
  usd,
  developer: null,
  project: null,
  harness: null,
  updatedBy: 'lead',
  updatedAt: '2026-03-01T00:00:00.000Z',
});

function picture(cells: SpendCell[], pushedAtMs: number | null = NOW): TeamPicture {
  return {
    readAtMs: NOW,
    today: '2026-03-10',
    days: {
      day: { from: '2026-03-10', to: '2026-03-10' },
      week: { from: '2026-03-09', to: '2026-03-15' },
      month: { from: '2026-03-01', to: '2026-03-31' },
    },
    sessions: {
      sessions: [
        {
          developer: 'alice',
          host: 'laptop',
          harness: 'claude',
          sessionId: 's1',
          project: '/w',
          title: null,
          model: null,
          state: 'working',
          startedAtMs: null,
          lastActiveAtMs: NOW,
          pushedAtMs,
          requests: 3,
          costUsd: null,
          unpricedTokens: 0,
        },
      ],
      more: 0,
      dropped: 0,
    },
    spend: { cells, cut: false },
    budgets: {
      budgets: [
        {
          budget: budget('priced', 10),
          from: '2026-03-01',
          to: '2026-03-31',
          spentUsd: 9,
          unpricedTokens: 0,
          requests: 4,
        },
        {
          budget: budget('unpriced', 10),
          from: '2026-03-01',
          to: '2026-03-31',
          spentUsd: null,
          unpricedTokens: 500,
          requests: 2,
        },
      ],
      more: false,
    },
    quota: { quota: [], more: 0, dropped: 0 },
  };
}

describe('the team answer', () => {
  test('the 7-day view has seven days ending today, the month view every day of the month so far', () => {
    const p = picture([]);
    expect(teamAnswer(p, { kind: 'ok' }, '7d', NOW, 1000).days).toEqual([
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(teamAnswer(p, { kind: 'ok' }, 'month', NOW, 1000).days).toHaveLength(10);
    expect(teamAnswer(p, { kind: 'ok' }, 'today', NOW, 1000).days).toEqual(['2026-03-10']);
  });

  test('spend nobody could price stays unknown, and priced spend beside it is not lost', () => {
    const a = teamAnswer(
      picture([
        cell('2026-03-09', 'developer', 'bob', null, 1200),
        cell('2026-03-10', 'developer', 'bob', 2.5),
        cell('2026-03-10', 'developer', 'carol', null, 300),
        // Outside the 7-day window: not counted.
        cell('2026-02-20', 'developer', 'bob', 100),
      ]),
      { kind: 'ok' },
      '7d',
      NOW,
      1000,
    );
    const bob = a.spend.developer.find((l) => l.key === 'bob')!;
    expect(bob.costUsd).toBe(2.5);
    expect(bob.unpricedTokens).toBe(1200);
    expect(bob.days.at(-2)).toEqual({ costUsd: null, unpricedTokens: 1200, requests: 1 });
    expect(bob.days[0]).toBeNull();
    const carol = a.spend.developer.find((l) => l.key === 'carol')!;
    expect(carol.costUsd).toBeNull();
    // Priced lines first, the unknown last.
    expect(a.spend.developer.map((l) => l.key)).toEqual(['bob', 'carol']);
  });

  test('a session whose machine has not pushed for a while is stale; one with no pusher row is too', () => {
    expect(
      teamAnswer(picture([], NOW - FRESH_PUSH_MS + 1000), { kind: 'ok' }, 'today', NOW, 1).sessions[0]!.stale,
    ).toBe(false);
    expect(
      teamAnswer(picture([], NOW - FRESH_PUSH_MS - 1000), { kind: 'ok' }, 'today', NOW, 1).sessions[0]!.stale,
    ).toBe(true);
    expect(teamAnswer(picture([], null), { kind: 'ok' }, 'today', NOW, 1).sessions[0]!.stale).toBe(true);
  });

  test('a budget nothing priced was spent against has no share and no level past ok, not 0%', () => {
    const [priced, unpriced] = teamAnswer(picture([]), { kind: 'ok' }, 'today', NOW, 1).budgets;
    expect(priced).toMatchObject({ share: 0.9, level: 'near' });
    expect(unpriced).toMatchObject({ spentUsd: null, share: null, level: 'ok', unpricedTokens: 500 });
  });

  test('a failed store keeps the last picture and says since when, in words with no address', () => {
    const a = teamAnswer(
      picture([]),
      { kind: 'failed', trouble: 'unreachable', sinceMs: NOW - 5000 },
      'today',
      NOW,
      1,
    );
    expect(a.store).toEqual({
      state: 'failed',
      said: 'the team store cannot be reached, or would not let the dashboard in',
      sinceMs: NOW - 5000,
      readAtMs: NOW,
    });
    expect(a.sessions).toHaveLength(1);
    const never = teamAnswer(null, { kind: 'failed', trouble: 'refused', sinceMs: NOW }, 'today', NOW, 1);
    expect(never).toMatchObject({ store: { state: 'failed', readAtMs: null }, sessions: [], days: [] });
  });
});
