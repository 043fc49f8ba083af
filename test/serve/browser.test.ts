/**
 * The page in a real browser (Debian's Chromium), against `cctop serve` on 127.0.0.1 reading a
 * history of the lab's recorded runs and the demo (`ownedHome`), plus one hostile transcript written
 * for this test.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDoc, SessionDocument } from '../../src/model/document.js';
import { type FakeHome, jsonl } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch, recordNotifications } from './chromium.js';
import {
  askUser,
  base,
  bearer,
  claude,
  LAB_CLAUDE,
  LONG_CODEX,
  ownedHome,
  serve,
  TOKEN,
  until,
} from './helpers.js';

/*
 * The few browser globals the `evaluate` callbacks touch. The tests compile without the DOM library
 * (the rest of the tree is Node), so they are declared here, for this file only.
 */
interface PageWindow {
  __pwned?: string;
  __sameDocument?: boolean;
  __notes: { title: string; body: string }[];
  innerWidth: number;
}
declare const window: PageWindow;
declare const document: { cookie: string; documentElement: { scrollWidth: number } };
type HTMLElement = { dataset: Record<string, string | undefined>; id: string };

/**
 * How soon a line appended to a transcript must show on an open page: the server looks again 500 ms
 * after a change (`delayMs` in `serve()`), reads the file and pushes the update; seconds more leave
 * room for a loaded two-core machine, and a page that never updates still fails.
 */
const APPEND_SHOWN_MS = 10_000;

const HOSTILE = 'hostile-0001';
const SCRIPT = `<script>window.__pwned = 'script'</script>`;
const IMG = `<img src=x onerror="window.__pwned = 'img'">`;

/** A Claude Code transcript whose every text field tries to become markup. */
function writeHostile(home: FakeHome): void {
  const at = (s: number) => new Date(Date.parse('2026-01-05T10:00:00Z') + s * 1000).toISOString();
  home.write(
    home.claudeFile('-work-hostile', `${HOSTILE}.jsonl`),
    claude.title(HOSTILE, `${IMG} hostile title`) +
      claude.user(HOSTILE, `${SCRIPT} please look at ${IMG} and <b>this</b>`, at(0)) +
      claude.assistant(
        HOSTILE,
        [
          { type: 'text', text: `<svg onload="window.__pwned = 'svg'"></svg> running it` },
          { type: 'tool_use', id: 'toolu_hostile', name: 'Bash', input: { command: `echo "${SCRIPT}"` } },
        ],
        at(5),
        1,
      ) +
      jsonl({
        type: 'user',
        sessionId: HOSTILE,
        cwd: '/work/hostile',
        uuid: 'u-result',
        timestamp: at(8),
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_hostile',
              content: `<iframe src="javascript:window.__pwned='iframe'"></iframe>${IMG}`,
            },
          ],
        },
      }),
    Date.parse('2026-01-05T10:00:10Z'),
  );
}

