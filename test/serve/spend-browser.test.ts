/**
 * The Spend screen in a real browser (Debian's Chromium), against `cctop serve` on 127.0.0.1 reading
 * the history of `spend-history.ts`: reached from the bar along the top, a column per day with spend,
 * a legend naming the harnesses, a project named with markup shown as text, and a live update drawn
 * without a reload. Skipped, saying why, without the browser.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import type { SpendAnswer } from '../../src/views/serve/spend.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from './chromium.js';
import { base, bearer, serve, TOKEN, until } from './helpers.js';
import { spendHistory } from './spend-history.js';

/* The browser globals the `evaluate` callbacks touch (the tests compile without the DOM library). */
interface PageWindow {
  __pwned?: string;
  __sameDocument?: boolean;
  innerWidth: number;
}
declare const window: PageWindow;
declare const document: { documentElement: { scrollWidth: number } };

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

describe.runIf(HAVE_CHROMIUM)(`the Spend screen in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let url: string;
  let page: Page;

  const answer = async (qs = ''): Promise<SpendAnswer> =>
    (await (await fetch(`${url}/api/spend${qs}`, { headers: bearer() })).json()) as SpendAnswer;
  const legend = () => page.$$eval('.legend li .legend-name', (els) => els.map((e) => e.textContent ?? ''));

  beforeAll(async () => {
    home = new FakeHome();
    spendHistory(home, Date.now());
    // The config file serve reads for budgets: one far from its limit.
    home.write(
      join(home.dir, '.config', 'cctop', 'config.toml'),
      '[[budget]]\nname = "team month"\nperiod = "month"\nusd = 100000\n',
    );
    s = await serve(home);
    url = base(s);
    browser = await launch();
    page = await browser.page();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  it('the bar along the top leads from the dashboard to the Spend screen, without a reload', async () => {
    await page.goto(`${url}/?t=${TOKEN}`);
    await page.waitForSelector('table.sessions tbody tr');
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    await page.click('header.top a.nav-link');
    await page.waitForSelector('svg.spend-chart');
    expect(new URL(page.url()).pathname).toBe('/spend');
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    expect(await page.getAttribute('header.top a.nav-link', 'aria-current')).toBe('page');
  });

  it('draws one column per day with spend, and a legend naming the harnesses', async () => {
    const a = await answer();
    const days = await page.$$eval('svg.spend-chart g.day', (gs) =>
      gs.map((g) => g.getAttribute('data-day')),
    );
    expect(days).toEqual(a.periods.map((p) => p.period));
    expect(days.length).toBeGreaterThanOrEqual(4);
    expect((await legend()).sort()).toEqual(['Claude Code', 'Codex']);
    // Each segment says what it is on hover, with the figure.
    const tips = await page.$$eval('svg.spend-chart g.day rect.seg title', (ts) =>
      ts.map((t) => t.textContent),
    );
    expect(tips.some((t) => /Claude Code: \$\d/.test(t ?? ''))).toBe(true);
    expect(tips.some((t) => /Codex: \$\d/.test(t ?? ''))).toBe(true);
    // The axis names days and dollars.
    const axis = await page.$$eval('svg.spend-chart text.axis', (ts) => ts.map((t) => t.textContent ?? ''));
    expect(axis.some((t) => t.startsWith('$'))).toBe(true);
  });

  it('shows the running Claude Code block with its time left, and the budgets of the config file', async () => {
    expect(await page.textContent('.block-active')).toMatch(/left/);
    expect(await page.textContent('.block-active')).toMatch(/Burn rate/);
    expect(await page.locator('table.blocks tbody tr').count()).toBeGreaterThanOrEqual(1);
    expect(await page.textContent('.budgets-card')).toContain('team month');
    expect(await page.textContent('.budgets-card')).toMatch(/of \$100k/);
  });

  it('split by model, a model with no price reads "no price", never $0', async () => {
    await page.click('.split-switch button[data-by="model"]');
    await until('the legend by model', async () => (await legend()).includes('mystery-model-1'));
    const costs = await page.$$eval('.legend li', (lis) =>
      lis.map((li) => [
        li.querySelector('.legend-name')?.textContent,
        li.querySelector('.legend-cost')?.textContent,
      ]),
    );
    expect(costs).toContainEqual(['mystery-model-1', 'no price']);
    expect(page.url()).toContain('by=model');
  });

  it('split by project, a project named with markup shows as text and runs nothing', async () => {
    await page.click('.split-switch button[data-by="project"]');
    await until('the legend by project', async () => (await legend()).includes('app'));
    const names = await legend();
    expect(names).toContain(`<img src=x onerror="window.__pwned='img'">`);
    expect(await page.locator('.spend img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  it('a live update redraws the screen, fetching the spend again no sooner than every 10 s', async () => {
    await page.click('.split-switch button[data-by="harness"]');
    await until('the legend by harness', async () => (await legend()).includes('Codex'));
    const fetches: number[] = [];
    const onRequest = (r: Request) => {
      if (new URL(r.url()).pathname === '/api/spend') fetches.push(Date.now());
    };
    page.on('request', onRequest);
    try {
      const before = (await answer()).totals.requests;
      const at = new Date().toISOString();
      appendFileSync(
        home.claudeFile('-work-app', 'spend-app.jsonl'),
        jsonl({
          type: 'assistant',
          sessionId: 'spend-app',
          cwd: '/work/app',
          uuid: 'a-live',
          timestamp: at,
          requestId: 'req_live',
          message: {
            id: 'msg_live',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [{ type: 'text', text: 'more' }],
            usage: { input_tokens: 2_000, cache_read_input_tokens: 40_000, output_tokens: 1_500 },
          },
        }),
      );
      await until(
        'the new request in the totals on the page',
        async () => ((await page.textContent('.spend-totals')) ?? '').includes(`${before + 1} requests`),
        25_000,
      );
      for (let i = 1; i < fetches.length; i++) expect(fetches[i]! - fetches[i - 1]!).toBeGreaterThan(9_000);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('fits a phone-sized screen, and nothing threw or tripped the CSP', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${url}/spend`);
    await phone.waitForSelector('svg.spend-chart g.day');
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await phone.close();
    expect(browser.problems).toEqual([]);
  });
});
