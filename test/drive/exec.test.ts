/**
 * `cctop exec` against fake agents on PATH: what it prints and the exit code a script branches on.
 * Most tests call the command in-process; reading the prompt from stdin and Ctrl-C need a real
 * process, and use the built dist/ (which `npm test` builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/drive/sessions.js';
import { eventually, exists, FakeBin, type Step } from '../../src/drive/test-support/fake-agent.js';
import { REPO } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { EXIT, execCommand } from '../../src/views/cli/exec.js';
import type { Io } from '../../src/views/cli/main.js';

let bin: FakeBin;
beforeEach(() => {
  bin = new FakeBin();
});
/** Programs a test started: a test that fails half-way must not leave them (and their agents) running. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  bin.cleanup();
});

async function exec(args: string[], extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (s) => out.push(Buffer.from(s).toString()),
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: bin.env({ XDG_STATE_HOME: join(bin.dir, 'state'), ...extraEnv }),
  };
  const code = await execCommand(['-C', bin.dir, ...args], io);
  return { code, out: out.join('\n'), err: err.join('\n'), lines: out };
}

const INIT = { type: 'system', subtype: 'init', session_id: 'sess-a', model: 'claude-haiku-4-5' };
const CALL = {
  type: 'assistant',
  session_id: 'sess-a',
  message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
};
const DONE = {
  type: 'user',
  session_id: 'sess-a',
  message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt\nb.txt' }] },
};
const TEXT = {
  type: 'assistant',
  session_id: 'sess-a',
  message: { id: 'm2', content: [{ type: 'text', text: 'pong' }] },
};
const RESULT = {
  type: 'result',
  is_error: false,
  result: 'pong',
  session_id: 'sess-a',
  total_cost_usd: 0.017,
  usage: { input_tokens: 10, output_tokens: 45 },
};
const claudeTurn: Step[] = [{ out: INIT }, { out: CALL }, { out: DONE }, { out: TEXT }, { out: RESULT }];
const codexTurn: Step[] = [
  { out: { type: 'thread.started', thread_id: 'th-1' } },
  { out: { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'codex says pong' } } },
  { out: { type: 'turn.completed', usage: { input_tokens: 12, cached_input_tokens: 9, output_tokens: 3 } } },
];

describe('cctop exec <agent>', () => {
  it('prints a readable transcript and a closing summary', async () => {
    bin.add('claude', claudeTurn, { expectArgs: ['-p', 'say pong', '--permission-mode', 'dontAsk'] });
    const r = await exec(['claude', 'say pong']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.lines).toEqual(['→ Bash {"command":"ls"}', '← a.txt b.txt', 'pong']);
    expect(r.err).toContain('claude (claude-haiku-4-5) · completed · session sess-a');
    expect(r.err).toContain('in 10 · out 45');
    expect(r.err).toContain('$0.02');
  });

  it('joins several words into the prompt and passes the options on', async () => {
    bin.add('codex', codexTurn, {
      expectArgs: ['exec', '--sandbox', 'workspace-write', '--model', 'gpt-5', '--json', 'what is up'],
    });
    const r = await exec(['codex', '--permission', 'edit', '-m', 'gpt-5', 'what', 'is', 'up']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe('codex says pong');
  });

  it('--json prints every event and then the outcome, one JSON object a line', async () => {
    bin.add('claude', claudeTurn);
    const r = await exec(['claude', '--json', 'say pong']);
    expect(r.code).toBe(EXIT.ok);
    const lines = r.lines.map((l) => JSON.parse(l) as { kind: string; outcome?: { text: string } });
    expect(lines.map((l) => l.kind)).toEqual(['started', 'tool_call', 'tool_result', 'text', 'outcome']);
    expect(lines.at(-1)?.outcome?.text).toBe('pong');
  });

  it('--json reports a failure as a final error line', async () => {
    const r = await exec(['copilot', '--json', 'hi'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.notInstalled);
    const last = JSON.parse(r.lines.at(-1)!) as {
      kind: string;
      error: { kind: string; hint: string; message: string };
    };
    expect(last.kind).toBe('error');
    expect(last.error.kind).toBe('not_installed');
    expect(last.error.message).toMatch(/npm install -g @github\/copilot/);
  });
});

describe('exit codes', () => {
  it('1 when the agent reports the turn failed, with its reason', async () => {
    bin.add('codex', [
      { out: { type: 'thread.started', thread_id: 't' } },
      { out: { type: 'turn.failed', error: { message: 'stream disconnected before completion' } } },
      { exit: 0 },
    ]);
    const r = await exec(['codex', 'hi']);
    expect(r.code).toBe(EXIT.turnFailed);
    expect(r.err).toContain('the turn failed');
    expect(r.err).toContain('stream disconnected before completion');
  });

  it('2 for bad arguments and options the agent cannot honour', async () => {
    expect((await exec(['nonesuch', 'hi'])).code).toBe(EXIT.usage);
    expect((await exec(['claude'])).code).toBe(EXIT.usage);
    expect((await exec(['claude', '--permission', 'root', 'hi'])).code).toBe(EXIT.usage);
    expect((await exec(['claude', '--timeout', 'soon', 'hi'])).code).toBe(EXIT.usage);
    expect((await exec(['claude', '--no-such-flag', 'hi'])).code).toBe(EXIT.usage);
    bin.add('copilot', []);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(bin.dir, 'schema.json'), '{"type":"object"}');
    const r = await exec(['copilot', '--schema', join(bin.dir, 'schema.json'), 'hi']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('copilot does not support an output schema');
  });

  it("a mistyped flag gets our sentence with the nearest flag, not the option parser's", async () => {
    const r = await exec(['claude', '--permision', 'edit', 'hi']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('unknown option --permision, did you mean --permission? (try cctop exec --help)');
    const v = await exec(['claude', 'hi', '--model']);
    expect(v.code).toBe(EXIT.usage);
    expect(v.err).toContain('--model needs a value (try cctop exec --help)');
  });

  it('3 when the agent dies without a result', async () => {
    bin.add('claude', [{ out: INIT }, { err: 'panic: out of cheese\n' }, { exit: 2 }]);
    const r = await exec(['claude', 'hi']);
    expect(r.code).toBe(EXIT.failed);
    expect(r.err).toContain('panic: out of cheese');
  });

  it('4 when the agent is not installed, saying how to install it', async () => {
    const r = await exec(['codex', 'hi'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.notInstalled);
    expect(r.err).toContain('npm install -g @openai/codex');
  });

  it('5 when it is not logged in', async () => {
    bin.add('codex', [{ err: 'Error: Not logged in. Run `codex login`.\n' }, { exit: 1 }]);
    expect((await exec(['codex', 'hi'])).code).toBe(EXIT.notAuthenticated);
  });

  it('6 when it is rate limited', async () => {
    bin.add('claude', [
      {
        out: {
          type: 'rate_limit_event',
          session_id: 's',
          rate_limit_info: { status: 'rejected', rateLimitType: 'five_hour' },
        },
      },
      { exit: 1 },
    ]);
    expect((await exec(['claude', 'hi'])).code).toBe(EXIT.rateLimited);
  });

  it('7 when it times out', async () => {
    bin.add('claude', [{ out: INIT }, { hang: true }]);
    const r = await exec(['claude', '--timeout', '300ms', 'hi']);
    expect(r.code).toBe(EXIT.timeout);
    expect(exists(bin.record('claude').pid)).toBe(false);
  });

  it('9 when the named session is in use', async () => {
    bin.add('claude', claudeTurn);
    const store = new SessionStore(join(bin.dir, 'state', 'cctop', 'sessions'));
    const lease = store.acquire(bin.dir, 'review');
    expect((await exec(['claude', '--session', 'review', 'hi'])).code).toBe(EXIT.session);
    lease.release();
    expect((await exec(['claude', '--session', 'review', 'hi'])).code).toBe(EXIT.ok);
    expect(store.get(bin.dir, 'review')?.session).toBe('sess-a');
  });
});

describe('cctop exec --all', () => {
  it('runs every installed agent in parallel and prints one result each', async () => {
    bin.add('claude', claudeTurn);
    bin.add('codex', codexTurn);
    // copilot is not installed: it is not run, and not an error.
    const r = await exec(['--all', 'say pong'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('── claude (claude-haiku-4-5) · completed');
    expect(r.out).toContain('── codex · completed');
    expect(r.out).toContain('codex says pong');
    expect(r.out).not.toContain('copilot');
    // Then one table: how each ended, how long it took, its tokens, what it reported it cost, and
    // the credential it ran under (unknown here: the fakes run with no key, login or config).
    expect(r.out).toMatch(/^agent\s+outcome\s+time\s+tokens\s+cost\s+credential$/m);
    expect(r.out).toMatch(/^claude\s+completed\s+\d+\.\d s\s+\S+\s+\S+\s+─$/m);
    expect(r.out).toMatch(/^codex\s+completed\s+\d+\.\d s\s+\S+\s+─\s+─$/m);
    expect(bin.record('claude').argv).toContain('dontAsk');
    expect(bin.record('codex').argv).toContain('read-only');
  });

  it('--json prints one line per agent; the exit code is the first agent that did not succeed', async () => {
    bin.add('claude', claudeTurn);
    bin.add('codex', [{ err: 'boom\n' }, { exit: 9 }]);
    const r = await exec(['--all', '--json', 'say pong'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.failed);
    const lines = r.lines.map(
      (l) => JSON.parse(l) as { agent: string; outcome?: unknown; error?: { kind: string } },
    );
    expect(lines.map((l) => l.agent)).toEqual(['claude', 'codex']);
    expect(lines[0]?.outcome).toBeDefined();
    expect(lines[1]?.error?.kind).toBe('failed');
  });

  it('ends with a table that names the agent that failed, and how', async () => {
    bin.add('claude', claudeTurn);
    bin.add('codex', [{ err: 'boom\n' }, { exit: 9 }]);
    const r = await exec(['--all', 'say pong'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.failed);
    expect(r.out).toMatch(/^claude\s+completed\s/m);
    expect(r.out).toMatch(/^codex\s+failed\s+\d+\.\d s\s+─\s+─\s+─$/m);
  });

  it('says so when no agent is installed', async () => {
    const r = await exec(['--all', 'hi'], { PATH: bin.dir });
    expect(r.code).toBe(EXIT.notInstalled);
    expect(r.err).toContain('no agent is installed');
  });
});

const EXEC = join(REPO, 'dist', 'views', 'cli', 'exec.js');
const BUILT = existsSync(EXEC);
if (!BUILT) console.warn(`${EXEC} is not built (npm run build); the process-level exec tests are skipped`);

/** `cctop exec` as its own process, the way main.ts runs it. */
function execProcess(args: string[]): {
  child: ChildProcess;
  done: Promise<number | null>;
  out: () => string;
} {
  const script = `import { execCommand } from ${JSON.stringify(pathToFileURL(EXEC).href)};
process.exitCode = await execCommand(process.argv.slice(1), {
  out: (s) => process.stdout.write(s + '\\n'), err: (s) => process.stderr.write(s + '\\n'),
  isTty: false, columns: 80, env: process.env });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, '-C', bin.dir, ...args], {
    env: bin.env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, out: () => out };
}

describe.skipIf(!BUILT)(`cctop exec as a process${unless(BUILT, WHY.built)}`, () => {
  it('reads the prompt from stdin with -', async () => {
    bin.add('codex', codexTurn, { expectArgs: ['--json', 'a prompt\nover two lines\n'] });
    const p = execProcess(['codex', '-']);
    p.child.stdin?.end('a prompt\nover two lines\n');
    expect(await p.done).toBe(0);
    expect(p.out()).toContain('codex says pong');
  });

  it('Ctrl-C stops the agent and exits 130', async () => {
    bin.add('claude', [{ grandchild: true }, { out: INIT }, { hang: true }]);
    const p = execProcess(['claude', 'hi']);
    p.child.stdin?.end();
    expect(
      await eventually(
        () =>
          existsSync(join(bin.dir, 'claude.record.json')) && bin.record('claude').grandchild !== undefined,
        10_000,
      ),
    ).toBe(true);
    p.child.kill('SIGINT');
    expect(await p.done).toBe(EXIT.cancelled);
    const rec = bin.record('claude');
    expect(await eventually(() => !exists(rec.pid) && !exists(rec.grandchild!))).toBe(true);
  });
});
