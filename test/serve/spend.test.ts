/**
 * `GET /api/spend` over real HTTP on 127.0.0.1: the Spend screen's numbers are the commands' numbers
 * (`periodReport`, `blockReport` and the budgets over the same usage cells), wrong parameters are
 * refused, and the route sits behind the token like every other.
 *
 * The history is written for this test, dated from today backwards so it falls in the last 31 days:
 * Claude Code 2.x transcript records (as `helpers.ts`'s `claude`), codex-cli 0.40+ rollout records (as
 * `providers/codex/codex.test.ts`), one model no price is known for, and one project whose name is
 * markup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { LiveSessions } from '../../src/live/engine.js';
import { periodStart } from '../../src/model/calendar.js';
import { activeBlock, blockReport } from '../../src/spend/blocks.js';
import { blockJson } from '../../src/spend/json.js';
import { periodReport } from '../../src/spend/periods.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { Answers } from '../../src/views/serve/answers.js';
import { createApp } from '../../src/views/serve/app.js';
import { Assets } from '../../src/views/serve/assets.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { Publication } from '../../src/views/serve/publish.js';
import { MAX_SPEND_DAYS, type SpendAnswer, spendAnswer } from '../../src/views/serve/spend.js';
import { EventHub } from '../../src/views/serve/sse.js';
import { base, bearer, serve } from './helpers.js';
import { OLD_DAY, spendHistory } from './spend-history.js';

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

describe('GET /api/spend', () => {
  let home: FakeHome;
  let s: RunningServer;
  let url: string;
  const spend = async (qs = '') =>
    json<SpendAnswer>(await fetch(`${url}/api/spend${qs}`, { headers: bearer() }));

  beforeAll(async () => {
    home = new FakeHome();
    spendHistory(home, Date.now());
    s = await serve(home);
    url = base(s);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
  });

  it('is refused without the token, like every other route', async () => {
    const res = await fetch(`${url}/api/spend`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="cctop"');
  });

  it("answers the last 31 days split by harness, each day's figures equal to periodReport's over the same cells", async () => {
    const a = await spend();
    const time = s.live.localTime;
    const today = time.dayNumber(Date.now());
    const expected = periodReport(s.live.usage(), {
      unit: 'day',
      startOfWeek: 'monday',
      by: 'harness',
      breakdown: false,
      fromDay: today - 30,
      toDay: today,
      included: () => false,
    });
    expect(a.version).toBe(1);
    expect(a.report).toBe('daily');
    expect(a.by).toBe('harness');
    expect(a.days).toBe(31);
    expect(a.periods).toEqual(expected.periods);
    expect(a.totals).toEqual(expected.totals);
    // The history's days, and not the one 40 days back.
    expect(a.periods.map((p) => p.period)).not.toContain(OLD_DAY(time, Date.now()));
    expect(a.periods.length).toBeGreaterThanOrEqual(4);
    const harnesses = new Set(a.periods.flatMap((p) => (p.groups ?? []).map((g) => g.key)));
    expect([...harnesses].sort()).toEqual(['claude', 'codex']);
    // Every day's groups add up to the day.
    for (const p of a.periods) {
      const sum = (p.groups ?? []).reduce((n, g) => n + (g.cost.usd ?? 0), 0);
      expect(sum).toBeCloseTo(p.cost.usd ?? 0, 6);
    }
  });

  it('splits by model and project too, and a model with no price is unknown, not $0', async () => {
    const byModel = await spend('?by=model');
    const mystery = byModel.periods.flatMap((p) => p.groups ?? []).find((g) => g.key === 'mystery-model-1');
    expect(mystery?.cost.usd).toBeNull();
    expect(mystery?.cost.unpricedTokens).toBeGreaterThan(0);
    const byProject = await spend('?by=project&days=7');
    const projects = new Set(byProject.periods.flatMap((p) => (p.groups ?? []).map((g) => g.key)));
    expect(projects.has('/work/app')).toBe(true);
    expect([...projects].some((p) => p.includes('<img src=x onerror='))).toBe(true);
    expect(byProject.days).toBe(7);
  });

  it('splits by tool, the tools of each day adding up to the day', async () => {
    const a = await spend('?by=tool');
    for (const p of a.periods) {
      const sum = (p.groups ?? []).reduce((n, g) => n + (g.cost.usd ?? 0), 0);
      expect(sum, p.period).toBeCloseTo(p.cost.usd ?? 0, 5);
    }
    expect(a.periods.some((p) => (p.groups ?? []).length > 0)).toBe(true);
  });

  it('a week or a month is whole: the first period starts where its week or month does', async () => {
    const a = await spend('?unit=month&days=31');
    const today = s.live.localTime.dayNumber(Date.now());
    const first = periodStart(today - 30, 'month', 'monday');
    expect(a.report).toBe('monthly');
    expect(a.from).toBe(new Date(first * 86_400_000).toISOString().slice(0, 10));
  });

  it("the blocks are Claude Code's, the running one last and also as `active`", async () => {
    const a = await spend();
    const claude = s.live.usage().filter((u) => u.provider === 'claude');
    const r = blockReport(claude, { nowMs: Date.now(), included: () => false, tokenLimit: null });
    const running = activeBlock(r)!;
    expect(running).not.toBeNull();
    // What does not move with the clock (the burn rate's projection does, between two calls).
    const { projection: _p, ...want } = blockJson(running) as Extract<
      ReturnType<typeof blockJson>,
      { kind: 'block' }
    >;
    expect(a.active).toMatchObject(want);
    expect(a.blocks.at(-1)).toEqual(a.active);
    expect(a.blocks.every((b) => b.kind === 'block')).toBe(true);
    expect(a.blocks.length).toBeGreaterThan(1);
  });

  it('with no config file, no budgets, and the page is told where the file would be', async () => {
    const a = await spend();
    expect(a.budgets).toEqual([]);
    expect(a.configPath).toMatch(/\/\.config\/cctop\/config\.toml$/);
  });

  it('a wrong parameter is 400 with the reason, and nothing is computed', async () => {
    const bad = [
      '?unit=year',
      '?unit=DAY',
      '?by=session',
      '?days=0',
      `?days=${MAX_SPEND_DAYS + 1}`,
      '?days=-3',
      '?days=1.5',
      '?days=31abc',
      '?days=99999',
    ];
    for (const qs of bad) {
      const res = await fetch(`${url}/api/spend${qs}`, { headers: bearer() });
      expect(res.status, qs).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect((await json<{ error: string }>(res)).error, qs).toMatch(/^(unit|by|days): expected/);
    }
    expect((await fetch(`${url}/api/spend?days=${MAX_SPEND_DAYS}`, { headers: bearer() })).status).toBe(200);
  });
});

describe('the budgets on /api/spend', () => {
  let home: FakeHome;
  let live: LiveSessions;
  const nowMs = Date.now();
  const CONFIG = [
    '[[budget]]',
    'name = "all of it"',
    'period = "month"',
    'usd = 0.000001',
    '',
    '[[budget]]',
    'name = "app, codex"',
    'period = "month"',
    'usd = 1000000',
    'harness = "codex"',
    'project = "/work/app"',
    '',
  ].join('\n');

  beforeAll(async () => {
    home = new FakeHome();
    spendHistory(home, nowMs);
    live = new LiveSessions({
      env: home.env,
      plan: 'retail',
      providers: null,
      useIndex: false,
      threads: 1,
      delayMs: 500,
    });
    await live.refresh();
  });
  afterAll(() => home?.cleanup());

  it('each budget is where `cctop budget` would put it: spent, share and level', async () => {
    const publication = new Publication('test');
    publication.update(live.document!, { kind: 'all' });
    const app = createApp({
      live,
      hub: new EventHub((id) => publication.opening(id), 1, 60_000),
      assets: new Assets(),
      answers: new Answers(live, 'test'),
      tokens: null,
      port: () => 7777,
      loopbackOnly: false,
      current: async () => publication.whole()!,
      version: 'test',
      delayMs: 500,
      config: () => parseConfig(CONFIG, '/home/u/.config/cctop/config.toml', home.env),
    });
    const a = await json<SpendAnswer>(await app.fetch(new Request('http://127.0.0.1:7777/api/spend')));
    expect(a.configPath).toBe('/home/u/.config/cctop/config.toml');
    expect(a.configProblems).toEqual([]);
    expect(a.budgets.map((b) => [b.name, b.level])).toEqual([
      ['all of it', 'over'],
      ['app, codex', 'ok'],
    ]);
    const all = a.budgets[0]!;
    const month = spendAnswer(live.usage(), {
      nowMs,
      time: live.localTime,
      plan: 'retail',
      query: { unit: 'month', by: 'harness', days: 1 },
      config: null,
    });
    // The month's spend, everything selected: what the monthly report says this month cost.
    expect(all.spentUsd).toBeCloseTo(month.periods.at(-1)!.cost.usd!, 6);
    const codex = a.budgets[1]!;
    const codexApp = month.periods
      .at(-1)!
      .groups!.filter((g) => g.key === 'codex')
      .reduce((n, g) => n + (g.cost.usd ?? 0), 0);
    expect(codex.spentUsd).toBeCloseTo(codexApp, 6);
    expect(codex.share).toBeGreaterThan(0);
  });

  it('a config file that cannot be used is said, and shows no budgets', () => {
    const a = spendAnswer(live.usage(), {
      nowMs,
      time: live.localTime,
      plan: 'retail',
      query: { unit: 'day', by: 'harness', days: 31 },
      config: parseConfig('[[budget]\nname = ', '/c.toml', home.env),
    });
    expect(a.budgets).toEqual([]);
    expect(a.configProblems[0]).toMatch(/^\/c\.toml line 1/);
  });
});
