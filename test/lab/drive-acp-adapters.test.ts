/**
 * `cctop exec --acp` with the two ACP adapters Zed publishes, each wrapping a CLI the lab already
 * runs, against the stand-in model server: `claude-code-acp` (@zed-industries/claude-code-acp, which
 * runs Claude Code through the Claude Agent SDK it bundles) and `codex-acp` (@zed-industries/codex-acp,
 * a native binary). Both are pinned in lab/agents.json. Each is checked as a user runs it: a prompt and
 * its answer, a call approved from a running cctop and one denied there (neither adapter tells the
 * model of a denial: it ends the turn), the usage it reports (settled from the wrapped CLI's own
 * session file), and errors that name the adapter, not "acp".
 *
 * What each needs to run offline, found in the lab:
 * - claude-code-acp 0.16.2 is pointed at the server as Claude Code is (`ANTHROPIC_BASE_URL`, a made-up
 *   key). As root it refuses its bypass mode without `IS_SANDBOX=1`, and then fails every
 *   `session/new` ("Query closed before response received"), so the lab sets it, as for `claude`.
 *   It reports no usage over ACP at all; the outcome's comes from Claude Code's transcript.
 * - codex-acp 0.16.0 reads `$HOME/.codex/config.toml` as Codex does: a model provider of the lab's,
 *   its key in `LAB_API_KEY` (its `env_key`, which drive passes as it does for `codex`). It asks for
 *   approval only under `approval_policy = "untrusted"`; its sandbox needs bubblewrap, which the lab
 *   lacks ("bubblewrap is unavailable"), so the approval run's config also sets
 *   `sandbox_mode = "danger-full-access"`. Over ACP it reports the context window (`usage_update`),
 *   not tokens; those come from Codex's rollout file. It starts every answer with a warning that the
 *   lab's model has no metadata, as a message chunk.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/drive/events.js';
import { AgentStates } from '../../src/live/agent-state.js';
import { peerSockets } from '../../src/runtime/peers.js';
import { agentBin, type LabAgentId, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { EXIT, execCommand } from '../../src/views/cli/exec.js';
import type { Io } from '../../src/views/cli/main.js';
import { promptFor } from './conformance.js';

interface Adapter {
  id: Extract<LabAgentId, 'claude-acp' | 'codex-acp'>;
  /** The executable's name, as a user types it after `--acp`. */
  program: string;
  /** The CLI it wraps, whose session files the run writes. */
  wraps: 'claude' | 'codex';
  /** Write what it reads into a fresh home; `approving`: set up so it asks before running a command. */
  setup(home: string, serverUrl: string, approving: boolean): void;
  env(serverUrl: string): Record<string, string>;
  /**
   * How a turn whose call was denied ends. Neither adapter tells the model: a rejection stops the
   * turn there (the model is not asked again), each saying so in its own way.
   */
  denied: Outcome['stop'];
  /** How to make it die before it answers, and what `cctop exec` then says. */
  crash: { command: string; env: Record<string, string>; code: number; says: RegExp };
}

const codexConfig = (serverUrl: string, approving: boolean) =>
  [
    'model = "gpt-5-codex"',
    'model_provider = "lab"',
    ...(approving ? ['approval_policy = "untrusted"', 'sandbox_mode = "danger-full-access"'] : []),
    '',
    '[model_providers.lab]',
    'name = "lab"',
    `base_url = "${serverUrl}/v1"`,
    'env_key = "LAB_API_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n');

const ADAPTERS: Adapter[] = [
  {
    id: 'claude-acp',
    program: 'claude-code-acp',
    wraps: 'claude',
    setup() {},
    env: (serverUrl) => ({ ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: 'lab-key', IS_SANDBOX: '1' }),
    denied: { kind: 'completed' },
    // The Claude Code it wraps dies at once: the adapter refuses the session it cannot open.
    crash: {
      command: 'claude-code-acp',
      env: { CLAUDE_CODE_EXECUTABLE: '/bin/false' },
      code: EXIT.failed,
      // Which comes first is a race inside the adapter: its Claude Code exiting, or its refusal of the
      // session it could not start. Either way the error names the adapter.
      says: /^cctop: claude-code-acp (failed \(exit code 1\) without a result|broke off its protocol: claude-code-acp refused session\/new)/m,
    },
  },
  {
    id: 'codex-acp',
    program: 'codex-acp',
    wraps: 'codex',
    setup(home, serverUrl, approving) {
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(join(home, '.codex', 'config.toml'), codexConfig(serverUrl, approving));
    },
    env: () => ({ LAB_API_KEY: 'lab-key' }),
    denied: { kind: 'other', reason: 'cancelled' },
    crash: {
      command: 'codex-acp --no-such-flag',
      env: {},
      code: EXIT.failed,
      says: /^cctop: codex-acp failed \(exit code 2\) without a result/m,
    },
  },
];

interface Exec {
  code: number;
  out: string[];
  err: string;
  /** The outcome `--json` printed last; null when it printed none. */
  outcome: Outcome | null;
}

