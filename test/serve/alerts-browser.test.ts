/**
 * Budgets and alerts on the dashboard, in a real browser (Debian's Chromium), against `cctop serve`
 * on 127.0.0.1 with a config file holding a one-cent daily budget: the dashboard shows where the
 * budget stands, and a request that puts it over its limit brings one browser notification and turns
 * the card red, without a reload. Skipped, saying why, without the browser.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON, recordNotifications } from './chromium.js';
import { base, claude, serve, TOKEN, until } from './helpers.js';

/* The browser globals the `evaluate` callbacks touch (the tests compile without the DOM library). */
interface PageWindow {
  __notes: { title: string; body: string }[];
}
declare const window: PageWindow;

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

const ID = 'budget-0001';

describe.runIf(HAVE_CHROMIUM)(`budgets and alerts in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let page: Page;
  let transcript: string;

  beforeAll(async () => {
    home = new FakeHome();
    // A session from last week: nothing is spent today until the test adds a request.
    const lastWeek = Date.now() - 7 * 86_400_000;
    transcript = home.write(
      home.claudeFile('-work-budget', `${ID}.jsonl`),
      claude.user(ID, 'tidy the imports', new Date(lastWeek).toISOString()) +
        claude.assistant(ID, [{ type: 'text', text: 'Done.' }], new Date(lastWeek + 5000).toISOString(), 1),
      lastWeek + 5000,
    );
    const config = join(home.dir, 'config.toml');
    writeFileSync(config, '[[budget]]\nname = "one cent"\nperiod = "day"\nusd = 0.01\n');
    s = await serve(home, { env: { ...home.env, CCTOP_CONFIG: config } });
    browser = await launch();
    page = await browser.page();
    await recordNotifications(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  const card = () => page.locator('.summary .stat.budgets');

  it('shows the budget in the dashboard header, with nothing spent today', async () => {
    await page.goto(`${base(s)}/?t=${TOKEN}`);
    await page.waitForSelector('table.sessions tbody tr');
    await until('the budgets card', async () => (await card().textContent())?.includes('one cent') === true);
    expect(await card().textContent()).toContain('one cent: $0.00 of $0.01 today (0%)');
  });

  it('a request that puts the budget over its limit notifies once and turns the card red', async () => {
    await page.check('#notify');
    const notes = () => page.evaluate(() => window.__notes);
    expect(await notes()).toEqual([]);
    // Two requests of about seven tenths of a cent each, at retail.
    appendFileSync(
      transcript,
      claude.assistant(ID, [{ type: 'text', text: 'Again.' }], undefined, 2) +
        claude.assistant(ID, [{ type: 'text', text: 'And again.' }], undefined, 3),
    );
    await until('a notification', async () => (await notes()).length === 1, 20_000);
    expect((await notes())[0]).toMatchObject({ title: 'Over budget: one cent' });
    expect((await notes())[0]!.body).toMatch(/^\$0\.0\d of \$0\.01 \(\d{3}%\) today$/);
    await until('the red card', async () => (await card().locator('.stat-value.budget-over').count()) === 1);
    // More spend while it is over: the card follows, no second notification.
    const before = await card().textContent();
    appendFileSync(transcript, claude.assistant(ID, [{ type: 'text', text: 'Once more.' }], undefined, 4));
    // The page handles the update that moves the card and the one that would notify as one: once the
    // card shows the new spend, a second notification would already be there.
    await until('the card to follow the spend', async () => (await card().textContent()) !== before, 20_000);
    expect(await card().textContent()).toContain('one cent');
    expect((await notes()).length).toBe(1);
  });
});
