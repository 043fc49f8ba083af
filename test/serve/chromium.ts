/**
 * Debian's Chromium, driven by playwright-core (no browser download): headless, a fresh profile each
 * run, and nothing it may reach but 127.0.0.1. Tests skip, saying why, where it is not installed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const NO_CHROMIUM_REASON = `${CHROMIUM} is absent (apt-get install -y chromium); browser tests are skipped`;

if (!HAVE_CHROMIUM) console.warn(NO_CHROMIUM_REASON);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Any name but the loopback address resolves to nothing: the page cannot reach out, by design or by accident.
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

export interface Browser {
  ctx: BrowserContext;
  /** Every uncaught page error and every Content-Security-Policy complaint, from every page. */
  problems: string[];
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'cctop-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
    timezoneId: 'UTC',
    locale: 'en-GB',
  });
  const problems: string[] = [];
  const watch = (p: Page) => {
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Trusted Type/i.test(m.text()))
        problems.push(m.text());
    });
    p.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  };
  ctx.on('page', watch);
  for (const p of ctx.pages()) watch(p);
  return {
    ctx,
    problems,
    page: () => ctx.newPage(),
    async close() {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Record the page's notifications in `window.__notes` instead of showing them; the page sees a
 * browser that has granted them. Applies to pages opened after it.
 */
export async function recordNotifications(browser: Browser): Promise<void> {
  // `globalThis` is the page's window there; this file compiles without the DOM library.
  await browser.ctx.addInitScript(() => {
    const w = globalThis as unknown as { __notes: { title: string; body: string }[]; Notification: unknown };
    w.__notes = [];
    class Recorded {
      static permission = 'granted';
      static requestPermission() {
        return Promise.resolve('granted');
      }
      constructor(title: string, o?: { body?: string }) {
        w.__notes.push({ title, body: o?.body ?? '' });
      }
      addEventListener() {}
      close() {}
    }
    Object.defineProperty(globalThis, 'Notification', {
      value: Recorded,
      configurable: true,
      writable: true,
    });
  });
}
