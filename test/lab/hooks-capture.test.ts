import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClaudeRegistry } from '../../src/providers/claude/registry.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import {
  agentBin,
  LAB_RUN_TIMEOUT_MS,
  labEnv,
  makeHome,
  PINS,
  runAgent,
} from '../../src/test-support/lab/agents.js';
import { captureHooks, streamClaude, writeClaudeHookSettings } from '../../src/test-support/lab/hooks.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.claude;
const bin = agentBin('claude');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

/** How often a condition on the CLI's files is looked at while waiting for it. */
const POLL_MS = 25;

/** Wait until `ready()` holds, looking every `POLL_MS`; fails past the lab's run timeout. */
async function until<T>(what: string, ready: () => T | null | undefined | false): Promise<T> {
  const deadline = Date.now() + LAB_RUN_TIMEOUT_MS;
  for (;;) {
    const v = ready();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

describe.skipIf(!bin)(
  `${pin.package}@${pin.version}: hooks and registry${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-hooks-'));
    });
    afterAll(async () => {
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('claude -p is busy in its registry while the model holds its answer, and gone once it exits', async () => {
      const where = makeHome(join(root, 'held'));
      const capture = captureHooks(join(root, 'held-capture'));
      writeClaudeHookSettings(where.home, capture.command);
      const env = { HOME: where.home };
      server.hold();
      const running = runAgent(claudeRecipe, where, server.url, {
        prompt: promptFor('hold'),
        resume: null,
        permission: 'allow',
      });
      try {
        await server.whenHeld();
        const during = readClaudeRegistry(env);
        expect(during.bad).toBe(0);
        expect(during.entries.map((e) => [e.kind, e.status, e.alive, e.cwd])).toEqual([
          ['print', 'busy', true, where.cwd],
        ]);
        expect(capture.read().map((c) => c.event)).toEqual(['SessionStart', 'UserPromptSubmit']);
      } finally {
        server.release();
      }
      const r = await running;
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(readClaudeRegistry(env).entries).toEqual([]);
      const events = capture.read().map((c) => c.event);
      expect(events.slice(-2)).toEqual(['Stop', 'SessionEnd']);
      const session = claudeRecipe.sessionId(r.stdout);
      expect(new Set(capture.read().map((c) => (c.payload as { session_id?: string }).session_id))).toEqual(
        new Set([session]),
      );
    });

    it('an approval asked over stream-json reads as waiting until it is answered, then idle', async () => {
      const where = makeHome(join(root, 'approve'));
      const capture = captureHooks(join(root, 'approve-capture'));
      writeClaudeHookSettings(where.home, capture.command);
      const env = { HOME: where.home };
      // Its shell output and messaging socket go here, not to /tmp/claude-<uid> and /tmp/cc-socks.
      const tmp = join(root, 'approve-tmp');
      mkdirSync(tmp, { mode: 0o700 });
      server.release();
      const claude = streamClaude(bin!, claudeRecipe.model, where.cwd, {
        ...labEnv(where.home, server.url),
        ...claudeRecipe.env(where.home, server.url),
        CLAUDE_CODE_TMPDIR: tmp,
      });
      let code: number | null;
      try {
        claude.prompt(promptFor('approve'));
        const ask = await until('the approval request', () =>
          claude.records.find((r) => r.type === 'control_request'),
        );
        const waiting = await until('the PermissionRequest hook', () =>
          capture.read().some((c) => c.event === 'PermissionRequest') ? readClaudeRegistry(env) : null,
        );
        expect(waiting.entries.map((e) => [e.status, e.detail])).toEqual([['waiting', 'permission prompt']]);
        claude.allow(ask);
        await until('the result', () => claude.records.some((r) => r.type === 'result'));
        // Stdin still open: the session sits at its prompt between turns.
        const idle = await until('the idle status', () => {
          const r = readClaudeRegistry(env);
          return r.entries[0]?.status === 'idle' ? r : null;
        });
        expect(idle.entries.map((e) => [e.kind, e.status, e.alive])).toEqual([['print', 'idle', true]]);
      } finally {
        code = await claude.end();
      }
      expect(code).toBe(0);
      const events = capture.read().map((c) => c.event);
      const order = [
        'UserPromptSubmit',
        'PreToolUse',
        'PermissionRequest',
        'PostToolUse',
        'PostToolBatch',
        'Stop',
      ];
      expect(events.filter((e) => order.includes(e))).toEqual(order);
      expect(events.at(-1)).toBe('SessionEnd');
    });
  },
);