describe.runIf(HAVE_CHROMIUM)(`the page in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let url: string;
  let page: Page;

  const doc = async (): Promise<SessionDocument> =>
    (await (await fetch(`${url}/api/sessions`, { headers: bearer() })).json()) as SessionDocument;

  beforeAll(async () => {
    home = ownedHome();
    writeHostile(home);
    s = await serve(home);
    url = base(s);
    browser = await launch();
    page = await browser.page();
    await recordNotifications(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  it('the link with ?t= leaves an HttpOnly cookie and a clean address', async () => {
    await page.goto(`${url}/?t=${TOKEN}`);
    expect(page.url()).toBe(`${url}/`);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const cookies = await browser.ctx.cookies(url);
    expect(cookies.find((c) => c.name === `cctop_${s.port}`)).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
  });

  it('the dashboard lists every session of the history', async () => {
    await page.waitForSelector('table.sessions tbody tr');
    const expected = (await doc()).sessions.map((x) => x.id).sort();
    const shown = (
      await page.$$eval('table.sessions tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.id!))
    ).sort();
    expect(shown).toEqual(expected);
    expect(shown.length).toBeGreaterThan(20);
    expect(await page.textContent('.count')).toBe(`${expected.length} sessions`);
    // The demo holds one session left asking its user a question.
    expect(await page.locator('.needs .need').count()).toBeGreaterThanOrEqual(1);
  });

  it('sorts by a column and filters by text', async () => {
    await page.click('th.col-tokens button');
    const first = await page.$eval('table.sessions tbody tr', (r) => (r as HTMLElement).dataset.id);
    const byTokens = (await doc()).sessions
      .filter((x) => x.tokens.input !== null)
      .sort((a, b) => {
        const t = (x: typeof a) =>
          (x.tokens.input ?? 0) +
          (x.tokens.output ?? 0) +
          (x.tokens.cacheRead ?? 0) +
          (x.tokens.cacheWrite ?? 0);
        return t(b) - t(a);
      });
    expect(first).toBe(byTokens[0]!.id);
    // The lab's five Codex runs were recorded within a minute: their ids, and only theirs, share a prefix.
    await page.fill('input[type=search]', '01a2337e');
    await until(
      'the filter to apply',
      async () => (await page.locator('table.sessions tbody tr').count()) === 5,
    );
    expect(page.url()).toContain('q=01a2337e');
    await page.fill('input[type=search]', '');
    await page.click('th.col-last button');
  });

  it('a line appended to a transcript shows up on the open page within seconds, without a reload', async () => {
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    const { id, rel } = LAB_CLAUDE.text;
    appendFileSync(join(home.dir, rel), claude.title(id, 'Renamed while the page was open'));
    const took = await until(
      'the new title on the page',
      async () =>
        (await page
          .locator('table.sessions tbody tr', { hasText: 'Renamed while the page was open' })
          .count()) === 1,
      APPEND_SHOWN_MS,
    );
    console.log(`appended line visible on the dashboard after ${took} ms`);
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
  });

  it('an update carrying one changed session redraws its row, without a reload or a fetch of the whole document', async () => {
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    const wholeFetches: string[] = [];
    const onRequest = (r: Request) => {
      if (new URL(r.url()).pathname === '/api/sessions') wholeFetches.push(r.url());
    };
    page.on('request', onRequest);
    try {
      const before = s.live.document!;
      const id = LAB_CLAUDE.call.id;
      const old = before.sessions.find((x) => x.id === id)!;
      const changed: SessionDoc = {
        ...old,
        title: 'Pushed as one changed session',
        lastActiveAt: new Date().toISOString(),
      };
      const sessions = [changed, ...before.sessions.filter((x) => x !== old)];
      // What the live picture announces when a refresh rebuilt one session.
      s.live.emit('update', { ...before, sessions }, { kind: 'some', changed: [changed], removed: [] });
      const row = page.locator(`table.sessions tbody tr[data-id="${id}"]`);
      await until(
        'the pushed title',
        async () => (await row.textContent())?.includes(changed.title!) ?? false,
      );
      // Newest first: the row moved to the top.
      expect(await page.$eval('table.sessions tbody tr', (r) => (r as HTMLElement).dataset.id)).toBe(id);

      // A session that went away leaves the table.
      const gone = sessions.at(-1)!;
      s.live.emit(
        'update',
        { ...before, sessions: sessions.slice(0, -1) },
        { kind: 'some', changed: [], removed: [{ provider: gone.provider, id: gone.id }] },
      );
      await until(
        'the removed row to go',
        async () => (await page.locator(`table.sessions tbody tr[data-id="${gone.id}"]`).count()) === 0,
      );
      expect(wholeFetches).toEqual([]);

      // An update that says everything changed: the page fetches the whole document, once.
      s.live.emit('update', before, { kind: 'all' });
      await until('the whole document fetched', () => wholeFetches.length === 1);
      await until(
        'the removed row back',
        async () => (await page.locator(`table.sessions tbody tr[data-id="${gone.id}"]`).count()) === 1,
      );
      await page.waitForTimeout(300);
      expect(wholeFetches.length).toBe(1);
      expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('notifies once when a session crosses into waiting, not for one already waiting', async () => {
    await page.check('#notify');
    const notes = () => page.evaluate(() => window.__notes);
    expect(await notes()).toEqual([]);
    const { id, rel } = LAB_CLAUDE.resume;
    const path = join(home.dir, rel);
    askUser(path, id);
    await until('a notification', async () => (await notes()).length === 1);
    expect((await notes())[0]!.title).toMatch(/is waiting on you$/);
    await until(
      'the needs-you strip',
      async () =>
        (await page.locator(`.needs .need[href*="${id}"]`, { hasText: 'asks: AskUserQuestion' }).count()) ===
        1,
    );
    // Another update while it is still waiting: no second notification.
    appendFileSync(path, claude.title(id, 'Still waiting'));
    await until(
      'the update',
      async () => (await page.locator('.needs .need', { hasText: 'Still waiting' }).count()) === 1,
    );
    await page.waitForTimeout(1200);
    expect((await notes()).length).toBe(1);
  });

  it('a session page shows its report and conversation, and pages back through older turns', async () => {
    await page.click(`table.sessions tbody tr[data-id="${LONG_CODEX}"] a.title`);
    await page.waitForSelector('.turn');
    expect(page.url()).toBe(`${url}/session/${LONG_CODEX}`);
    const newest = await page.locator('.turn').count();
    expect(newest).toBe(200);
    for (const section of ['#cost svg.chart', '#context svg.chart', '#files', '#failures'])
      expect(await page.locator(section).count(), section).toBe(1);
    expect(await page.locator('.chat-tools a[download]').getAttribute('href')).toBe(
      `/api/chat/${LONG_CODEX}/markdown`,
    );
    const earlier = await page.textContent('.chat-head');
    expect(earlier).toMatch(/\d+ earlier/);
    await page.click('button.older');
    await until('older turns', async () => (await page.locator('.turn').count()) > newest);
    expect(await page.locator('button.older').count()).toBe(0);
    const firstSeq = await page.$eval('.turn', (t) => Number(t.id.slice('turn-'.length)));
    expect(firstSeq).toBeLessThan(72);
  });

  it('a #turn-N link pages back by itself to an older turn and shows it', async () => {
    const target = await page.$eval('.turn', (t) => t.id);
    const p = await browser.page();
    await p.goto(`${url}/session/${LONG_CODEX}#${target}`);
    await p.waitForSelector(`#${target}.target`);
    expect(await p.locator(`#${target}`).isVisible()).toBe(true);
    await p.close();
  });

  it('the conversation of an open session updates without a reload', async () => {
    const { id, rel } = LAB_CLAUDE.parallel;
    await page.goto(`${url}/session/${id}`);
    await page.waitForSelector('.turn');
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    appendFileSync(join(home.dir, rel), claude.user(id, 'a follow-up typed while the page was open'));
    const took = await until(
      'the new turn',
      async () =>
        (await page
          .locator('.turn .text', { hasText: 'a follow-up typed while the page was open' })
          .count()) === 1,
    );
    console.log(`appended turn visible on the session page after ${took} ms`);
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
  });

  it('a hostile transcript renders as text and runs nothing', async () => {
    await page.goto(`${url}/`);
    const row = page.locator(`table.sessions tbody tr[data-id="${HOSTILE}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain(`${IMG} hostile title`);
    await row.locator('a.title').click();
    await page.waitForSelector('.turn');
    await page.click('.turn details.call summary');
    const texts = await page.$$eval('#conversation .turn', (ts) => ts.map((t) => t.textContent ?? ''));
    const all = texts.join('\n');
    expect(all).toContain(SCRIPT);
    expect(all).toContain('<b>this</b>');
    expect(all).toContain(`<svg onload="window.__pwned = 'svg'"></svg>`);
    expect(all).toContain(`<iframe src="javascript:window.__pwned='iframe'"></iframe>`);
    expect(
      await page
        .locator(
          '#conversation img, #conversation script, #conversation iframe, #conversation svg, #conversation b',
        )
        .count(),
    ).toBe(0);
    expect(await page.locator('h1').textContent()).toBe(`${IMG} hostile title`);
    expect(await page.locator('img').count()).toBe(0);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  it('is usable on a phone-sized screen', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${url}/`);
    await phone.waitForSelector('table.sessions tbody tr');
    const fits = () => phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await fits()).toBe(true);
    expect(await phone.locator('.needs').isVisible()).toBe(true);
    const first = phone.locator('table.sessions tbody tr').first();
    const box = (await first.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await phone.locator('th').first().isVisible()).toBe(false);
    await first.locator('td.col-cost').click();
    await phone.waitForSelector('.turn');
    expect(phone.url()).toContain('/session/');
    expect(await fits()).toBe(true);
    await phone.close();
  });

  it('a session page opened before cctop has read its session says so, then shows it once it is written', async () => {
    const id = 'late-0001';
    await page.goto(`${url}/session/${id}`);
    await page.waitForSelector('.session-head .loading', { timeout: APPEND_SHOWN_MS });
    expect(await page.locator('.session-head').textContent()).toBe(
      'cctop has not read this session yet; it shows here once it has.',
    );
    home.write(
      home.claudeFile('-work-late', `${id}.jsonl`),
      claude.user(id, 'a session started after its page'),
    );
    await until(
      'the late session on its page',
      async () =>
        (await page.locator('.turn .text', { hasText: 'a session started after its page' }).count()) === 1,
      APPEND_SHOWN_MS,
    );
  });

  it('nothing on any page broke the Content-Security-Policy or threw', () => {
    expect(browser.problems).toEqual([]);
  });
});
