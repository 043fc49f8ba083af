import { describe, expect, it } from 'vitest';
import { periodStart } from '../model/calendar.js';
import type { ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import { CellSink, decodeCells, encodeCells, type SessionUsage } from '../model/usage-cells.js';
import { activeBlock, BLOCK_MS, blockReport } from './blocks.js';
import { periodReport } from './periods.js';
import { spentOver } from './spent.js';
import { whereReport } from './where.js';

const at = (iso: string): number => Date.parse(iso);
const utc = new LocalTime('UTC');

/** A session whose requests are given as [time, model, tokens, usd]. */
function session(
  id: string,
  requests: [string, string, number, number | null][],
  o: { provider?: ProviderId; project?: string | null; time?: LocalTime } = {},
): SessionUsage {
  const sink = new CellSink();
  const time = o.time ?? utc;
  for (const [iso, model, tokens, usd] of requests) {
    const ms = at(iso);
    const c = sink.cell(ms, time.dayNumber(ms), sink.modelId(model));
    c.requests++;
    c.tokens.input = (c.tokens.input ?? 0) + tokens;
    if (usd !== null) c.usd = (c.usd ?? 0) + usd;
  }
  return {
    provider: o.provider ?? 'claude',
    id,
    project: o.project === undefined ? '/src/app' : o.project,
    cells: sink.list(),
  };
}

const none = () => false;

describe('usage cells', () => {
  it('survive the codec with unknown token fields still unknown and an unpriced model still without a price', () => {
    const s = session('a', [
      ['2026-11-02T10:05:00Z', 'claude-opus-4', 100, 0.5],
      ['2026-11-02T10:45:00Z', 'mystery-model', 7, null],
    ]);
    const back = decodeCells(encodeCells(s.cells))!;
    expect(back).toEqual(s.cells);
    expect(back.find((c) => c.model === 'mystery-model')!.usd).toBeNull();
    expect(back[0]!.tokens.output).toBeNull();
  });

  it('refuse text that is not what the codec writes', () => {
    expect(decodeCells('{"m":["x"],"c":[[1,2,5,1,null,null,null,null,null,null,1,1]]}')).toBeNull();
    expect(decodeCells('not json')).toBeNull();
  });

  it('split a UTC hour in two where a half-hour zone puts local midnight inside it', () => {
    const kolkata = new LocalTime('Asia/Kolkata');
    // 18:30 UTC is midnight in Kolkata (UTC+5:30): 18:10 and 18:50 are on two local days.
    const s = session(
      'a',
      [
        ['2026-11-02T18:10:00Z', 'm', 1, 1],
        ['2026-11-02T18:50:00Z', 'm', 1, 1],
      ],
      { time: kolkata },
    );
    expect(s.cells.map((c) => LocalTime.dayKey(c.day))).toEqual(['2026-11-02', '2026-11-03']);
    expect(new Set(s.cells.map((c) => c.hour)).size).toBe(1);
  });
});

describe('period reports', () => {
  const a = session(
    'a',
    [
      ['2026-11-01T09:00:00Z', 'opus', 100, 1], // a Sunday
      ['2026-11-02T09:00:00Z', 'opus', 200, 2], // a Monday
      ['2026-11-02T10:00:00Z', 'sonnet', 50, 0.5],
      ['2026-12-01T09:00:00Z', 'mystery', 10, null],
    ],
    { project: '/src/a' },
  );
  const b = session('b', [['2026-11-02T11:00:00Z', 'gpt-5', 40, 0.4]], { provider: 'codex', project: null });
  const base = {
    startOfWeek: 'monday' as const,
    by: null,
    breakdown: false,
    fromDay: null,
    toDay: null,
    included: none,
  };

  it('puts each request in its local day, newest last, with a totals row that sums them', () => {
    const r = periodReport([a, b], { ...base, unit: 'day' });
    expect(r.periods.map((p) => [p.period, p.totalTokens, p.cost.usd])).toEqual([
      ['2026-11-01', 100, 1],
      ['2026-11-02', 290, 2.9],
      ['2026-12-01', 10, null],
    ]);
    expect(r.totals.totalTokens).toBe(400);
    expect(r.totals.cost.usd).toBe(3.9);
    expect(r.totals.cost.unpricedTokens).toBe(10);
  });

  it('starts weeks on Monday or Sunday as asked', () => {
    const monday = periodReport([a], { ...base, unit: 'week' });
    expect(monday.periods.map((p) => p.period)).toEqual(['2026-10-26', '2026-11-02', '2026-11-30']);
    const sunday = periodReport([a], { ...base, unit: 'week', startOfWeek: 'sunday' });
    expect(sunday.periods.map((p) => [p.period, p.totalTokens])).toEqual([
      ['2026-11-01', 350],
      ['2026-11-29', 10],
    ]);
  });

  it('names months and knows their last day', () => {
    const r = periodReport([a], { ...base, unit: 'month' });
    expect(r.periods.map((p) => [p.period, p.from, p.to])).toEqual([
      ['2026-11', '2026-11-01', '2026-11-30'],
      ['2026-12', '2026-12-01', '2026-12-31'],
    ]);
    expect(LocalTime.dayKey(periodStart(LocalTime.dayOf('2024-02-29')!, 'month', 'monday'))).toBe(
      '2024-02-01',
    );
  });

  it('splits a period by harness, model or project into groups that sum to the period', () => {
    for (const by of ['harness', 'model', 'project'] as const) {
      const r = periodReport([a, b], { ...base, unit: 'month', by });
      for (const p of r.periods) {
        const sum = p.groups!.reduce((n, g) => n + (g.totalTokens ?? 0), 0);
        expect(sum, `${by} ${p.period}`).toBe(p.totalTokens);
      }
    }
    const r = periodReport([a, b], { ...base, unit: 'month', by: 'project' });
    expect(r.periods[0]!.groups!.map((g) => g.key)).toEqual(['/src/a', '(none)']);
  });

  it('adds the per-model lines with --breakdown, most expensive first', () => {
    const r = periodReport([a], { ...base, unit: 'month', breakdown: true });
    expect(r.periods[0]!.breakdown!.map((g) => [g.key, g.cost.usd])).toEqual([
      ['opus', 3],
      ['sonnet', 0.5],
    ]);
  });

  it('keeps only the days asked for, and counts what the plan bundles apart', () => {
    const nov2 = LocalTime.dayOf('2026-11-02')!;
    const r = periodReport([a, b], {
      ...base,
      unit: 'day',
      fromDay: nov2,
      toDay: nov2,
      included: (p) => p === 'claude',
    });
    expect(r.periods.map((p) => p.period)).toEqual(['2026-11-02']);
    expect(r.totals.cost).toEqual({ usd: 2.9, included: 2.5, unpricedTokens: 0 });
  });
});

describe('5-hour blocks', () => {
  const opts = { nowMs: at('2026-11-03T00:00:00Z'), included: none, tokenLimit: null };

  it('start at the UTC hour of the first request and last five hours', () => {
    const r = blockReport(
      [
        session('a', [
          ['2026-11-02T09:40:00Z', 'opus', 10, 1],
          ['2026-11-02T13:59:00Z', 'opus', 10, 1],
          ['2026-11-02T14:01:00Z', 'opus', 10, 1],
        ]),
      ],
      opts,
    );
    expect(r.blocks.map((b) => [b.kind, new Date(b.startMs).toISOString(), b.endMs - b.startMs])).toEqual([
      ['block', '2026-11-02T09:00:00.000Z', BLOCK_MS],
      ['block', '2026-11-02T14:00:00.000Z', BLOCK_MS],
    ]);
  });

  it('show a silence longer than five hours as a gap, from five hours after the last request', () => {
    const r = blockReport(
      [
        session('a', [
          ['2026-11-02T01:10:00Z', 'opus', 10, 1],
          ['2026-11-02T12:00:00Z', 'opus', 10, 1],
        ]),
      ],
      opts,
    );
    expect(r.blocks.map((b) => b.kind)).toEqual(['block', 'gap', 'block']);
    const gap = r.blocks[1]!;
    expect([new Date(gap.startMs).toISOString(), new Date(gap.endMs).toISOString()]).toEqual([
      '2026-11-02T06:10:00.000Z',
      '2026-11-02T12:00:00.000Z',
    ]);
  });

  it('merge every session into one set of blocks', () => {
    const r = blockReport(
      [
        session('a', [['2026-11-02T09:10:00Z', 'opus', 10, 1]]),
        session('b', [['2026-11-02T10:20:00Z', 'sonnet', 5, 0.5]]),
      ],
      opts,
    );
    expect(r.blocks).toHaveLength(1);
    const b = r.blocks[0]!;
    expect(b.kind === 'block' && [b.requests, b.totalTokens, b.cost.usd, b.models]).toEqual([
      2,
      15,
      1.5,
      ['opus', 'sonnet'],
    ]);
  });

  it('mark the block running now with its time left, burn rate and projection', () => {
    const r = blockReport(
      [
        session('a', [
          ['2026-11-02T20:00:00Z', 'opus', 600, 6],
          ['2026-11-02T20:10:00Z', 'opus', 600, 6],
        ]),
      ],
      { ...opts, nowMs: at('2026-11-02T21:00:00Z') },
    );
    const b = activeBlock(r)!;
    expect(b.burnRate).toEqual({ tokensPerMinute: 120, usdPerMinute: 1.2 });
    // 240 minutes left at 1.2 $/min on top of $12.
    expect(b.projection).toEqual({
      totalTokens: 1200 + 120 * 240,
      usd: 12 + 1.2 * 240,
      remainingMinutes: 240,
    });
    const later = blockReport([session('a', [['2026-11-02T20:00:00Z', 'opus', 1, 1]])], {
      ...opts,
      nowMs: at('2026-11-03T02:00:00Z'),
    });
    expect(activeBlock(later)).toBeNull();
  });

  it('marks blocks over --token-limit, max meaning the largest finished block', () => {
    const s = session('a', [
      ['2026-11-01T01:00:00Z', 'opus', 500, 1],
      ['2026-11-01T08:00:00Z', 'opus', 800, 1],
      ['2026-11-02T20:00:00Z', 'opus', 900, 1],
    ]);
    const r = blockReport([s], { ...opts, nowMs: at('2026-11-02T21:00:00Z'), tokenLimit: 'max' });
    expect(r.tokenLimit).toBe(800);
    expect(r.blocks.filter((b) => b.kind === 'block').map((b) => b.kind === 'block' && b.overLimit)).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe('where the money went', () => {
  const s = [
    session(
      'a',
      [
        ['2026-10-20T09:00:00Z', 'opus', 10, 10],
        ['2026-11-05T09:00:00Z', 'opus', 10, 30],
      ],
      { project: '/src/a' },
    ),
    session('b', [['2026-11-06T09:00:00Z', 'gpt-5', 10, 10]], { provider: 'codex', project: '/src/b' }),
  ];
  const today = LocalTime.dayOf('2026-11-10')!;

  it('ranks keys by cost with their share and their cost in the period before', () => {
    const r = whereReport(s, {
      unit: 'month',
      startOfWeek: 'monday',
      today,
      fromDay: null,
      toDay: null,
      included: none,
    });
    expect([r.period, r.previous]).toEqual([
      { from: '2026-11-01', to: '2026-11-30' },
      { from: '2026-10-01', to: '2026-10-31' },
    ]);
    expect(r.ranked.project.map((x) => [x.key, x.cost.usd, x.share, x.previousUsd])).toEqual([
      ['/src/a', 30, 0.75, 10],
      ['/src/b', 10, 0.25, null],
    ]);
    expect(r.ranked.harness.map((x) => x.key)).toEqual(['claude', 'codex']);
  });

  it('compares a whole month given as a range with the month before it', () => {
    const from = LocalTime.dayOf('2026-11-01')!;
    const to = LocalTime.dayOf('2026-11-30')!;
    const r = whereReport(s, {
      unit: 'day',
      startOfWeek: 'monday',
      today,
      fromDay: from,
      toDay: to,
      included: none,
    });
    expect(r.previous).toEqual({ from: '2026-10-01', to: '2026-10-31' });
  });

  it('compares a range with the same number of days before it', () => {
    const from = LocalTime.dayOf('2026-11-05')!;
    const r = whereReport(s, {
      unit: 'month',
      startOfWeek: 'monday',
      today,
      fromDay: from,
      toDay: from + 1,
      included: none,
    });
    expect([r.unit, r.previous]).toEqual(['range', { from: '2026-11-03', to: '2026-11-04' }]);
    expect(r.total.cost.usd).toBe(40);
  });
});

describe('what a budget has spent', () => {
  const s = [
    session(
      'a',
      [
        ['2026-11-05T09:00:00Z', 'opus', 10, 3],
        ['2026-11-06T09:00:00Z', 'opus', 10, 4],
      ],
      { project: '/src/app/web' },
    ),
    session('b', [['2026-11-05T10:00:00Z', 'gpt-5', 10, 2]], {
      provider: 'codex',
      project: '/src/application',
    }),
    session('c', [['2026-11-05T11:00:00Z', 'mystery', 10, null]], {
      provider: 'gemini',
      project: '/src/app',
    }),
  ];
  const day = LocalTime.dayOf('2026-11-05')!;
  const spent = spentOver(s);

  it('sums the retail cost of the days asked for, by harness and by project and what is under it', () => {
    expect(spent({ fromDay: day, toDay: day, harness: null, project: null })).toBe(5);
    expect(spent({ fromDay: day, toDay: day + 1, harness: 'claude', project: null })).toBe(7);
    // /src/application is not under /src/app.
    expect(spent({ fromDay: day, toDay: day + 1, harness: null, project: '/src/app' })).toBe(7);
  });

  it('is unknown, not zero, when nothing selected has a price, and $0 when nothing was asked', () => {
    expect(spent({ fromDay: day, toDay: day, harness: 'gemini', project: null })).toBeNull();
    expect(spent({ fromDay: day + 5, toDay: day + 6, harness: null, project: null })).toBe(0);
  });
});

describe('period reports split by tool', () => {
  /** A session whose requests are [time, model, tokens, usd, tools]; null tools: its harness does not say. */
  function withTools(
    id: string,
    requests: [string, string, number, number | null, string[] | null][],
    provider: ProviderId = 'claude',
  ): SessionUsage {
    const sink = new CellSink();
    for (const [iso, model, tokens, usd, tools] of requests) {
      const ms = at(iso);
      const c = sink.cell(ms, utc.dayNumber(ms), sink.modelId(model));
      c.requests++;
      c.tokens.input = (c.tokens.input ?? 0) + tokens;
      if (usd !== null) c.usd = (c.usd ?? 0) + usd;
      const ids = tools === null ? ['(unknown)'] : tools.length === 0 ? ['(none)'] : tools;
      sink.split(
        c,
        ids.map((t) => sink.toolId(t)),
        usd ?? 0,
        tokens,
      );
    }
    return { provider, id, project: '/src/app', cells: sink.list() };
  }
  const base = {
    unit: 'day' as const,
    startOfWeek: 'monday' as const,
    by: 'tool' as const,
    breakdown: false,
    fromDay: null,
    toDay: null,
    included: none,
  };
  const a = withTools('a', [
    ['2026-11-02T09:00:00Z', 'opus', 300, 3, ['Bash', 'Read']],
    ['2026-11-02T09:10:00Z', 'opus', 100, 1, ['Bash']],
    ['2026-11-02T09:20:00Z', 'opus', 70, 0.7, []],
    ['2026-11-02T10:00:00Z', 'mystery', 10, null, ['Read']],
  ]);
  // A harness that does not say which tools its requests called.
  const b = withTools('b', [['2026-11-02T11:00:00Z', 'gpt-5', 40, 0.4, null]], 'copilot');

  it('shares each request’s cost evenly by its tools, none and unknown apart, and the groups sum to the period', () => {
    const r = periodReport([a, b], base);
    const p = r.periods[0]!;
    expect(p.groups!.map((g) => [g.key, g.cost.usd, g.requests, g.totalTokens])).toEqual([
      ['Bash', 2.5, 1.5, 250],
      ['Read', 1.5, 1.5, 160],
      ['(none)', 0.7, 1, 70],
      ['(unknown)', 0.4, 1, 40],
    ]);
    const usd = p.groups!.reduce((n, g) => n + (g.cost.usd ?? 0), 0);
    expect(usd).toBeCloseTo(p.cost.usd!, 6);
    expect(p.groups!.reduce((n, g) => n + g.requests, 0)).toBe(p.requests);
    expect(p.groups!.reduce((n, g) => n + (g.totalTokens ?? 0), 0)).toBe(p.totalTokens);
    expect(p.groups!.reduce((n, g) => n + g.cost.unpricedTokens, 0)).toBe(p.cost.unpricedTokens);
  });

  it('knows a tool group’s total tokens, not their kinds, and rounds its shares when it prints them', () => {
    const thirds = withTools('c', [['2026-11-02T09:00:00Z', 'opus', 100, 1, ['Bash', 'Grep', 'Read']]]);
    const g = periodReport([thirds], base).periods[0]!.groups!;
    expect(g.map((x) => [x.key, x.requests, x.totalTokens])).toEqual([
      ['Bash', 0.333, 33],
      ['Grep', 0.333, 33],
      ['Read', 0.333, 33],
    ]);
    expect(g[0]!.tokens).toEqual({
      input: null,
      output: null,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
    expect(g[0]!.cost.usd).toBeCloseTo(1 / 3, 6);
  });
});

describe('5-hour blocks in order', () => {
  it('list a gap after the block that starts within its last hour, by start time', () => {
    // The gap runs from 18:00:51 + 5 h = 23:00:51 to 23:20; the next block starts at 23:00.
    const r = blockReport(
      [
        session('a', [
          ['2026-11-02T17:10:00Z', 'opus', 1, 1],
          ['2026-11-02T18:00:51Z', 'opus', 1, 1],
          ['2026-11-02T23:20:00Z', 'opus', 1, 1],
        ]),
      ],
      { nowMs: Date.parse('2026-11-04T00:00:00Z'), included: () => false, tokenLimit: null },
    );
    expect(r.blocks.map((b) => `${b.kind} ${new Date(b.startMs).toISOString().slice(11, 19)}`)).toEqual([
      'block 17:00:00',
      'block 23:00:00',
      'gap 23:00:51',
    ]);
  });
});
