/**
 * A driven run's card on its session's page in Chromium, while cctop reads the session's transcript
 * around the page: the card must not depend on which came first, the page or the read. The run is a
 * scripted one announced over real runtime sockets (`cctop/drive`'s own announcer), so the order is
 * the test's to choose; `test/lab/drive-dashboard.test.ts` does the same with the real Claude CLI,
 * where the order is the machine's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announced } from '../../src/drive/announced-run.js';
import { ScriptedRun, scriptedOutcome } from '../../src/drive/test-support/scripted-run.js';
import { AgentStates } from '../../src/live/agent-state.js';
import { peerSockets } from '../../src/runtime/peers.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch } from './chromium.js';
import { base, claude, serve, TOKEN } from './helpers.js';

/**
 * How soon the page shows what the server holds: the server looks again 500 ms after a change
 * (`delayMs` in `serve()`) and pushes the update; seconds more leave room for a loaded two-core
 * machine, and a page that never shows it still fails.
 */
const SHOWN_MS = 10_000;

describe.runIf(HAVE_CHROMIUM)(
  `a driven run's card on its session's page in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`,
  () => {
    let home: FakeHome;
    let runtime: string;
    let agents: AgentStates;
    let s: RunningServer;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      home = new FakeHome();
      runtime = mkdtempSync(join(tmpdir(), 'cctop-serve-driven-'));
      const env = { ...home.env, CCTOP_RUNTIME_DIR: runtime };
      agents = new AgentStates(env);
      s = await serve(home, { env, agents, providers: ['claude'] });
      for (let i = 0; i < 100 && peerSockets(runtime).length === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      browser = await launch();
      page = await browser.page();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      home?.cleanup();
      if (runtime) rmSync(runtime, { recursive: true, force: true });
    });

    /** A remote-approval run on `session`, waiting on one Bash call, as this server follows it. */
    async function waitingRun(session: string) {
      const inner = new ScriptedRun();
      const run = announced(inner, {
        agent: 'claude',
        prompt: 'p',
        approvals: 'remote',
        parentEnv: { CCTOP_RUNTIME_DIR: runtime },
        announce: { program: 'fix-bot' },
      });
      const done = (async () => {
        for await (const _ of run) {
          // Read as a program would.
        }
      })();
      inner.emit({ kind: 'started', session, model: null });
      inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'Bash', input: { command: 'touch x' } });
      await expect
        .poll(() => agents.driven.list().find((r) => r.session === session)?.pending.length)
        .toBe(1);
      return {
        async end() {
          inner.end(scriptedOutcome());
          await done;
          await expect.poll(() => agents.driven.list().length).toBe(0);
        },
      };
    }

    const card = () => page.locator('.session-driven .driven');
    const write = (session: string, text: string) =>
      home.write(home.claudeFile('-work-driven', `${session}.jsonl`), claude.user(session, text));
    const turnShown = (text: string) =>
      page.locator('.turn .text', { hasText: text }).waitFor({ timeout: SHOWN_MS });

    it('a page opened before cctop read the session keeps the card once the transcript is read', async () => {
      const session = 'driven-late-0001';
      const run = await waitingRun(session);
      await page.goto(`${base(s)}/session/${session}?t=${TOKEN}`);
      await card().waitFor({ timeout: SHOWN_MS });
      write(session, 'the first line, read after the page opened');
      // The update that brings the session's own row (its turn on the page) must keep the run on it.
      await turnShown('the first line, read after the page opened');
      expect(await card().count()).toBe(1);
      expect(await card().locator('h2').textContent()).toBe('Driven by fix-bot');
      expect(await card().locator('.driven-input').textContent()).toBe('{"command":"touch x"}');
      await run.end();
      await expect.poll(() => card().count(), { timeout: SHOWN_MS }).toBe(0);
    });

    it('a page opened after the read shows the card, and keeps it as the transcript grows', async () => {
      const session = 'driven-read-0002';
      write(session, 'a line cctop reads before the run is announced');
      const run = await waitingRun(session);
      await page.goto(`${base(s)}/session/${session}?t=${TOKEN}`);
      await card().waitFor({ timeout: SHOWN_MS });
      write(session, 'a line written while the page is open');
      await turnShown('a line written while the page is open');
      expect(await card().count()).toBe(1);
      expect(await card().locator('h2').textContent()).toBe('Driven by fix-bot');
      await run.end();
    });

    it('nothing on the page broke the Content-Security-Policy or threw', () => {
      expect(browser.problems).toEqual([]);
    });
  },
);
