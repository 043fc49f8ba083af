import { describe, expect, it } from 'vitest';
import { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { paint } from '../views/cli/color.js';
import { periodTable } from '../views/cli/spend-table.js';
import { blockReport, hourCells } from './blocks.js';
import { blocksJson, periodsJson } from './json.js';
import { mergePeriods, mergeWhere } from './merge.js';
import { type PeriodReport, periodReport } from './periods.js';
import {
  MAX_REMOTE_KEY_CHARS,
  type PeriodsAsked,
  readRemoteHours,
  readRemotePeriods,
  readRemoteWhere,
} from './remote-read.js';
import { spentAcross } from './spent.js';
import { emptyTally, type SpendTally } from './tally.js';
import { whereReport } from './where.js';

const utc = new LocalTime('UTC');
const DAILY: PeriodsAsked = {
  report: 'daily',
  unit: 'day',
  timeZone: 'UTC',
  startOfWeek: 'monday',
  by: null,
  breakdown: false,
};
const bytes = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const doc = (periods: unknown[], extra: object = {}) =>
  bytes({ version: 1, report: 'daily', timeZone: 'UTC', startOfWeek: 'monday', by: null, periods, ...extra });

/** A tally of `usd` dollars over `output` tokens (null: a model without a price). */
function tally(requests: number, output: number, usd: number | null): SpendTally {
  const t = emptyTally();
  t.requests = requests;
  t.tokens.output = output;
  t.totalTokens = output;
  t.cost =
    usd === null
      ? { usd: null, included: null, unpricedTokens: output }
      : { usd, included: 0, unpricedTokens: 0 };
  return t;
}

/** This machine's sessions: requests as [time, tokens, usd]. */
function usage(requests: [string, number, number | null][], project = '/w/app'): SessionUsage {
  return {
    provider: 'claude',
    id: 'here',
    project,
    cells: requests.map(([iso, tokens, usd]) => {
      const ms = Date.parse(iso);
      return {
        hour: ms - (ms % 3_600_000),
        day: utc.dayNumber(ms),
        model: 'claude-sonnet-4-5',
        requests: 1,
        tokens: { input: null, output: tokens, cacheRead: null, cacheWrite: null, reasoning: null },
        usd,
        firstMs: ms,
        lastMs: ms,
      };
    }),
  };
}

const localDaily = (sessions: SessionUsage[], by: PeriodReport['by'] = null): PeriodReport =>
  periodReport(sessions, {
    unit: 'day',
    startOfWeek: 'monday',
    by,
    breakdown: false,
    fromDay: null,
    toDay: null,
    included: () => false,
  });

describe('a remote spend report, read as hostile input', () => {
  it('a field of the wrong type reads as unknown, never as zero, and a count too large to sum exactly too', () => {
    const r = readRemotePeriods(
      doc([
        {
          period: '2026-11-02',
          requests: '3',
          tokens: { input: 'lots', output: 500, cacheRead: 1e300, cacheWrite: -4 },
          totalTokens: 500,
          cost: { usd: '1.50', included: 0, unpricedTokens: 0 },
          models: ['sonnet', 7, null],
        },
      ]),
      DAILY,
    );
    if (r.kind !== 'read') throw new Error(r.kind);
    const [p] = r.value;
    expect(p!.requests).toBe(0);
    expect(p!.tokens).toEqual({
      input: null,
      output: 500,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
    expect(p!.cost).toEqual({ usd: null, included: null, unpricedTokens: 0 });
    expect(p!.models).toEqual(['sonnet']);
  });

  it('a period that is not a day of the asked kind is dropped and counted', () => {
    const weekly = { ...DAILY, report: 'weekly' as const, unit: 'week' as const };
    const r = readRemotePeriods(
      bytes({
        version: 1,
        report: 'weekly',
        timeZone: 'UTC',
        startOfWeek: 'monday',
        by: null,
        // 2026-11-02 is a Monday; the 3rd is not, and the others are no days at all.
        periods: [
          { period: '2026-11-02' },
          { period: '2026-11-03' },
          { period: '2026-13-45' },
          { period: 7 },
          null,
        ],
      }),
      weekly,
    );
    expect(r).toMatchObject({ kind: 'read', skipped: 4 });
    if (r.kind === 'read')
      expect(r.value.map((p) => [p.period, p.from, p.to])).toEqual([
        ['2026-11-02', '2026-11-02', '2026-11-08'],
      ]);
  });

  it('a report whose days were cut in another zone, or split otherwise, is refused with the reason', () => {
    expect(readRemotePeriods(doc([], { timeZone: 'Asia/Tokyo' }), DAILY)).toEqual({
      kind: 'refused',
      why: 'its days are cut in Asia/Tokyo, not UTC as asked',
    });
    expect(readRemotePeriods(doc([], { by: 'model' }), DAILY)).toMatchObject({ kind: 'refused' });
    expect(readRemotePeriods(doc([], { version: 2 }), DAILY)).toEqual({ kind: 'version', remote: 2 });
    expect(readRemotePeriods(Buffer.from('[1,2]'), DAILY)).toMatchObject({ kind: 'refused' });
    expect(readRemotePeriods(Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`), DAILY)).toEqual({
      kind: 'refused',
      why: 'its JSON nests too deep',
    });
  });

  it('an oversized key is cut, and control characters stay data for the table to strip', () => {
    const r = readRemotePeriods(
      doc([{ period: '2026-11-02', groups: [{ key: `\u001b[2J${'x'.repeat(10_000)}`, requests: 1 }] }]),
      { ...DAILY, by: 'project' },
    );
    expect(r.kind).toBe('refused'); // the document said by: null
    const ok = readRemotePeriods(
      doc([{ period: '2026-11-02', groups: [{ key: `\u001b[2J${'x'.repeat(10_000)}`, requests: 1 }] }], {
        by: 'project',
      }),
      { ...DAILY, by: 'project' },
    );
    if (ok.kind !== 'read') throw new Error(ok.kind);
    expect(ok.value[0]!.groups![0]!.key).toHaveLength(MAX_REMOTE_KEY_CHARS);
    expect(ok.value[0]!.groups![0]!.key.startsWith('\u001b[2J')).toBe(true);
    const merged = mergePeriods(
      { unit: 'day', by: 'project', periods: [], totals: emptyTally() },
      [ok.value],
      false,
    );
    const lines = periodTable(merged, {
      paint: paint(false, {}),
      compact: false,
      home: '/home/me',
      paid: false,
      columns: 120,
      time: new LocalTime('UTC'),
    });
    expect(lines.join('\n')).not.toContain('\u001b');
  });

  it('a spend report over other days than this machine’s is refused', () => {
    const asked = {
      timeZone: 'UTC',
      period: { from: '2026-11-01', to: '2026-11-30' },
      previous: { from: '2026-10-01', to: '2026-10-31' },
    };
    const answer = (from: string) =>
      bytes({
        version: 1,
        report: 'spend',
        timeZone: 'UTC',
        period: { unit: 'range', from, to: '2026-11-30' },
        previous: asked.previous,
      });
    expect(readRemoteWhere(answer('2026-11-01'), asked).kind).toBe('read');
    expect(readRemoteWhere(answer('2026-11-02'), asked)).toMatchObject({ kind: 'refused' });
  });
});

describe('periods summed across machines', () => {
  it('the same day is summed, a day only the remote has is added, and unpriced spend stays unpriced', () => {
    const local = localDaily([usage([['2026-11-02T10:00:00Z', 100, 1.5]])]);
    const remote = [
      { period: '2026-11-02', from: '2026-11-02', to: '2026-11-02', models: ['x'], ...tally(1, 1000, null) },
      { period: '2026-11-01', from: '2026-11-01', to: '2026-11-01', models: ['y'], ...tally(2, 10, 0.25) },
    ];
    const r = mergePeriods(local, [remote], false);
    expect(r.periods.map((p) => p.period)).toEqual(['2026-11-01', '2026-11-02']);
    expect(r.periods[1]).toMatchObject({
      requests: 2,
      totalTokens: 1100,
      cost: { usd: 1.5, unpricedTokens: 1000 },
      models: ['claude-sonnet-4-5', 'x'],
    });
    // A token kind neither machine recorded is still unknown.
    expect(r.periods[1]!.tokens.cacheRead).toBeNull();
    expect(r.totals).toMatchObject({ requests: 4, cost: { usd: 1.75, unpricedTokens: 1000 } });
  });

  it('a tool split keeps its total tokens though it knows no token kinds', () => {
    const local = localDaily([usage([['2026-11-02T10:00:00Z', 100, 1]])], 'tool');
    const share = {
      key: 'Bash',
      ...tally(0.5, 0, 2),
      tokens: local.periods[0]!.groups![0]!.tokens,
      totalTokens: 50,
    };
    const r = mergePeriods(local, [[{ ...local.periods[0]!, groups: [share] }]], false);
    const groups = r.periods[0]!.groups!;
    expect(groups.map((g) => [g.key, g.totalTokens, g.cost.usd])).toEqual([
      ['Bash', 50, 2],
      ['(unknown)', 100, 1],
    ]);
  });

  it('a period report printed as JSON and read back sums to twice itself', () => {
    const local = localDaily([usage([['2026-11-02T10:00:00Z', 100, 1.5]])]);
    const json = periodsJson(local, {
      report: 'daily',
      nowMs: 0,
      timeZone: 'UTC',
      startOfWeek: 'monday',
      plan: 'retail',
    });
    const back = readRemotePeriods(bytes(json), DAILY);
    if (back.kind !== 'read') throw new Error(back.kind);
    expect(mergePeriods(local, [back.value], false).totals).toMatchObject({
      requests: 2,
      totalTokens: 200,
      cost: { usd: 3 },
    });
  });

  it('where the money went: shares are of the summed period, and the period before is summed too', () => {
    const o = {
      unit: 'month' as const,
      startOfWeek: 'monday' as const,
      fromDay: null,
      toDay: null,
      included: () => false,
    };
    const today = utc.dayNumber(Date.parse('2026-11-15T00:00:00Z'));
    const local = whereReport(
      [
        usage([
          ['2026-11-02T10:00:00Z', 100, 1],
          ['2026-10-02T10:00:00Z', 100, 2],
        ]),
      ],
      { ...o, today },
    );
    const remote = whereReport([usage([['2026-11-03T10:00:00Z', 100, 3]], '/w/other')], { ...o, today });
    const r = mergeWhere(local, [remote]);
    expect(r.total.cost.usd).toBe(4);
    expect(r.ranked.project.map((p) => [p.key, p.share, p.previousUsd])).toEqual([
      ['/w/other', 0.75, null],
      ['/w/app', 0.25, 2],
    ]);
  });
});

describe('blocks and budgets across machines', () => {
  it('another machine’s hours cut the same 5-hour windows as if its requests were made here', () => {
    const here = usage([['2026-11-02T10:10:00Z', 100, 1]]);
    const there = usage([
      ['2026-11-02T13:30:00Z', 100, 2],
      ['2026-11-02T15:20:00Z', 100, 4],
    ]);
    const json = blocksJson([], { nowMs: 0, plan: 'retail', tokenLimit: null, hours: hourCells([there]) });
    const read = readRemoteHours(bytes(json), 'box');
    if (read.kind !== 'read') throw new Error(read.kind);
    const o = { nowMs: Date.parse('2026-12-01T00:00:00Z'), included: () => false, tokenLimit: null };
    const merged = blockReport([here, read.value], o).blocks;
    expect(merged).toEqual(blockReport([here, there], o).blocks);
    // The 13:30 request falls in the block 10:00 opened here; 15:20 is past its end and opens the next.
    expect(
      merged.map((b) => (b.kind === 'block' ? [new Date(b.startMs).toISOString(), b.cost.usd] : b.kind)),
    ).toEqual([
      ['2026-11-02T10:00:00.000Z', 3],
      ['2026-11-02T15:00:00.000Z', 4],
    ]);
  });

  it('an hour whose requests lie outside it is dropped and counted', () => {
    const hour = {
      hour: '2026-11-02T10:00:00.000Z',
      firstRequest: '2026-11-02T12:00:00.000Z',
      lastRequest: '2026-11-02T12:00:00.000Z',
      cells: [],
    };
    expect(readRemoteHours(bytes({ version: 1, report: 'blocks', hours: [hour] }), 'box')).toMatchObject({
      kind: 'read',
      skipped: 1,
    });
    expect(readRemoteHours(bytes({ version: 1, report: 'blocks', blocks: [] }), 'box')).toMatchObject({
      kind: 'refused',
    });
  });

  it('a budget counts both machines, and a project budget the remote projects under it', () => {
    const day = utc.dayNumber(Date.parse('2026-11-02T00:00:00Z'));
    const here = usage([['2026-11-02T10:00:00Z', 100, 1.5]]);
    const rows = [
      {
        period: '2026-11-02',
        from: '2026-11-02',
        to: '2026-11-02',
        models: [],
        ...tally(3, 10, 4),
        groups: [
          { key: '/w/app/sub', ...tally(1, 1, 1) },
          { key: '(none)', ...tally(1, 1, 2) },
          { key: '/w/apple', ...tally(1, 1, 1) },
        ],
      },
    ];
    const spent = spentAcross([here], [new Map([[null, rows]])]);
    const q = { fromDay: day, toDay: day, harness: null };
    expect(spent({ ...q, project: null })).toBe(5.5);
    expect(spent({ ...q, project: '/w/app' })).toBe(2.5);
    // A harness the remote was not asked about adds nothing from it.
    expect(spent({ ...q, harness: 'codex', project: null })).toBe(0);
  });
});