for (const adapter of ADAPTERS) {
  const pin = PINS[adapter.id];
  const bin = agentBin(adapter.id);
  describe.skipIf(!bin)(
    `cctop exec --acp '${adapter.program}' (${pin.package}@${pin.version})${unless(bin !== null, WHY.agent(pin.package))}`,
    () => {
      let server: LabServer;
      let root: string;
      beforeAll(async () => {
        server = await startLabServer();
        root = mkdtempSync(join(tmpdir(), `cctop-lab-${adapter.id}-`));
      });
      afterAll(async () => {
        server?.release();
        await server?.close();
        if (root) rmSync(root, { recursive: true, force: true });
      });

      let n = 0;
      /** A fresh home for one run, and the environment `cctop exec` runs in, the adapter on its PATH. */
      function place(approving = false) {
        const where = makeHome(join(root, `${n++}`));
        adapter.setup(where.home, server.url, approving);
        const env: Record<string, string> = {
          ...labEnv(where.home, server.url),
          ...adapter.env(server.url),
          CCTOP_RUNTIME_DIR: join(where.home, '.cctop-run'),
          XDG_STATE_HOME: join(where.home, '.local', 'state'),
        };
        env.PATH = [dirname(bin!), env.PATH].join(':');
        return { ...where, env };
      }

      async function exec(args: string[], env: Record<string, string>, cwd: string): Promise<Exec> {
        const out: string[] = [];
        const err: string[] = [];
        const io: Io = {
          out: (s) => out.push(Buffer.from(s).toString()),
          err: (s) => err.push(s),
          isTty: false,
          columns: 100,
          env,
        };
        const code = await execCommand(['-C', cwd, '--timeout', '90s', ...args], io);
        let outcome: Outcome | null = null;
        const last = out.at(-1);
        if (last !== undefined && args.includes('--json')) {
          const record = JSON.parse(last) as { kind: string; outcome?: Outcome };
          outcome = record.outcome ?? null;
        }
        return { code, out, err: err.join('\n'), outcome };
      }

      it('a prompt is answered, and the outcome names the adapter and its usage as the wrapped CLI wrote it', async () => {
        const p = place();
        const from = server.ledger.length;
        const r = await exec(
          ['--acp', adapter.program, '--permission', 'default', '--json', promptFor('text')],
          p.env,
          p.cwd,
        );
        expect(r.code, r.err).toBe(EXIT.ok);
        const entries = entriesOf(server.ledger.slice(from), ['text']);
        const o = r.outcome!;
        expect(o.text.endsWith(entries.at(-1)!.answer!)).toBe(true);
        expect(o.stop).toEqual({ kind: 'completed' });
        expect(o.acp).toMatchObject({
          name: adapter.program,
          agentVersion: pin.version,
          protocolVersion: 1,
        });
        // Neither adapter carries tokens over ACP: the wrapped CLI's session file settles them.
        expect(o.truth.file).not.toBeNull();
        expect(o.truth.usageFromFile).toEqual(expect.arrayContaining(['input', 'output']));
        expect(o.usage.input).toBeGreaterThan(0);
        expect(o.usage.output).toBeGreaterThan(0);
      });

      it('a call approved from a running cctop runs; one denied there does not, and the turn ends', async () => {
        for (const behavior of ['allow', 'deny'] as const) {
          const p = place(true);
          const agents = new AgentStates({ CCTOP_RUNTIME_DIR: p.env.CCTOP_RUNTIME_DIR! });
          agents.start();
          try {
            await expect.poll(() => peerSockets(p.env.CCTOP_RUNTIME_DIR!).length).toBe(1);
            const from = server.ledger.length;
            const running = exec(
              [
                '--acp',
                adapter.program,
                '--permission',
                'default',
                '--approvals',
                'remote',
                '--json',
                promptFor('approve'),
              ],
              p.env,
              p.cwd,
            );
            const waiting = () => agents.driven.list().find((run) => run.pending.length > 0);
            await expect.poll(waiting, { timeout: 60_000, interval: 200 }).toBeTruthy();
            const run = waiting()!;
            expect(run).toMatchObject({ agent: adapter.program, harness: adapter.wraps, remote: true });
            expect(agents.driven.answer(run.id, run.pending[0]!.id, behavior, 'the lab')).toEqual({
              kind: 'sent',
            });
            const r = await running;
            expect(r.code, r.err).toBe(EXIT.ok);
            const results = server.ledger
              .slice(from)
              .flatMap((e) => e.results)
              .join('\n');
            if (behavior === 'allow') {
              expect(existsSync(join(p.cwd, 'lab-approved.txt'))).toBe(true);
              expect(results).toContain('lab-touched');
            } else {
              expect(existsSync(join(p.cwd, 'lab-approved.txt'))).toBe(false);
              expect(r.outcome?.stop).toEqual(adapter.denied);
              expect(server.ledger.slice(from).map((e) => e.calls.length)).toEqual([1]);
            }
          } finally {
            agents.stop();
          }
        }
      }, 180_000);

      it('an adapter that is not installed is named in the error, not "acp"', async () => {
        const p = place();
        const env = { ...p.env, PATH: labEnv(p.home, server.url).PATH! };
        const r = await exec(['--acp', adapter.program, '--permission', 'default', 'hi'], env, p.cwd);
        expect(r.code).toBe(EXIT.notInstalled);
        expect(r.err).toContain(`${adapter.program} is not installed (no \`${adapter.program}\` on PATH)`);
      });

      it('an adapter that dies before answering is named in the error', async () => {
        const p = place();
        const r = await exec(
          ['--acp', adapter.crash.command, '--permission', 'default', 'hi'],
          { ...p.env, ...adapter.crash.env },
          p.cwd,
        );
        expect(r.code, r.err).toBe(adapter.crash.code);
        expect(r.err).toMatch(adapter.crash.says);
      });
    },
  );
}
