/**
 * The session page's Hand off button in a real browser (Debian's Chromium): it shows the line that
 * hands the session to another harness, for the harness picked, to a read-only link too.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeHome } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch } from './chromium.js';
import { base, LONG_CODEX, ownedHome, serve } from './helpers.js';

describe.skipIf(!HAVE_CHROMIUM)(`the Hand off button${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    home = ownedHome();
    s = await serve(home);
    browser = await launch();
    page = await browser.page();
    // The read-only link: showing a command is a read.
    await page.goto(`${base(s)}/session/${LONG_CODEX}?t=${s.tokens!.read}`);
    await page.waitForSelector('.session-head h1');
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  it('shows the cctop handoff line for another harness, and for the one picked', async () => {
    const command = page.locator('.handoff-command');
    await page.click('button.handoff-button');
    await expect.poll(() => command.textContent()).toBe(`cctop handoff ${LONG_CODEX} --to claude --run`);
    await page.selectOption('select.handoff-to', 'gemini');
    await expect.poll(() => command.textContent()).toBe(`cctop handoff ${LONG_CODEX} --to gemini --run`);
    expect(await page.locator('select.handoff-to option').allTextContents()).toEqual([
      'claude',
      'codex',
      'gemini',
      'qwen',
      'opencode',
      'pi',
      'copilot',
    ]);
    expect(browser.problems).toEqual([]);
  });
});
