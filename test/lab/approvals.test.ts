/**
 * Answering from anywhere, against the real Claude Code TUI: Claude Code runs in a tmux pane as a
 * person starts it (first-run dialogs answered by its `~/.claude.json`), with the hooks the built
 * `cctop hooks install --approvals` puts in its settings, against the lab's stand-in model. Each test
 * asks for a call that needs permission, then answers it with `cctop approve` (or at the terminal
 * first), and checks what reached the model in the stand-in's request log.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApprovalJournal } from '../../src/approvals/store.js';
import { watchedStates } from '../../src/live/agent-state.js';
import { pidRuns } from '../../src/pid.js';
import { type Ran, runCli } from '../../src/test-support/cli-run.js';
import { agentBin, labEnv, makeHome, PINS, removeLabTree } from '../../src/test-support/lab/agents.js';
import { RECORDING } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from '../serve/chromium.js';
import { serve as startServe, TOKEN } from '../serve/helpers.js';
import { type ActMeta, recordActFixture } from './act-fixture.js';
import { promptFor } from './conformance.js';

const pin = PINS.claude;
const bin = agentBin('claude');
const missing = !bin
  ? `${pin.package}@${pin.version} is not installed; npm run agents`
  : !HAVE_TMUX
    ? 'tmux is not installed; apt-get install tmux'
    : null;

/** The made-up key the lab gives Claude Code; `~/.claude.json` approves its last 20 characters. */
const KEY = 'sk-ant-lab-approvals-key-0123456789';

/** How long a step may take: Claude Code starts in a few seconds; a loaded machine takes longer. */
const PATIENCE_MS = 60_000;
/** How often the request list is looked at while waiting for the hook to register. */
const POLL_MS = 100;

interface Session {
  /** Where the stand-in's request log stood when the session started: its requests come after. */
  from: number;
  term: Terminal;
  env: Record<string, string>;
  cwd: string;
  runtime: string;
}

let server: LabServer;
let root: string;
let n = 0;

/** Claude Code in a tmux pane, with cctop's hooks installed `--approvals`, asked to follow `script`. */
async function startClaude(script: string): Promise<Session> {
  const dir = join(root, `s${++n}`);
  const from = server.ledger.length;
  const where = makeHome(dir);
  const runtime = join(dir, 'runtime');
  const cctopEnv = {
    PATH: labEnv(where.home, server.url).PATH!,
    HOME: where.home,
    CCTOP_RUNTIME_DIR: runtime,
    XDG_CONFIG_HOME: join(where.home, '.config'),
    CCTOP_CACHE_DIR: join(dir, 'cache'),
  };
  mkdirSync(join(where.home, '.claude'), { recursive: true });
  const install = await runCli(['hooks', 'install', '--agent', 'claude', '--approvals'], cctopEnv);
  expect(install.code, install.err).toBe(0);
  writeFileSync(
    join(where.home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
      projects: { [where.cwd]: { hasTrustDialogAccepted: true } },
    }),
  );
  const env = {
    ...labEnv(where.home, server.url),
    TERM: 'xterm-256color',
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: KEY,
    CCTOP_RUNTIME_DIR: runtime,
  };
  const term = new Terminal(`cctop-approvals-${process.pid}-${n}`, 'claude', PATIENCE_MS);
  const sh = join(dir, 'claude.sh');
  writeFileSync(
    sh,
    `cd '${where.cwd}' && env -i ${envWords(env)} '${bin}' --model claude-sonnet-4-5 '${promptFor(script)}'\nexec sleep 600\n`,
  );
  term.tmux('new-session', '-d', '-s', 'claude', '-x', '120', '-y', '40', `sh '${sh}'`);
  return { from, term, env: cctopEnv, cwd: where.cwd, runtime };
}

/** The open requests, as `cctop approve --list --json` gives them, once there is one. */
async function waitingRequest(
  s: Session,
): Promise<{ id: string; session: string; kind: string; tool: string; input: string; expiresAt: number }> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const r = await runCli(['approve', '--list', '--json'], s.env);
    const requests = (
      JSON.parse(r.out) as {
        requests: {
          id: string;
          session: string;
          kind: string;
          tool: string;
          input: string;
          expiresAt: number;
        }[];
      }
    ).requests;
    if (requests.length > 0) return requests[0]!;
    if (Date.now() > deadline)
      throw new Error(`no request was held; the screen:\n${s.term.screen().join('\n')}`);
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
}

