import { describe, expect, it } from 'vitest';
import { LocalTime } from '../model/time.js';
import { type BudgetState, budgetStates, inProject, periodDays, type SpentOf } from './budgets.js';
import type { Budget } from './types.js';

const UTC = new LocalTime('UTC');
const NEW_YORK = new LocalTime('America/New_York');

/** The period's days as `YYYY-MM-DD` pairs, to read them as a calendar does. */
function days(period: Budget['period'], iso: string, time = UTC, start: 'monday' | 'sunday' = 'monday') {
  const { fromDay, toDay } = periodDays(period, Date.parse(iso), time, start);
  return [LocalTime.dayKey(fromDay), LocalTime.dayKey(toDay)];
}

function budget(over: Partial<Budget> = {}): Budget {
  return { key: 'k', name: 'day', period: 'day', usd: 100, project: null, harness: null, ...over };
}

describe('the days a budget period covers', () => {
  it('a day budget covers today only', () => {
    expect(days('day', '2025-06-11T15:00:00Z')).toEqual(['2025-06-11', '2025-06-11']);
  });

  it('a week starting monday runs monday to sunday, whichever day today is', () => {
    // 2025-06-09 was a Monday.
    expect(days('week', '2025-06-09T00:00:00Z')).toEqual(['2025-06-09', '2025-06-15']);
    expect(days('week', '2025-06-11T12:00:00Z')).toEqual(['2025-06-09', '2025-06-15']);
    expect(days('week', '2025-06-15T23:59:00Z')).toEqual(['2025-06-09', '2025-06-15']);
  });

  it('a week starting sunday runs sunday to saturday', () => {
    expect(days('week', '2025-06-11T12:00:00Z', UTC, 'sunday')).toEqual(['2025-06-08', '2025-06-14']);
    expect(days('week', '2025-06-15T12:00:00Z', UTC, 'sunday')).toEqual(['2025-06-15', '2025-06-21']);
    expect(days('week', '2025-06-14T12:00:00Z', UTC, 'sunday')).toEqual(['2025-06-08', '2025-06-14']);
  });

  it('a week may span two months and two years', () => {
    expect(days('week', '2025-01-01T12:00:00Z')).toEqual(['2024-12-30', '2025-01-05']);
  });

  it('a month budget covers the calendar month, leap February included', () => {
    expect(days('month', '2025-02-10T12:00:00Z')).toEqual(['2025-02-01', '2025-02-28']);
    expect(days('month', '2024-02-29T12:00:00Z')).toEqual(['2024-02-01', '2024-02-29']);
    expect(days('month', '2025-12-31T23:00:00Z')).toEqual(['2025-12-01', '2025-12-31']);
    expect(days('month', '2026-01-01T00:00:00Z')).toEqual(['2026-01-01', '2026-01-31']);
  });

  it('periods are cut in the local zone: 22:00 in New York on the last of the month is still that month', () => {
    // 2025-03-01 03:00 UTC is 2025-02-28 22:00 in New York.
    expect(days('month', '2025-03-01T03:00:00Z')).toEqual(['2025-03-01', '2025-03-31']);
    expect(days('month', '2025-03-01T03:00:00Z', NEW_YORK)).toEqual(['2025-02-01', '2025-02-28']);
    expect(days('day', '2025-03-01T03:00:00Z', NEW_YORK)).toEqual(['2025-02-28', '2025-02-28']);
  });

  it('sunday evening in New York is still the week that began on monday', () => {
    // 2025-06-16 02:00 UTC is Monday there but Sunday 22:00 in New York.
    expect(days('week', '2025-06-16T02:00:00Z', NEW_YORK)).toEqual(['2025-06-09', '2025-06-15']);
  });

  it('the week with a daylight-saving change has seven days', () => {
    // New York moved its clocks on Sunday 2025-03-09.
    expect(days('week', '2025-03-09T12:00:00Z', NEW_YORK)).toEqual(['2025-03-03', '2025-03-09']);
    expect(days('week', '2025-03-10T12:00:00Z', NEW_YORK)).toEqual(['2025-03-10', '2025-03-16']);
  });
});

describe('where a budget stands', () => {
  const at = (spent: number | null, b = budget()): BudgetState =>
    budgetStates([b], () => spent, Date.parse('2025-06-11T12:00:00Z'), UTC, 'monday')[0]!;

  it('under 80% is ok, from 80% it is near, from 100% it is over', () => {
    expect([79.9, 80, 99.99, 100, 250].map((s) => at(s).level)).toEqual([
      'ok',
      'near',
      'near',
      'over',
      'over',
    ]);
    expect(at(40, budget({ usd: 50 })).level).toBe('near');
    expect(at(80).share).toBeCloseTo(0.8);
  });

  it('spend nothing could price is unknown, not $0: no share, and not over', () => {
    expect(at(null)).toMatchObject({ spentUsd: null, share: null, level: 'ok' });
  });

  it('asks for the spend of its own days, harness and project', () => {
    const asked: Parameters<SpentOf>[0][] = [];
    const spentOf: SpentOf = (q) => {
      asked.push(q);
      return 1;
    };
    const b = budget({ period: 'week', harness: 'codex', project: '/src/app' });
    const [s] = budgetStates([b], spentOf, Date.parse('2025-06-11T12:00:00Z'), UTC, 'monday');
    expect(asked).toEqual([{ fromDay: s!.fromDay, toDay: s!.toDay, harness: 'codex', project: '/src/app' }]);
    expect(LocalTime.dayKey(s!.fromDay)).toBe('2025-06-09');
  });
});

describe('which sessions a project budget counts', () => {
  it('the project itself and directories under it', () => {
    expect(inProject('/a/b', '/a/b')).toBe(true);
    expect(inProject('/a/b/c/d', '/a/b')).toBe(true);
    expect(inProject('/a/b/', '/a/b')).toBe(true);
    expect(inProject('/a/b', '/a/b/')).toBe(true);
  });

  it('by whole path segments: /a/b does not hold /a/bc', () => {
    expect(inProject('/a/bc', '/a/b')).toBe(false);
    expect(inProject('/a', '/a/b')).toBe(false);
  });

  it('a session with no known project counts toward no project budget', () => {
    expect(inProject(null, '/a/b')).toBe(false);
  });

  it('a budget on / holds every absolute path', () => {
    expect(inProject('/anything', '/')).toBe(true);
  });
});
