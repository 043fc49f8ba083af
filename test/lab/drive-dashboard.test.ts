/**
 * The whole round trip of a remote approval, with real parts only: `cctop/drive` runs the real
 * Claude Code CLI in the lab (against the stand-in model server) with `approvals: 'remote'`; the run
 * announces itself to `cctop serve` over the runtime directory's socket; the session's page in
 * Chromium shows what the run asks; the read-only link cannot answer; the full link's Allow lets the
 * command run, and the run completes.
 *
 * Skipped, saying why, without the pinned Claude Code or without Chromium.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { AgentStates } from '../../src/live/agent-state.js';
import { peerSockets } from '../../src/runtime/peers.js';
import { claudeRecipe as recipe } from '../../src/test-support/lab/agents/claude.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { Tokens } from '../../src/views/serve/auth.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from '../serve/chromium.js';
import { serve as startServe, TOKEN } from '../serve/helpers.js';
import { promptFor } from './conformance.js';

/**
 * How long the run may take to ask for its one approval: the real Claude CLI starting, one request
 * to the stand-in model and its answer, a few seconds alone; a full test run on two cores makes
 * that several times longer.
 */
const ASKED_MS = 60_000;
/**
 * How soon the session's page shows the run's card once loaded: the page's first live document
 * carries it (the server looks again every 500 ms), so well under a second alone; the rest is room for
 * a loaded machine, and a card that never shows (or goes when cctop reads more of the transcript,
 * as it once did) still fails.
 */
const CARD_SHOWN_MS = 30_000;
/** How soon an answer's outcome, or the run's leaving, shows on the page: one request or one update. */
const ANSWERED_MS = 10_000;

const pin = PINS.claude;
const bin = agentBin('claude');
const why = !bin ? `${pin.package}@${pin.version} is not installed (npm run agents)` : NO_CHROMIUM_REASON;

describe.runIf(bin !== null && HAVE_CHROMIUM)(
  `a driven ${pin.package}@${pin.version} run answered from the dashboard in Chromium${bin && HAVE_CHROMIUM ? '' : ` (skipped: ${why})`}`,
  () => {
    let lab: LabServer;
    let root: string;
    let runtime: string;
    let agents: AgentStates;
    let serve: RunningServer;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      lab = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-dashboard-'));
      runtime = mkdtempSync(join(tmpdir(), 'cctop-lab-dashboard-run-'));
      const where = makeHome(join(root, 'a'));
      const env = { HOME: where.home, TZ: 'UTC', CCTOP_RUNTIME_DIR: runtime };
      agents = new AgentStates(env);
      serve = await startServe({ env }, { providers: ['claude'], agents });
      for (let i = 0; i < 100 && peerSockets(runtime).length === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      browser = await launch();
      page = await browser.page();
      cwd = where.cwd;
      home = where.home;
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await serve?.close();
      lab?.release();
      await lab?.close();
      for (const d of [root, runtime]) if (d) rmSync(d, { recursive: true, force: true });
    });

    let cwd = '';
    let home = '';

    /** The Claude run, asking before its one shell call; nobody in this program answers it. */
    function drive(): { run: Run; events: Event[]; read: Promise<void> } {
      const run = stream({
        agent: 'claude',
        prompt: promptFor('approve'),
        bin: bin!,
        cwd,
        model: recipe.model,
        permission: 'default',
        approvals: 'remote',
        announce: { program: 'lab-bot' },
        parentEnv: { ...process.env, CCTOP_RUNTIME_DIR: runtime },
        env: 'minimal',
        setEnv: { ...labEnv(home, lab.url), ...recipe.env(home, lab.url), IS_SANDBOX: '1' },
        timeoutMs: 120_000,
      });
      const events: Event[] = [];
      const read = (async () => {
        for await (const e of run) events.push(e);
      })();
      return { run, events, read };
    }

    it('the read-only link sees the question but cannot answer; the full link allows it and the command runs', async () => {
      const d = drive();
      const waiting = () => agents.driven.list().find((r) => r.program === 'lab-bot' && r.pending.length > 0);
      await expect.poll(waiting, { timeout: ASKED_MS, interval: 200 }).toBeTruthy();
      const asked = waiting()!;
      expect(asked.pending[0]!.tool).toBe('Bash');
      expect(asked.pending[0]!.input).toContain('touch lab-approved.txt');
      const session = asked.session!;
      const base = `http://127.0.0.1:${serve.port}`;

      // The read-only link: the card shows the question, and Allow is refused by the server.
      await page.goto(`${base}/session/${session}?t=${new Tokens(TOKEN).read}`);
      const card = page.locator('.session-driven .driven');
      await card.waitFor({ timeout: CARD_SHOWN_MS });
      expect(await card.locator('h2').textContent()).toBe('Driven by lab-bot');
      expect(await card.locator('.driven-input').textContent()).toContain('touch lab-approved.txt');
      await card.locator('button.allow').click();
      await expect
        .poll(() => card.locator('.driven-status').textContent(), { timeout: ANSWERED_MS })
        .toContain('read-only');
      expect(agents.driven.list().find((r) => r.id === asked.id)?.pending.length).toBe(1);
      expect(existsSync(join(cwd, 'lab-approved.txt'))).toBe(false);

      // The full link: Allow goes through, the command runs, and the run completes.
      await page.goto(`${base}/session/${session}?t=${TOKEN}`);
      await card.waitFor({ timeout: CARD_SHOWN_MS });
      await card.locator('button.allow').click();
      await d.read;
      const outcome = await d.run.outcome;
      expect(outcome.stop.kind).toBe('completed');
      expect(existsSync(join(cwd, 'lab-approved.txt'))).toBe(true);
      expect(
        d.events.filter((e) => e.kind === 'tool_result').map((e) => e.kind === 'tool_result' && e.ok),
      ).toEqual([true]);
      // The run has left: the session is an ordinary one again, and the page says nothing of a driver.
      await expect.poll(() => agents.driven.list().length, { timeout: ANSWERED_MS }).toBe(0);
      await expect.poll(() => card.count(), { timeout: ANSWERED_MS }).toBe(0);
      expect(browser.problems).toEqual([]);
    }, 180_000);
  },
);
