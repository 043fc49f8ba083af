/**
 * Collisions on the dashboard and a session's page, in a real browser (Debian's Chromium), against
 * `cctop serve` on 127.0.0.1: two running Claude Code sessions edit files of one repository (a `.git`
 * folder in the test's home). The dashboard marks both rows and shows the collision; when one of them
 * edits the file the other edited, the page says so without a reload, and one browser notification
 * comes. No agent process runs in a test: the server's annotator says both sessions run, as the
 * process table would. Skipped, saying why, without the browser.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../src/model/document.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON, recordNotifications } from './chromium.js';
import { base, bearer, claude, serve, TOKEN, until } from './helpers.js';

/* The browser globals the `evaluate` callbacks touch (the tests compile without the DOM library). */
interface PageWindow {
  __notes: { title: string; body: string }[];
}
declare const window: PageWindow;

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

const A = 'collide-a-0001';
const B = 'collide-b-0002';

describe.runIf(HAVE_CHROMIUM)(`collisions in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
  let home: FakeHome;
  let s: RunningServer;
  let browser: Browser;
  let page: Page;
  let app: string;
  let transcriptB: string;

  /** An Edit of `file`, as Claude Code writes the call. */
  const edit = (session: string, file: string) =>
    claude.assistant(session, [
      {
        type: 'tool_use',
        id: `toolu_${session}_${Math.random()}`,
        name: 'Edit',
        input: { file_path: file, old_string: 'a', new_string: 'b' },
      },
    ]);

  beforeAll(async () => {
    home = new FakeHome();
    app = join(home.dir, 'src', 'app');
    mkdirSync(join(app, '.git'), { recursive: true });
    home.write(
      home.claudeFile('-src-app', `${A}.jsonl`),
      claude.title(A, 'fix the parser') + claude.user(A, 'fix it') + edit(A, join(app, 'src', 'parse.ts')),
    );
    transcriptB = home.write(
      home.claudeFile('-src-app', `${B}.jsonl`),
      claude.title(B, 'speed up the lexer') +
        claude.user(B, 'speed it up') +
        edit(B, join(app, 'src', 'lex.ts')),
    );
    s = await serve(home, {
      annotate: (d) => {
        for (const x of d.sessions) x.running = true;
        return true;
      },
    });
    browser = await launch();
    page = await browser.page();
    await recordNotifications(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    home?.cleanup();
  });

  const badges = (level: string) => page.locator(`table.sessions .collision-badge.${level}`);

  it('marks both rows as sharing a repository, and says which', async () => {
    await page.goto(`${base(s)}/?t=${TOKEN}`);
    await page.waitForSelector('table.sessions tbody tr');
    await until('two repository badges', async () => (await badges('repo').count()) === 2, 20_000);
    expect(await page.locator('.collisions .collision.repo').textContent()).toContain(
      'app: the same repository, no file in common',
    );
    const res = await fetch(`${base(s)}/api/sessions`, { headers: bearer() });
    const doc = (await res.json()) as SessionDocument;
    expect(doc.collisions?.map((c) => c.key)).toEqual([`repo:${app}`]);
  });

  it('when one edits the file the other edited, the page turns the badges red and one notification comes', async () => {
    await page.check('#notify');
    const notes = () => page.evaluate(() => window.__notes);
    appendFileSync(transcriptB, edit(B, join(app, 'src', 'parse.ts')));
    // The watch reads a session again at most every 10 s: allow for that, and a refresh.
    await until('two file badges', async () => (await badges('file').count()) === 2, 30_000);
    expect(await page.locator('.collisions .collision.file').textContent()).toContain('src/parse.ts in app');
    await until('a notification', async () => (await notes()).length === 1, 10_000);
    expect((await notes())[0]).toEqual({
      title: '2 agents writing parse.ts',
      body: 'speed up the lexer and fix the parser both wrote src/parse.ts in app in the last 30 minutes',
    });
    expect(browser.problems).toEqual([]);
  });

  it("a session's page names the other session writing its file, with a link to it", async () => {
    await page.goto(`${base(s)}/session/${A}?t=${TOKEN}`);
    const section = page.locator('.session-collisions .collisions');
    await until('the collisions card', async () => (await section.count()) === 1, 10_000);
    expect(await section.locator('h2').textContent()).toBe('Writing the same file as another agent');
    expect(await section.locator('a').getAttribute('href')).toBe(`/session/${B}`);
    expect(await section.textContent()).toContain('this session');
  });
});
