/**
 * The screenshots in docs/ (dashboard, session, phone), taken from the bundled demo history.
 * Not part of the ordinary run, since it rewrites files in the tree:
 *
 *   CCTOP_SCREENSHOTS=1 npx vitest run test/serve/screenshots.test.ts
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../src/model/document.js';
import { REPO } from '../../src/test-support/corpus.js';
import { demoEnv } from '../../src/views/cli/demo.js';
import { startServer } from '../../src/views/serve/index.js';
import { HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from './chromium.js';
import { TOKEN } from './helpers.js';

const WANTED = process.env.CCTOP_SCREENSHOTS === '1';
if (!WANTED) console.warn('CCTOP_SCREENSHOTS is not 1: the docs/ screenshots are left as they are');

describe.runIf(WANTED && HAVE_CHROMIUM)(
  `screenshots for the docs${WANTED && HAVE_CHROMIUM ? '' : ` (skipped: ${WANTED ? NO_CHROMIUM_REASON : 'they rewrite docs/*.png; CCTOP_SCREENSHOTS=1 npm test makes them'})`}`,
  () => {
    it('dashboard, session and phone', async () => {
      const s = await startServer({
        env: demoEnv({ TZ: 'UTC' }),
        plan: 'retail',
        providers: null,
        useIndex: false,
        delayMs: 1000,
        bind: '127.0.0.1',
        port: 0,
        stepPort: false,
        token: TOKEN,
      });
      const browser = await launch();
      try {
        const url = `http://127.0.0.1:${s.port}`;
        const doc = (await (await fetch(`${url}/api/sessions?t=${TOKEN}`)).json()) as SessionDocument;
        const page = await browser.page();
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.setViewportSize({ width: 1440, height: 860 });
        await page.goto(`${url}/?t=${TOKEN}`);
        await page.waitForSelector('table.sessions tbody tr');
        await page.screenshot({ path: join(REPO, 'docs', 'dashboard.png') });

        const rich = doc.sessions.find((x) => (x.compactions ?? 0) > 0) ?? doc.sessions[0]!;
        await page.setViewportSize({ width: 1440, height: 1200 });
        await page.goto(`${url}/session/${rich.id}`);
        await page.waitForSelector('.turn');
        await page.waitForSelector('#context svg.chart');
        await page.screenshot({ path: join(REPO, 'docs', 'session.png') });

        const phone = await browser.page();
        await phone.emulateMedia({ colorScheme: 'dark' });
        await phone.setViewportSize({ width: 390, height: 844 });
        await phone.goto(`${url}/`);
        await phone.waitForSelector('table.sessions tbody tr');
        await phone.screenshot({ path: join(REPO, 'docs', 'phone.png') });
        expect(browser.problems).toEqual([]);
      } finally {
        await browser.close();
        await s.close();
      }
    });
  },
);
