/**
 * Exact live state from the real Claude Code CLI's hooks, end to end: `cctop hooks install` puts
 * cctop's hooks into the lab home's settings, Claude Code runs a turn that asks for an approval (over
 * stream-json, as cctop's drive asks), and the live engine, fed by the hooks through the runtime
 * directory's socket, shows working → waiting → working → idle in order, each seen while the
 * stand-in server holds the next response or the approval is pending. Meanwhile `cctop watch`
 * posts to a webhook on 127.0.0.1: once for the crossing into waiting, not again while it holds.
 *
 * Skips, naming the install command, where the CLI is not installed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchedStates } from '../../src/live/agent-state.js';
import { LiveSessions } from '../../src/live/engine.js';
import type { SessionDoc } from '../../src/model/document.js';
import { REPO } from '../../src/test-support/corpus.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { agentBin, LAB_RUN_TIMEOUT_MS, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { streamClaude } from '../../src/test-support/lab/hooks.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const CLI = join(REPO, 'dist', 'cli.js');
const pin = PINS.claude;
const bin = agentBin('claude');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

/** How often the test looks at the live picture and the webhook's mailbox while it waits. */
const POLL_MS = 25;

async function until<T>(what: string, ready: () => T | null | undefined | false): Promise<T> {
  const deadline = Date.now() + LAB_RUN_TIMEOUT_MS;
  for (;;) {
    const v = ready();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

interface Posted {
  body: Record<string, unknown>;
}

describe.skipIf(!bin)(
  `${pin.package}@${pin.version}: state from its hooks${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    let hookServer: Server;
    const posted: Posted[] = [];
    let webhook = '';

    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-states-'));
      hookServer = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          try {
            posted.push({
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            });
          } catch {
            posted.push({ body: {} });
          }
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
      webhook = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/notify`;
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      await new Promise((r) => hookServer?.close(r));
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('goes working, waiting on the approval, working, idle, told by the hooks, and the webhook hears the wait once', async () => {
      const where = makeHome(join(root, 'stages'));
      const runtime = join(root, 'runtime');
      mkdirSync(runtime, { mode: 0o700 });
      const cctopEnv = {
        ...labEnv(where.home, server.url),
        CCTOP_RUNTIME_DIR: runtime,
        CCTOP_CACHE_DIR: join(root, 'cache'),
      };

      // The real installer, as a user runs it.
      const install = spawnSync(process.execPath, [CLI, 'hooks', 'install', '--agent', 'claude'], {
        env: cctopEnv,
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
      const settings = JSON.parse(readFileSync(join(where.home, '.claude', 'settings.json'), 'utf8'));
      for (const event of ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop'])
        expect(JSON.stringify(settings.hooks[event]), event).toContain('hook claude');

      // The watcher that sends notifications, as a user runs it.
      const watch: ChildProcess = spawn(
        process.execPath,
        [CLI, 'watch', '--notify', webhook, '--no-desktop'],
        {
          env: cctopEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let watchErr = '';
      watch.stderr?.on('data', (c: Buffer) => {
        watchErr += c.toString('utf8');
      });

      const { agents, annotate } = watchedStates(cctopEnv);
      const live = new LiveSessions({
        env: cctopEnv,
        plan: 'retail',
        providers: ['claude'],
        delayMs: 500,
        annotate,
        agents,
        useIndex: false,
      });
      const seen: { state: string; source: string; detail: string | null }[] = [];
      let session: SessionDoc | null = null;
      live.on('update', (doc) => {
        const s = doc.sessions.find((x) => x.provider === 'claude' && !x.deleted);
        if (!s) return;
        session = s;
        const last = seen.at(-1);
        if (last?.state !== s.state || last.source !== s.stateSource)
          seen.push({ state: s.state, source: s.stateSource, detail: s.stateDetail });
      });
      live.start();
      const stateNow = () => (session as SessionDoc | null)?.state ?? null;

      const claude = streamClaude(bin!, claudeRecipe.model, where.cwd, {
        ...cctopEnv,
        ...claudeRecipe.env(where.home, server.url),
      });
      let code: number | null;
      try {
        server.hold();
        claude.prompt(promptFor('stages'));

        // 1. The model "thinks": its first response is held.
        await server.whenHeld();
        await until(
          'working from the hooks',
          () => stateNow() === 'working' && seen.at(-1)?.source === 'hook',
        );

        // 2. The call needs approval: the driver does not answer yet.
        server.release();
        server.hold();
        const ask = await until('the approval request', () =>
          claude.records.find((r) => r.type === 'control_request'),
        );
        await until('waiting from the hooks', () => stateNow() === 'waiting');
        expect(seen.at(-1)).toMatchObject({ state: 'waiting', source: 'hook' });
        expect(seen.at(-1)?.detail).toBe('Bash: touch lab-stages.txt && echo lab-staged');
        await until('the webhook', () => posted.length > 0);

        // 3. Approved: the command runs and the model "thinks" again, held.
        claude.allow(ask);
        await server.whenHeld();
        await until('working again', () => stateNow() === 'working');

        // 4. The answer: the turn ends; the session sits at its prompt (stdin open).
        server.release();
        await until('the result', () => claude.records.some((r) => r.type === 'result'));
        await until('idle from the hooks', () => stateNow() === 'idle');
        expect(seen.at(-1)).toMatchObject({ state: 'idle', source: 'hook' });
      } finally {
        server.release();
        live.stop();
        code = await claude.end();
      }
      expect(code).toBe(0);

      const states = seen.filter((x) => x.source === 'hook').map((x) => x.state);
      const order = states.filter((s, i) => s !== states[i - 1]);
      expect(order).toEqual(['working', 'waiting', 'working', 'idle']);

      // Give the watcher a moment past the end to post anything it would post twice.
      await new Promise((r) => setTimeout(r, 1500));
      watch.kill('SIGTERM');
      await new Promise((r) => watch.once('close', r));
      const waits = posted.filter((p) => p.body.kind === 'waiting');
      expect(waits, watchErr).toHaveLength(1);
      expect(waits[0]!.body).toMatchObject({ kind: 'waiting', harness: 'claude' });
      expect(waits[0]!.body.asked).toBe('Bash: touch lab-stages.txt && echo lab-staged');
    });
  },
);
