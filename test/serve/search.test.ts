/**
 * The dashboard's search: `GET /api/search` over real HTTP on 127.0.0.1 (what it answers, what it
 * refuses, who may ask), and the search box in a real browser (Debian's Chromium), whose result
 * opens the session page at the turn that says the words. The history is the lab's recordings of
 * Claude Code, Codex and Gemini CLI (`lab/fixtures/<agent>/{text,call}`).
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import type { SearchResults } from '../../src/views/serve/search.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from './chromium.js';
import { base, bearer, get, serve, TOKEN, until } from './helpers.js';

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

let home: FakeHome;
let s: RunningServer;
beforeAll(async () => {
  home = new FakeHome();
  for (const agent of ['claude', 'codex', 'gemini'])
    for (const script of ['text', 'call'])
      cpSync(join(REPO, 'lab', 'fixtures', agent, script, 'home'), home.dir, { recursive: true });
  s = await serve(home);
});
afterAll(async () => {
  await s?.close();
  home?.cleanup();
});

const search = async (query: string) => get(s.port, `/api/search?${query}`);

describe('GET /api/search', () => {
  it('answers the results, best first, each naming its session and turn', async () => {
    const q = `q=${encodeURIComponent('"the lab answers with text only"')}`;
    // A search from the page catches the index up within SERVE_CATCH_UP_MS and says what it left
    // unread; the next one reads on. On a busy machine the first may be behind: ask again until it
    // says it is not, each answer having read on (so this waits on the index, not on the clock).
    let doc: SearchResults;
    for (let left: number | null = null; ; ) {
      const r = await search(q);
      expect(r.status).toBe(200);
      doc = JSON.parse(r.body) as SearchResults;
      if (doc.behind === null) break;
      if (left !== null) expect(doc.behind.bytes, 'each search reads on').toBeLessThan(left);
      left = doc.behind.bytes;
    }
    expect(doc.query).toBe('"the lab answers with text only"');
    expect(doc.behind).toBeNull();
    expect(doc.results.map((h) => h.provider).sort()).toEqual(['claude', 'codex', 'gemini']);
    for (const h of doc.results) {
      expect(h.role).toBe('assistant');
      expect(typeof h.seq).toBe('number');
      // A phrase is marked whole.
      expect(h.snippet.slice(h.marks[0]![0], h.marks[0]![1])).toBe('the lab answers with text only');
    }
  });

  it('narrows by who said it and by harness, and caps the count', async () => {
    const doc = JSON.parse(
      (await search('q=lab-call-ok&role=tool&provider=claude&limit=1')).body,
    ) as SearchResults;
    expect(doc.results).toHaveLength(1);
    expect(doc.results[0]).toMatchObject({ provider: 'claude', role: 'tool' });
  });

  it('refuses a malformed query, an unknown role or harness, with a reason', async () => {
    for (const [q, why] of [
      [`q=${encodeURIComponent('"open')}`, /no closing quote/],
      ['q=', /empty/],
      ['q=x&role=robot', /role/],
      ['q=x&provider=vim', /provider/],
      ['q=x&limit=-3', /limit/],
    ] as const) {
      const r = await search(q);
      expect(r.status).toBe(400);
      expect((JSON.parse(r.body) as { error: string }).error).toMatch(why);
    }
  });

  it('answers nobody without the token', async () => {
    expect((await get(s.port, '/api/search?q=lab', {})).status).toBe(401);
    expect((await get(s.port, '/api/search?q=lab', bearer('wrong-token'))).status).toBe(401);
  });
});

describe.runIf(HAVE_CHROMIUM)(`the search box in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launch();
    page = await browser.page();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the matches marked, and a result opens the session at that turn', async () => {
    await page.goto(`${base(s)}/?t=${TOKEN}`);
    const box = page.locator('.search input');
    await box.fill('lab-call-ok');
    await box.press('Enter');
    await until('results', async () => (await page.locator('.hits .hit').count()) > 0);
    const hits = page.locator('.hits .hit');
    expect(await hits.count()).toBeGreaterThanOrEqual(3);
    expect(await hits.first().locator('mark').first().textContent()).toBe('lab-call-ok');
    const link = hits.first().locator('a.hit-title');
    const href = (await link.getAttribute('href')) ?? '';
    const turn = /#turn-(\d+)$/.exec(href)?.[1];
    expect(turn).toBeDefined();
    await link.click();
    await until(
      `turn ${turn} in view`,
      async () => (await page.locator(`#turn-${turn}.target`).count()) === 1,
    );
    expect(await page.locator(`#turn-${turn}`).textContent()).toContain('lab-call-ok');
    expect(browser.problems).toEqual([]);
  });
});
