/**
 * The spend reports and budgets as a user runs them (`cctop daily|weekly|monthly|blocks|spend`,
 * `cctop budget`, the budgets under `cctop --list`): the built CLI against a fake home whose Claude
 * and Codex-free history is written here, request by request, so every figure below is known.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../src/test-support/corpus.js';
import { type SpendResponse, spendSession } from '../src/test-support/spend-history.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
let env: Record<string, string>;
beforeEach(() => {
  home = new FakeHome();
  env = { ...home.env, XDG_CONFIG_HOME: join(home.dir, '.config') };
});
afterEach(() => home.cleanup());

const run = (args: string[], extra: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env, ...extra },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

function claudeSession(id: string, responses: SpendResponse[]): void {
  spendSession(home, id, responses, Date.parse('2026-11-10T00:00:00Z'));
}

describe('spend per period', () => {
  beforeEach(() => {
    claudeSession('s1', [
      ['2026-11-02T09:10:00Z', 100_000, undefined, ['Bash', 'Read']], // $1.50
      ['2026-11-02T23:50:00Z', 200_000], // $3.00
    ]);
    claudeSession('s2', [
      ['2026-11-03T00:10:00Z', 400_000], // $6.00
      ['2026-11-09T12:00:00Z', 1_000, 'a-model-nobody-prices'],
    ]);
  });

  it('daily prints a row per local day with its tokens and cost, and a totals row', () => {
    const doc = JSON.parse(run(['daily', '--json']).out);
    expect(doc.version).toBe(1);
    expect(
      doc.periods.map((p: { period: string; totalTokens: number; cost: { usd: number | null } }) => [
        p.period,
        p.totalTokens,
        p.cost.usd,
      ]),
    ).toEqual([
      ['2026-11-02', 300_000, 4.5],
      ['2026-11-03', 400_000, 6],
      // An unpriced model: its tokens counted, its cost unknown, not $0.
      ['2026-11-09', 1_000, null],
    ]);
    expect(doc.totals.cost).toEqual({ usd: 10.5, included: 0, unpricedTokens: 1_000 });
    // The whole table, row by row: a changed figure anywhere in it fails here.
    expect(run(['daily', '--timezone', 'UTC'], { COLUMNS: '120' }).out).toBe(
      [
        'day                   input   output  cache rd  cache wr    total       cost  models',
        '2026-11-02                0     300k         0         0     300k      $4.50 ████████████      sonnet-4.5',
        '2026-11-03                0     400k         0         0     400k      $6.00 ████████████████  sonnet-4.5',
        '2026-11-09                0     1.0k         0         0     1.0k   no price                   a-model-nobody-prices',
        'total                     0     701k         0         0     701k     $10.50',
        '',
      ].join('\n'),
    );
  });

  it('counts days in the zone asked for: in New York the late request of the 2nd and the first of the 3rd share a day', () => {
    const doc = JSON.parse(run(['daily', '--json', '--timezone', 'America/New_York']).out);
    expect(doc.periods.map((p: { period: string; cost: { usd: number } }) => [p.period, p.cost.usd])).toEqual(
      [
        ['2026-11-02', 10.5],
        ['2026-11-09', null],
      ],
    );
  });

  it('weekly and monthly group the same spend; --order desc puts the newest first', () => {
    const weeks = JSON.parse(run(['weekly', '--json']).out);
    expect(weeks.periods.map((p: { period: string }) => p.period)).toEqual(['2026-11-02', '2026-11-09']);
    const sunday = JSON.parse(run(['weekly', '--json', '--start-of-week', 'sunday']).out);
    expect(sunday.periods.map((p: { period: string }) => p.period)).toEqual(['2026-11-01', '2026-11-08']);
    const months = JSON.parse(run(['monthly', '--json', '--order', 'desc']).out);
    expect(months.periods).toHaveLength(1);
    expect(months.periods[0].cost.usd).toBe(10.5);
  });

  it('--since and --until keep only those days, and a bad --by is refused with the choices', () => {
    const doc = JSON.parse(run(['daily', '--json', '--since', '2026-11-03', '--until', '2026-11-03']).out);
    expect(doc.periods.map((p: { period: string }) => p.period)).toEqual(['2026-11-03']);
    const bad = run(['daily', '--by', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('expected harness or model or project or tool');
  });

  it('daily --by tool shares a response calling two tools in halves, and a text-only one is (none)', () => {
    const doc = JSON.parse(run(['daily', '--by', 'tool', '--json']).out);
    expect(doc.by).toBe('tool');
    const groups = (i: number) =>
      doc.periods[i].groups.map((g: { key: string; requests: number; cost: { usd: number | null } }) => [
        g.key,
        g.requests,
        g.cost.usd,
      ]);
    // The 2nd: the $1.50 response called Bash and Read ($0.75 each); the $3.00 one only answered.
    expect(groups(0)).toEqual([
      ['(none)', 1, 3],
      ['Bash', 0.5, 0.75],
      ['Read', 0.5, 0.75],
    ]);
    expect(groups(1)).toEqual([['(none)', 1, 6]]);
    for (const p of doc.periods)
      expect(p.groups.reduce((n: number, g: { totalTokens: number }) => n + g.totalTokens, 0)).toBe(
        p.totalTokens,
      );
    expect(run(['daily', '--by', 'tool', '--timezone', 'UTC'], { COLUMNS: '80' }).out).toBe(
      [
        'day                   total       cost',
        '2026-11-02             300k      $4.50 ████████████',
        '  └ (none)             200k      $3.00',
        '  └ Bash                50k      $0.75',
        '  └ Read                50k      $0.75',
        '2026-11-03             400k      $6.00 ████████████████',
        '  └ (none)             400k      $6.00',
        '2026-11-09             1.0k   no price',
        '  └ (none)             1.0k   no price',
        'total                  701k     $10.50',
        '',
      ].join('\n'),
    );
  });

  it("blocks finds Claude's 5-hour windows and the gap between them", () => {
    const doc = JSON.parse(run(['blocks', '--json']).out);
    const kinds = doc.blocks.map((b: { kind: string; start: string }) => `${b.kind} ${b.start}`);
    expect(kinds).toEqual([
      'block 2026-11-02T09:00:00.000Z',
      'gap 2026-11-02T14:10:00.000Z',
      'block 2026-11-02T23:00:00.000Z',
      'gap 2026-11-03T05:10:00.000Z',
      'block 2026-11-09T12:00:00.000Z',
    ]);
    expect(doc.blocks[2].cost.usd).toBe(9);
  });

  it('spend ranks the models of the range by cost with their share', () => {
    const doc = JSON.parse(run(['spend', '--json', '--since', '2026-11-01', '--until', '2026-11-30']).out);
    expect(doc.models.map((m: { key: string; share: number | null }) => [m.key, m.share])).toEqual([
      ['claude-sonnet-4-5-20250929', 1],
      ['a-model-nobody-prices', null],
    ]);
    expect(doc.previous).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    // Tools share each request's cost: together they are the whole period's.
    const toolsUsd = doc.tools.reduce(
      (n: number, t: { cost: { usd: number | null } }) => n + (t.cost.usd ?? 0),
      0,
    );
    expect(toolsUsd).toBeCloseTo(doc.total.cost.usd, 5);
  });
});

describe('budgets', () => {
  const today = new Date().toISOString().slice(0, 10);
  beforeEach(() => {
    const now = Date.now();
    claudeSession('today', [[new Date(now - 60_000).toISOString(), 1_000_000]]); // $15 today
    home.write(
      join(home.dir, '.config', 'cctop', 'config.toml'),
      '[[budget]]\nname = "daily"\nperiod = "day"\nusd = 10\n\n[[budget]]\nperiod = "month"\nusd = 1000\n',
    );
  });

  it('cctop budget shows each budget and exits 1 when one is over', () => {
    const r = run(['budget', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out);
    expect(
      doc.budgets.map((b: { name: string; level: string; spentUsd: number; from: string }) => [
        b.name,
        b.level,
        b.spentUsd,
      ]),
    ).toEqual([
      ['daily', 'over', 15],
      ['month', 'ok', 15],
    ]);
    expect(doc.budgets[0].from).toBe(today);
  });

  it('cctop doctor names the config file, its budgets, what is wrong in it, and the status line', () => {
    const r = run(['doctor']);
    expect(r.out).toMatch(/Config {2}~\/\.config\/cctop\/config\.toml, 2 budgets/);
    expect(r.out).toContain('Claude Code status line  not set');
    home.write(join(home.dir, '.config', 'cctop', 'config.toml'), '[[budget]]\nperiod = "year"\nusd = 3\n');
    expect(run(['doctor']).out).toMatch(/config\.toml line 2: .*year/);
  });

  it('cctop --list ends with the budgets, and a broken config file names its line while the list still prints', () => {
    expect(run(['--list']).out).toMatch(
      /budgets: daily \$15\.00 of \$10\.00 150% · month \$15\.00 of \$1,000 2%/,
    );
    home.write(join(home.dir, '.config', 'cctop', 'config.toml'), '[[budget]]\nperiod = "day"\nusd = = 3\n');
    const r = run(['--list']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Claude Code — 1 session');
    expect(r.err).toMatch(/config\.toml line 3/);
  });
});
