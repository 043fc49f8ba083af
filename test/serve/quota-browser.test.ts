/**
 * The quota card on the dashboard, in a real browser (Debian's Chromium), against `cctop serve` on
 * 127.0.0.1 over a home whose `.claude.json` holds Claude Code's cached quota (as 2.1.328 keeps it):
 * a meter per current window with its share, reset, source and age; the stale window written as
 * stale, without a meter. Skipped, saying why, without the browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome } from '../../src/test-support/corpus.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from './chromium.js';
import { base, serve, TOKEN, until } from './helpers.js';

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

const HOUR = 3_600_000;

describe.runIf(HAVE_CHROMIUM)('the quota card in Chromium', () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = new FakeHome();
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    home.write(
      join(home.dir, '.claude.json'),
      JSON.stringify({
        cachedUsageUtilization: {
          fetchedAtMs: now - 5 * 60_000,
          accountUuid: '1a2b3c4d-0000-4000-8000-000000000001',
          utilization: {
            // Half a minute past 2h30, so the minute shown does not move while the test runs.
            five_hour: { utilization: 72, resets_at: iso(now + 2 * HOUR + 30 * 60_000 + 30_000) },
            seven_day: { utilization: 95, resets_at: iso(now - HOUR) },
          },
        },
      }),
    );
    s = await serve(home);
    browser = await launch();
    page = await browser.page();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  it('draws a meter for the current window and writes the stale one as stale', async () => {
    await page.goto(`${base(s)}/?t=${TOKEN}`);
    const card = page.locator('.summary .stat.quota');
    await until(
      'the quota card',
      async () => (await card.isVisible()) && (await card.locator('.quota-window').count()) === 2,
    );
    const lines = await card.locator('.quota-window').allTextContents();
    expect(lines.map((l) => l.trim())).toEqual([
      "Claude Code 5h: 72% · resets in 2h30 (agent's cache, 5m ago)",
      "Claude Code 7d: stale · reset passed (agent's cache, 5m ago)",
    ]);
    expect(await card.locator('.quota-window').first().locator('svg.meter.warm').count()).toBe(1);
    expect(await card.locator('.quota-stale svg.meter').count()).toBe(0);
    expect(await card.locator('.stat-value').textContent()).toBe('72%');
  });
});