/** Wait until the stand-in has been sent a request the script's `step` answers, and give its tool results. */
async function resultsAt(s: Session, script: string, step: number): Promise<string[]> {
  const { term } = s;
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const e = server.ledger.slice(s.from).find((l) => l.script === script && l.step === step && !l.aux);
    if (e) return e.results;
    if (Date.now() > deadline)
      throw new Error(
        `the model never got step ${step} of ${script}; the screen:\n${term.screen().join('\n')}`,
      );
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
}

/** End the pane's Claude Code (and the hooks it runs) and wait until it is gone, so its files can go. */
async function stopClaude(s: Session): Promise<void> {
  const pane = Number(s.term.tmux('display-message', '-p', '-t', 'claude', '#{pane_pid}').stdout.trim());
  // A tmux that printed nothing reads as 0, whose children are the machine's init and kernel threads:
  // only a real pane's shell has children that are ours to stop.
  const children =
    Number.isInteger(pane) && pane > 1
      ? spawnSync('ps', ['-o', 'pid=', '--ppid', String(pane)], { encoding: 'utf8' })
          .stdout.split('\n')
          .map(Number)
          .filter((p) => p > 0)
      : [];
  s.term.stop();
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone with the tmux server.
    }
    const deadline = Date.now() + PATIENCE_MS;
    while (pidRuns(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const approve = (s: Session, ...args: string[]): Promise<Ran> => runCli(['approve', ...args], s.env);

/**
 * With `CCTOP_LAB_RECORD=1`, keep the session Claude Code wrote while cctop answered its request
 * (`lab/fixtures/act/claude/<where>`), read back by `act-fixtures.test.ts`.
 */
function record(s: Session, where: string, approval: NonNullable<ActMeta['approval']>): void {
  if (!RECORDING) return;
  recordActFixture(
    { agent: 'claude', package: pin.package, version: pin.version, where, typed: [], approval },
    { home: s.env.HOME!, cwd: s.cwd, keep: ['.claude/projects'] },
    server.ledger.slice(s.from),
  );
}

describe.skipIf(missing !== null)(
  `${pin.package}@${pin.version} TUI: answering from anywhere${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    const sessions: Session[] = [];
    beforeAll(async () => {
      server = await startLabServer();
      server.release();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-approvals-'));
    });
    afterAll(async () => {
      for (const s of sessions) await stopClaude(s);
      await server?.close();
      if (root) removeLabTree(root);
    });

    it('cctop approve allow runs the command while the dialog is up, and the model sees its output', async () => {
      const s = await startClaude('approve');
      sessions.push(s);
      await s.term.until('its own dialog', (l) => l.join('\n').includes('Do you want to proceed?'));
      const req = await waitingRequest(s);
      expect([req.kind, req.tool]).toEqual(['permission', 'Bash']);
      const r = await approve(s, req.session.slice(0, 8), 'allow');
      expect([r.code, r.out.trim()]).toEqual([0, `Answered: Bash of ${req.session}`]);
      const results = await resultsAt(s, 'approve', 1);
      expect(results.some((t) => t.startsWith('lab-touched'))).toBe(true);
      expect(existsSync(join(s.cwd, 'lab-approved.txt'))).toBe(true);
      await s.term.until('the dialog closed', (l) => !l.join('\n').includes('Do you want to proceed?'));
      const journal = readApprovalJournal(s.runtime);
      expect(journal.map((j) => [j.kind, j.kind === 'settled' ? j.settlement.kind : null])).toEqual([
        ['settled', 'delivered'],
      ]);
      // cctop explain shows who answered, how and from where.
      const explained = await runCli(['explain', req.session, '--json'], s.env);
      expect(explained.code, explained.err).toBe(0);
      const answers = (JSON.parse(explained.out) as { answers: { settlement: { answer: unknown } }[] })
        .answers;
      record(s, 'approve-allow', { verdict: 'allow', reason: null, outcome: 'lab-touched' });
      expect(answers.map((a) => a.settlement.answer)).toEqual([
        {
          verdict: { kind: 'allow' },
          by: { via: 'cli', who: userInfo().username, from: hostname() },
          at: expect.any(Number),
        },
      ]);
    });

    it('a deny carries its reason to the model, and the command does not run', async () => {
      const s = await startClaude('approve');
      sessions.push(s);
      const req = await waitingRequest(s);
      const reason = 'lab-reason: not on a Monday';
      const r = await approve(s, req.session, 'deny', '--reason', reason);
      expect(r.code, r.err).toBe(0);
      const results = await resultsAt(s, 'approve', 1);
      expect(results.some((t) => t.includes(reason))).toBe(true);
      expect(existsSync(join(s.cwd, 'lab-approved.txt'))).toBe(false);
      record(s, 'approve-deny', { verdict: 'deny', reason, outcome: reason });
      // A second answer to the same request is refused with what became of it.
      const again = await approve(s, req.session, 'allow');
      expect(again.code).toBe(4);
      const me = `${userInfo().username} via cli from ${hostname()}`;
      expect(again.err.trim()).toBe(`cctop: refused: no longer open: answered (deny: ${reason}) by ${me}`);
    });

    it('an answer typed in its own dialog first wins, and cctop’s late answer is refused', async () => {
      const s = await startClaude('approve');
      sessions.push(s);
      await s.term.until('its own dialog', (l) => l.join('\n').includes('Do you want to proceed?'));
      const req = await waitingRequest(s);
      s.term.keys('1');
      const results = await resultsAt(s, 'approve', 1);
      expect(results.some((t) => t.startsWith('lab-touched'))).toBe(true);
      // The holding hook notices the dialog's answer on its own schedule: wait until it has settled
      // the request, so the late answer meets a request that is no longer open, on any machine.
      await expect
        .poll(() => readApprovalJournal(s.runtime).map((j) => j.kind), { timeout: PATIENCE_MS })
        .toContain('settled');
      const late = await approve(s, req.session, 'deny', '--reason', 'too late');
      expect(late.code).toBe(4);
      expect(late.err.trim()).toBe(
        'cctop: refused: no longer open: the session moved on: it was answered in the agent’s own dialog',
      );
      const kinds = readApprovalJournal(s.runtime).map((j) => j.kind);
      expect(kinds).toEqual(['settled', 'refused']);
    });

    it.skipIf(!HAVE_CHROMIUM)(
      `the dashboard's Needs you list in Chromium denies with a reason, and the model reads it${HAVE_CHROMIUM ? '' : ` (skipped: ${NO_CHROMIUM_REASON})`}`,
      async () => {
        const s = await startClaude('approve');
        sessions.push(s);
        const req = await waitingRequest(s);
        const served = await startServe({ env: s.env }, { providers: ['claude'] });
        const browser = await launch();
        try {
          const page = await browser.page();
          await page.goto(`http://127.0.0.1:${served.port}/?t=${TOKEN}`);
          const card = page.locator('.held-requests .held');
          await card.waitFor({ timeout: PATIENCE_MS });
          expect(await card.locator('.held-input').textContent()).toBe(req.input);
          const reason = 'lab-reason: from the dashboard';
          await card.locator('input.held-words').fill(reason);
          await card.locator('button.deny').click();
          await expect
            .poll(() => card.locator('.held-status').textContent(), { timeout: PATIENCE_MS })
            .toBe('Denied.');
          const results = await resultsAt(s, 'approve', 1);
          expect(results.some((t) => t.includes(reason))).toBe(true);
          expect(existsSync(join(s.cwd, 'lab-approved.txt'))).toBe(false);
          expect(browser.problems).toEqual([]);
        } finally {
          await browser.close();
          await served.close();
        }
      },
      PATIENCE_MS * 3,
    );

    it(
      'a notification’s Allow link, as cctop serve sent it to ntfy, runs the command when its button POSTs it; used again, it is refused',
      async () => {
        // A session cctop has seen idle first: a session first seen waiting is not news (crossings.ts).
        const s = await startClaude('text');
        sessions.push(s);
        await s.term.until('the first answer', (l) => l.join('\n').includes('pong: the lab answers'));
        // The ntfy topic: a server of the test's own, keeping what it is sent.
        const sent: { actions: string }[] = [];
        const topic = createServer((req, res) => {
          sent.push({ actions: String(req.headers.actions ?? '') });
          req.resume();
          req.on('end', () => res.end('{}'));
        });
        await new Promise<void>((r) => topic.listen(0, '127.0.0.1', r));
        const port = (topic.address() as AddressInfo).port;
        mkdirSync(join(s.env.XDG_CONFIG_HOME!, 'cctop'), { recursive: true });
        writeFileSync(
          join(s.env.XDG_CONFIG_HOME!, 'cctop', 'config.toml'),
          `[notify]\nurl = "http://127.0.0.1:${port}/cctop-lab"\nformat = "ntfy"\n`,
        );
        // As `cctop serve` runs: the process table and the agents' own word settle the states.
        const served = await startServe(
          { env: s.env },
          { providers: ['claude'], notify: true, ...watchedStates(s.env) },
        );
        try {
          const base = `http://127.0.0.1:${served.port}`;
          const listed = async (): Promise<{ id: string; state: string }[]> => {
            const r = await fetch(`${base}/api/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } });
            return ((await r.json()) as { sessions: { id: string; state: string }[] }).sessions;
          };
          await expect
            .poll(async () => (await listed()).map((x) => x.state), { timeout: PATIENCE_MS })
            .toEqual(['idle']);
          const id = (await listed())[0]!.id;
          // The next prompt, typed into its pane by cctop, asks for a call that needs permission.
          const typed = await runCli(['send', id, promptFor('approve')], s.env);
          expect(typed.code, typed.err).toBe(0);
          const req = await waitingRequest(s);
          await expect
            .poll(
              async () =>
                sent.some((x) => x.actions !== '') ? 'sent' : JSON.stringify([sent, await listed()]),
              {
                timeout: PATIENCE_MS,
              },
            )
            .toBe('sent');
          const actions = sent.find((x) => x.actions !== '')!.actions;
          const allow =
            /^http, Allow, (\S+), method=POST, clear=true; http, Deny, \S+, method=POST, clear=true$/.exec(
              actions,
            )?.[1];
          expect(allow?.startsWith(`${base}/act/${req.id}/allow?via=ntfy&`)).toBe(true);
          const used = await fetch(allow!, { method: 'POST' });
          expect([used.status, await used.text()]).toEqual([200, expect.stringContaining('<p>Allowed.</p>')]);
          const results = await resultsAt(s, 'approve', 1);
          expect(results.some((t) => t.startsWith('lab-touched'))).toBe(true);
          expect(existsSync(join(s.cwd, 'lab-approved.txt'))).toBe(true);
          const again = await fetch(allow!, { method: 'POST' });
          expect(again.status).toBe(409);
          const by = readApprovalJournal(s.runtime).flatMap((j) =>
            j.kind === 'settled' && j.settlement.kind === 'delivered' ? [j.settlement.answer.by.via] : [],
          );
          expect(by).toEqual(['ntfy']);
        } finally {
          await served.close();
          await new Promise((r) => topic.close(r));
        }
      },
      PATIENCE_MS * 4,
    );

    it('the live table answers: a on the waiting row shows the call, y allows it, and the command runs', async () => {
      const s = await startClaude('approve');
      sessions.push(s);
      await waitingRequest(s);
      const table = new Terminal(`cctop-approvals-table-${process.pid}`, 'table', PATIENCE_MS);
      try {
        table.cctop(join(s.runtime, '..'), { ...s.env, TERM: 'xterm-256color', LANG: 'C.UTF-8' }, '');
        await table.until('the Claude Code session', (l) => l.join('\n').includes('lab script approve'));
        table.keys('a');
        await table.until('the question', (l) =>
          l.some((x) => x.includes('Allow Bash: touch lab-approved.txt && echo lab-touched?  y: allow')),
        );
        table.keys('y');
        await table.until('the answer taken', (l) => l.some((x) => x.includes('allowed: Bash')));
        const results = await resultsAt(s, 'approve', 1);
        expect(results.some((t) => t.startsWith('lab-touched'))).toBe(true);
        const by = readApprovalJournal(s.runtime).flatMap((j) =>
          j.kind === 'settled' && j.settlement.kind === 'delivered' ? [j.settlement.answer.by.via] : [],
        );
        expect(by).toEqual(['table']);
      } finally {
        table.stop();
      }
    });

    it('a question that wants words is answered with text, and the model reads the answer', async () => {
      const s = await startClaude('ask');
      sessions.push(s);
      const req = await waitingRequest(s);
      expect([req.kind, req.tool]).toEqual(['question', 'AskUserQuestion']);
      const bare = await approve(s, req.session, 'allow');
      expect(bare.code).toBe(4);
      // Words of the person's own, not one of the options offered.
      const words = 'lab-answer: green, please';
      const r = await approve(s, req.session, '--answer', words);
      expect(r.code, r.err).toBe(0);
      const results = await resultsAt(s, 'ask', 1);
      expect(results.some((t) => t.includes(words))).toBe(true);
    });
  },
);
