/**
 * `cctop exec --approvals`: who answers a run's questions from the shell. A fake Claude asks over
 * its control channel; `remote` leaves the answer to a running cctop (here, the test process
 * following runs through a runtime directory of its own), and `ask` needs a terminal to ask on.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeBin, type Step } from '../../src/drive/test-support/fake-agent.js';
import { AgentStates } from '../../src/live/agent-state.js';
import { peerSockets } from '../../src/runtime/peers.js';
import { REPO } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { EXIT, execCommand } from '../../src/views/cli/exec.js';
import type { Io } from '../../src/views/cli/main.js';

let bin: FakeBin;
let runtime: string;
beforeEach(() => {
  bin = new FakeBin();
  runtime = mkdtempSync(join(tmpdir(), 'cctop-exec-approvals-'));
});
afterEach(() => {
  bin.cleanup();
  rmSync(runtime, { recursive: true, force: true });
});

const INIT = { type: 'system', subtype: 'init', session_id: 'sess-r', model: 'claude-haiku-4-5' };
const ASK = {
  type: 'control_request',
  request_id: 'req-9',
  request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'rm -rf build' } },
};
const RESULT = { type: 'result', is_error: false, result: 'left it alone', session_id: 'sess-r' };
const asking = (answer: unknown): Step[] => [
  { expectLine: { type: 'control_request', request: { subtype: 'initialize' } } },
  { out: { type: 'control_response', response: { subtype: 'success', request_id: 'cctop-init' } } },
  { expectLine: { type: 'user' } },
  { out: INIT },
  { out: ASK },
  { expectLine: { type: 'control_response', response: { request_id: 'req-9', response: answer } } },
  { out: RESULT },
  { readStdin: true },
];

async function exec(args: string[]) {
  const err: string[] = [];
  const io: Io = {
    out: () => {},
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: bin.env({ XDG_STATE_HOME: join(bin.dir, 'state'), CCTOP_RUNTIME_DIR: runtime }),
  };
  const code = await execCommand(['-C', bin.dir, ...args], io);
  return { code, err: err.join('\n') };
}

describe('cctop exec --approvals', () => {
  it('remote: the question shows in a running cctop as driven by cctop exec, and its answer is the one taken', async () => {
    const agents = new AgentStates({ CCTOP_RUNTIME_DIR: runtime });
    agents.start();
    try {
      await expect.poll(() => peerSockets(runtime).length).toBe(1);
      bin.add('claude', asking({ behavior: 'deny', message: 'Denied by the test.' }), {
        expectArgs: ['--permission-prompt-tool', 'stdio', '--permission-mode', 'default'],
      });
      const running = exec(['claude', '--approvals', 'remote', 'clean up']);
      const waiting = () => agents.driven.list().find((r) => r.pending.length > 0);
      await expect.poll(waiting, { timeout: 10_000 }).toBeTruthy();
      const run = waiting()!;
      expect(run).toMatchObject({ program: 'cctop exec', agent: 'claude', remote: true, session: 'sess-r' });
      expect(agents.driven.answer(run.id, 'req-9', 'deny', 'the test')).toEqual({ kind: 'sent' });
      const r = await running;
      expect(r.code).toBe(EXIT.ok);
      expect(r.err).toContain('Bash waits for an answer: {"command":"rm -rf build"}');
      expect(r.err).toContain('answer it in a running cctop');
    } finally {
      agents.stop();
    }
  });

  it('remote, with no cctop running: says so, and where to start one', async () => {
    bin.add('claude', [...asking({ behavior: 'deny' }).slice(0, 5), { hang: true }]);
    const r = await exec(['claude', '--approvals', 'remote', '--timeout', '2s', 'clean up']);
    expect(r.code).toBe(EXIT.timeout);
    expect(r.err).toContain('no cctop is running to see it');
  });

  it('refuses a mode it does not know', async () => {
    const r = await exec(['claude', '--approvals', 'maybe', 'x']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('--approvals maybe: one of ask, remote');
  });

  const EXEC = join(REPO, 'dist', 'views', 'cli', 'exec.js');
  it.skipIf(!existsSync(EXEC))(
    `ask: with no terminal to ask on, refuses before starting the agent${unless(existsSync(EXEC), WHY.built)}`,
    async () => {
      bin.add('claude', [{ out: INIT }, { hang: true }]);
      const script = `import { execCommand } from ${JSON.stringify(`file://${EXEC}`)};
process.exitCode = await execCommand(process.argv.slice(1), {
  out: (s) => process.stdout.write(s + '\\n'), err: (s) => process.stderr.write(s + '\\n'),
  isTty: false, columns: 80, env: process.env });`;
      // A session of its own: no controlling terminal, as under cron or CI.
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', script, '-C', bin.dir, 'claude', '--approvals', 'ask', 'hi'],
        {
          env: bin.env(),
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        },
      );
      let err = '';
      child.stderr?.on('data', (d) => {
        err += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(EXIT.usage);
      expect(err).toContain('--approvals ask needs a terminal to ask on');
      expect(existsSync(join(bin.dir, 'claude.record.json')), 'the agent never started').toBe(false);
    },
  );
});
