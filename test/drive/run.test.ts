/**
 * Running agents for real: fake `claude`, `codex` and `copilot` executables first on PATH check the
 * arguments they get and replay captured lines (the reference driver's, from claude 2.1.212 and
 * codex-cli 0.145.0, and the shared corpus's real captures), while drive spawns, reads, answers,
 * times out and kills them as it would the real CLIs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EVENT_QUEUE_DEPTH,
  KILL_GRACE_MS,
  MAX_CAPTURE,
  MAX_PENDING_APPROVALS,
} from '../../src/drive/bounds.js';
import { DriveError, type Failure } from '../../src/drive/errors.js';
import type { Event } from '../../src/drive/events.js';
import type { Request } from '../../src/drive/request.js';
import { run, stream } from '../../src/drive/run.js';
import { SessionStore } from '../../src/drive/sessions.js';
import { eventually, exists, FakeBin, type Step } from '../../src/drive/test-support/fake-agent.js';
import {
  FIRST_RUN,
  ROLLOUT_BEFORE_THIRD_RUN,
  SECOND_RUN,
  THIRD_RUN,
  THREAD,
  writeRollout,
} from '../../src/test-support/codex-thread.js';
import { optionalCorpus } from '../../src/test-support/owned.js';

let bin: FakeBin;
beforeEach(() => {
  bin = new FakeBin();
});
afterEach(() => bin.cleanup());

const req = (r: Partial<Request> & Pick<Request, 'agent'>): Request => ({
  prompt: 'say pong',
  cwd: bin.dir,
  parentEnv: bin.env(),
  ...r,
});

/** The failure a promise rejects with; fails the test if it resolves or throws anything else. */
async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DriveError) return e.failure;
    throw e;
  }
  throw new Error('expected the run to fail');
}

async function collect(r: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of r) out.push(e);
  return out;
}

const INIT = { type: 'system', subtype: 'init', session_id: 'sess-a', model: 'claude-haiku-4-5' };
const ASSISTANT = {
  type: 'assistant',
  session_id: 'sess-a',
  message: {
    id: 'msg_1',
    content: [{ type: 'text', text: 'pong' }],
    usage: { input_tokens: 10, output_tokens: 2 },
  },
};
const RESULT = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'pong',
  session_id: 'sess-a',
  total_cost_usd: 0.017,
  usage: {
    input_tokens: 10,
    output_tokens: 45,
    cache_read_input_tokens: 18764,
    cache_creation_input_tokens: 7322,
  },
};

describe('a plain run', () => {
  it('spawns claude with its headless flags and returns the authoritative answer', async () => {
    bin.add('claude', [{ out: INIT }, { out: ASSISTANT }, { out: RESULT }], {
      expectArgs: [
        '-p',
        'say pong',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'dontAsk',
      ],
    });
    const r = stream(req({ agent: 'claude' }));
    const events = await collect(r);
    const o = await r.outcome;
    expect(events.map((e) => e.kind)).toEqual(['started', 'usage', 'text']);
    expect(o).toMatchObject({
      agent: 'claude',
      session: 'sess-a',
      model: 'claude-haiku-4-5',
      text: 'pong',
      stop: { kind: 'completed' },
      exitCode: 0,
      unparsed: 0,
    });
    expect(o.usage).toMatchObject({
      input: 10,
      output: 45,
      cacheRead: 18764,
      cacheWrite: 7322,
      costUsd: 0.017,
    });
    expect(r.argv[0]).toBe(join(bin.dir, 'claude'));
    expect(bin.record('claude').argv.at(-1), 'read-only denies the tools that change things').toBe('mcp__*');
  });

  it('gives the agent only the environment it needs', async () => {
    bin.add('claude', [{ out: RESULT }]);
    await run(
      req({
        agent: 'claude',
        parentEnv: bin.env({
          ANTHROPIC_API_KEY: 'k',
          HTTPS_PROXY: 'http://proxy:3128',
          NODE_EXTRA_CA_CERTS: '/ca.pem',
          OPENAI_API_KEY: 'not-for-claude',
          DATABASE_URL: 'postgres://secret',
        }),
        setEnv: { CCTOP_MARK: '1' },
      }),
    );
    const env = bin.record('claude').env;
    expect(env.ANTHROPIC_API_KEY).toBe('k');
    expect(env.HTTPS_PROXY).toBe('http://proxy:3128');
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/ca.pem');
    expect(env.CCTOP_MARK).toBe('1');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.OPENAI_API_KEY, "another vendor's key is not Claude's business").toBeUndefined();
  });

  it('keeps IS_SANDBOX for bypass, which Claude refuses as root without it', async () => {
    bin.add('claude', [{ out: RESULT }], { expectArgs: ['--permission-mode', 'bypassPermissions'] });
    await run(req({ agent: 'claude', permission: 'bypass', parentEnv: bin.env({ IS_SANDBOX: '1' }) }));
    expect(bin.record('claude').env.IS_SANDBOX).toBe('1');
  });

  it('inherits the whole environment when asked', async () => {
    bin.add('claude', [{ out: RESULT }]);
    await run(req({ agent: 'claude', env: 'inherit', parentEnv: bin.env({ DATABASE_URL: 'x' }) }));
    expect(bin.record('claude').env.DATABASE_URL).toBe('x');
  });

  it('sends a prompt too large for the command line on stdin', async () => {
    bin.add('codex', [{ readStdin: true }, { out: { type: 'turn.completed', usage: {} } }]);
    const prompt = 'p'.repeat(300 * 1024);
    await run(req({ agent: 'codex', prompt }));
    const rec = bin.record('codex');
    expect(rec.argv.at(-1)).toBe('-');
    expect(rec.stdinText).toBe(prompt);
  });

  it('writes a Codex schema to a file for the run and removes it after', async () => {
    bin.add('codex', [
      { readArgFile: '--output-schema' },
      { out: { type: 'thread.started', thread_id: 't-1' } },
      { out: { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: '{"answer":42}' } } },
      {
        out: { type: 'turn.completed', usage: { input_tokens: 5, cached_input_tokens: 0, output_tokens: 1 } },
      },
    ]);
    const schema = { type: 'object', properties: { answer: { type: 'number' } } };
    const o = await run(req({ agent: 'codex', schema }));
    const rec = bin.record('codex');
    expect(JSON.parse(rec.files?.['--output-schema'] ?? 'null')).toEqual(schema);
    const file = rec.argv[rec.argv.indexOf('--output-schema') + 1]!;
    expect(existsSync(file)).toBe(false);
    expect(o.structured).toEqual({ answer: 42 });
  });

  it('keeps only the first MAX_CAPTURE bytes of stderr', async () => {
    bin.add('claude', [{ err: 'e'.repeat(MAX_CAPTURE + 500_000) }, { out: RESULT }]);
    const o = await run(req({ agent: 'claude' }));
    expect(Buffer.byteLength(o.stderr)).toBe(MAX_CAPTURE);
  });

  it('leaves nothing running when the agent exits and forgot a background process', async () => {
    bin.add('claude', [{ grandchild: true }, { out: RESULT }, { exit: 0 }]);
    const o = await run(req({ agent: 'claude' }));
    expect(o.text).toBe('pong');
    const orphan = bin.record('claude').grandchild!;
    expect(await eventually(() => !exists(orphan)), 'the grandchild outlived the run').toBe(true);
  });
});

describe('replaying real captures', () => {
  // The lab's recording of one Codex thread (codex-cli 0.169.0), run three times: each replayed as the
  // CLI printed it must end as that run ended.
  it.each([
    ['a new thread that ran a command', FIRST_RUN, 'The command printed lab-call-ok.'],
    ['a resume whose command exited 3', SECOND_RUN, 'The command failed with exit code 3.'],
    ['a resume that only answered', THIRD_RUN, 'pong: the lab answers with text only.'],
  ])('codex 0.169.0 exec --json: %s', async (_what, lines, answer) => {
    bin.add('codex', [...lines.map((out): Step => ({ out })), { exit: 0 }], {
      expectArgs: ['exec', '--skip-git-repo-check', '--sandbox', 'read-only', '--json', 'say pong'],
    });
    const o = await run(req({ agent: 'codex' }));
    expect(o.session).toBe(THREAD);
    expect(o.usage.contextTokens, 'Codex context stays unknown').toBeNull();
    expect(o.stop).toEqual({ kind: 'completed' });
    expect(o.text).toBe(answer);
    expect(o.usage.output).toBeGreaterThan(0);
  });

  // More captures (codex 0.46.0) where the shared corpus is beside the repository; none without it.
  const codexDir = optionalCorpus('codex', 'exec-json');
  const codexFiles = codexDir === null ? [] : readdirSync(codexDir).filter((f) => f.endsWith('.jsonl'));
  for (const file of codexFiles)
    it(`codex 0.46.0 ${file} (from the shared corpus)`, async () => {
      const lines = readFileSync(join(codexDir!, file), 'utf8').split('\n').filter(Boolean);
      bin.add('codex', [...lines.map((out): Step => ({ out })), { exit: 0 }], {
        expectArgs: ['exec', '--skip-git-repo-check', '--sandbox', 'read-only', '--json', 'say pong'],
      });
      const o = await run(req({ agent: 'codex' }));
      expect(o.session).toMatch(/^019a2d7/);
      expect(o.usage.contextTokens, 'Codex context stays unknown').toBeNull();
      if (file.includes('multi-1')) expect(o.stop).toEqual({ kind: 'unfinished' });
      else {
        expect(o.stop).toEqual({ kind: 'completed' });
        expect(o.text).not.toBe('');
        expect(o.usage.output).toBeGreaterThan(0);
      }
    });

  const refused = optionalCorpus('claude-code', 'stream-json', 'happy-cli__sample-error.json');
  if (refused !== null)
    it('claude 1.0.x: a run whose tool was refused permission (from the shared corpus)', async () => {
      // happy-cli's capture of claude -p stream messages, collected by its author into a JSON array.
      const records = JSON.parse(readFileSync(refused, 'utf8')) as unknown[];
      bin.add(
        'claude',
        records.map((out): Step => ({ out: out as object })),
      );
      const r = stream(req({ agent: 'claude' }));
      const events = await collect(r);
      const o = await r.outcome;
      expect(events[0]).toMatchObject({ kind: 'started', session: 'f64d3bc8-d6b0-4ccc-bbda-a1197b3d7b2d' });
      const calls = events.filter((e) => e.kind === 'tool_call');
      const results = events.filter((e) => e.kind === 'tool_result');
      expect(calls.length).toBeGreaterThan(0);
      expect(results).toContainEqual(expect.objectContaining({ ok: false }));
      expect(o.stop.kind).toBe('completed');
      expect(o.text).not.toBe('');
      expect(o.usage.costUsd).toBeGreaterThan(0);
    });
});

describe('approvals over the stream-json control channel', () => {
  const CALL = {
    type: 'assistant',
    session_id: 'sess-a',
    message: {
      id: 'msg_1',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'touch f' } }],
    },
  };
  const ASK = {
    type: 'control_request',
    request_id: 'req-7',
    request: {
      subtype: 'can_use_tool',
      tool_name: 'Bash',
      input: { command: 'touch f', description: 'Create f' },
    },
  };
  const handshake: Step[] = [
    { expectLine: { type: 'control_request', request: { subtype: 'initialize' } } },
    { out: { type: 'control_response', response: { subtype: 'success', request_id: 'cctop-init' } } },
    { expectLine: { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'make f' }] } } },
    { out: INIT },
    { out: CALL },
    { out: ASK },
  ];

  it('an allowed tool call runs, and stdin closes once the turn settles', async () => {
    bin.add(
      'claude',
      [
        ...handshake,
        {
          expectLine: {
            type: 'control_response',
            response: {
              subtype: 'success',
              request_id: 'req-7',
              // Claude 2.1 rejects an allow without the input it is to run.
              response: { behavior: 'allow', updatedInput: { command: 'touch f', description: 'Create f' } },
            },
          },
        },
        {
          out: {
            type: 'user',
            session_id: 'sess-a',
            message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '' }] },
          },
        },
        { out: { ...RESULT, result: 'created f' } },
        // Under stream-json input Claude waits for another message until stdin closes.
        { readStdin: true },
      ],
      {
        expectArgs: [
          '-p',
          '--input-format',
          'stream-json',
          '--permission-prompt-tool',
          'stdio',
          '--permission-mode',
          'acceptEdits',
        ],
      },
    );
    const r = stream(
      req({ agent: 'claude', prompt: 'make f', permission: 'edit', approvals: true, timeoutMs: 20_000 }),
    );
    const seen: Event[] = [];
    for await (const e of r) {
      seen.push(e);
      if (e.kind === 'approval_request') {
        expect(e).toEqual({ kind: 'approval_request', id: 'req-7', tool: 'Bash', input: ASK.request.input });
        r.respond(e.id, { behavior: 'allow' });
      }
    }
    const o = await r.outcome;
    expect(o.text).toBe('created f');
    expect(o.stop).toEqual({ kind: 'completed' });
    expect(bin.record('claude').sawEof, 'stdin was closed when the turn settled').toBe(true);
    expect(seen.map((e) => e.kind)).toContain('tool_result');
    expect(() => r.respond('req-7', { behavior: 'allow' }), 'the run is over').toThrow(DriveError);
  });

  it('a denied tool call carries the reason back', async () => {
    bin.add('claude', [
      ...handshake,
      {
        expectLine: {
          type: 'control_response',
          response: { request_id: 'req-7', response: { behavior: 'deny', message: 'not in this repo' } },
        },
      },
      { out: { ...RESULT, result: 'I was not allowed to.' } },
      { readStdin: true },
    ]);
    const r = stream(
      req({ agent: 'claude', prompt: 'make f', permission: 'plan', approvals: true, timeoutMs: 20_000 }),
    );
    for await (const e of r) {
      if (e.kind === 'approval_request') r.respond(e.id, { behavior: 'deny', reason: 'not in this repo' });
    }
    expect((await r.outcome).text).toBe('I was not allowed to.');
  });

  it('a control request drive does not handle is answered with an error, not left waiting', async () => {
    bin.add('claude', [
      { expectLine: { request: { subtype: 'initialize' } } },
      { expectLine: { type: 'user' } },
      { out: { type: 'control_request', request_id: 'hook-1', request: { subtype: 'hook_callback' } } },
      { expectLine: { type: 'control_response', response: { subtype: 'error', request_id: 'hook-1' } } },
      { out: RESULT },
      { readStdin: true },
    ]);
    const o = await run(req({ agent: 'claude', interactive: true, timeoutMs: 20_000 }));
    expect(o.text).toBe('pong');
  });

  it('a message sent mid-run is its own turn; stdin closes after the last one settles', async () => {
    bin.add('claude', [
      { expectLine: { request: { subtype: 'initialize' } } },
      { expectLine: { type: 'user', message: { content: [{ text: 'first' }] } } },
      { out: INIT },
      { expectLine: { type: 'user', message: { content: [{ text: 'and then' }] } } },
      { out: { ...RESULT, result: 'one', usage: { input_tokens: 1, output_tokens: 1 } } },
      { out: { ...RESULT, result: 'two', usage: { input_tokens: 2, output_tokens: 3 } } },
      { readStdin: true },
    ]);
    const r = stream(req({ agent: 'claude', prompt: 'first', interactive: true, timeoutMs: 20_000 }));
    for await (const e of r) if (e.kind === 'started') r.send('and then');
    const o = await r.outcome;
    expect(o.text).toBe('two');
    expect(o.usage.input, 'the turns add up').toBe(3);
    expect(o.usage.output).toBe(4);
    expect(bin.record('claude').sawEof).toBe(true);
    expect(() => r.send('too late')).toThrow(DriveError);
  });

  it('a question to a run without approvals is denied on the caller’s behalf, never shown', async () => {
    bin.add('claude', [
      { expectLine: { request: { subtype: 'initialize' } } },
      { expectLine: { type: 'user' } },
      { out: ASK },
      {
        expectLine: {
          type: 'control_response',
          response: { request_id: 'req-7', response: { behavior: 'deny' } },
        },
      },
      { out: RESULT },
      { readStdin: true },
    ]);
    const r = stream(req({ agent: 'claude', interactive: true, timeoutMs: 20_000 }));
    const events = await collect(r);
    expect(events.filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect((await r.outcome).text).toBe('pong');
  });

  it('past MAX_PENDING_APPROVALS unanswered questions, the next is denied rather than queued', async () => {
    const asks: Step[] = Array.from({ length: MAX_PENDING_APPROVALS + 1 }, (_, i) => ({
      out: { ...ASK, request_id: `req-${i}` },
    }));
    const allows: Step[] = Array.from({ length: MAX_PENDING_APPROVALS }, (_, i) => ({
      expectLine: { response: { request_id: `req-${i}`, response: { behavior: 'allow' } } },
    }));
    bin.add('claude', [
      { expectLine: { request: { subtype: 'initialize' } } },
      { expectLine: { type: 'user' } },
      ...asks,
      {
        expectLine: {
          response: { request_id: `req-${MAX_PENDING_APPROVALS}`, response: { behavior: 'deny' } },
        },
      },
      ...allows,
      { out: RESULT },
      { readStdin: true },
    ]);
    const r = stream(req({ agent: 'claude', permission: 'edit', approvals: true, timeoutMs: 20_000 }));
    const asked: string[] = [];
    for await (const e of r) {
      if (e.kind !== 'approval_request') continue;
      asked.push(e.id);
      // Answer only once every question is in, so they pile up. The one past the bound is denied as
      // its line is read; wait for that line, or the answers could overtake the denial.
      if (asked.length === MAX_PENDING_APPROVALS) {
        while (r.stats().lines < MAX_PENDING_APPROVALS + 1) await new Promise((done) => setTimeout(done, 5));
        for (const id of asked) r.respond(id, { behavior: 'allow' });
      }
    }
    expect(asked).toHaveLength(MAX_PENDING_APPROVALS);
    expect((await r.outcome).stop).toEqual({ kind: 'completed' });
  });

  it('is refused where nobody could answer, or nothing would be asked', async () => {
    expect((await failure(run(req({ agent: 'claude', approvals: true, permission: 'edit' })))).kind).toBe(
      'unsupported',
    );
    expect((await failure(stream(req({ agent: 'claude', approvals: true })).outcome)).kind).toBe(
      'unsupported',
    );
    expect(
      (await failure(stream(req({ agent: 'copilot', approvals: true, permission: 'edit' })).outcome)).kind,
    ).toBe('unsupported');
    const plain = stream(req({ agent: 'claude' }));
    bin.add('claude', [{ out: RESULT }]);
    expect(() => plain.respond('x', { behavior: 'allow' })).toThrow(/approvals/);
    await plain.closed;
  });
});

describe('an agent that fails', () => {
  it('exit 0 with a failed turn resolves with an outcome that says so', async () => {
    // codex-cli 0.145.0 with an unknown model exits 0.
    bin.add('codex', [
      { out: { type: 'thread.started', thread_id: '019fad62' } },
      {
        out: '{"type":"turn.failed","error":{"message":"{\\"type\\":\\"error\\",\\"status\\":400,\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"The \'bogus-model-xyz\' model is not supported when using Codex with a ChatGPT account.\\"}}"}}',
      },
      { exit: 0 },
    ]);
    const o = await run(req({ agent: 'codex', model: 'bogus-model-xyz' }));
    expect(o.exitCode).toBe(0);
    expect(o.stop).toEqual({ kind: 'error' });
    expect(o.errorStatus).toBe(400);
    expect(o.errorMessage).toMatch(/^The 'bogus-model-xyz' model is not supported/);
  });

  it('a failed turn with a non-zero exit is still an outcome', async () => {
    bin.add('claude', [
      { out: INIT },
      { out: { ...RESULT, is_error: true, result: 'API Error: 500' } },
      { exit: 1 },
    ]);
    const o = await run(req({ agent: 'claude' }));
    expect(o).toMatchObject({ exitCode: 1, stop: { kind: 'error' }, text: 'API Error: 500' });
  });

  it('a crash mid-stream is a failure carrying what had arrived', async () => {
    bin.add('claude', [
      { out: INIT },
      { out: ASSISTANT },
      { err: 'TypeError: boom\n    at main\n' },
      { exit: 3 },
    ]);
    const f = await failure(run(req({ agent: 'claude' })));
    expect(f.kind).toBe('failed');
    if (f.kind !== 'failed') return;
    expect(f.exitCode).toBe(3);
    expect(f.stderr).toContain('TypeError: boom');
    expect(f.partial.session).toBe('sess-a');
    expect(f.partial.stop).toEqual({ kind: 'unfinished' });
  });

  it('a crash by signal names the signal', async () => {
    bin.add('codex', [{ out: { type: 'thread.started', thread_id: 't' } }, { kill: 'SIGSEGV' }]);
    const r = stream(req({ agent: 'codex' }));
    const events = await collect(r).catch(() => null);
    expect(events, 'the iteration ends with the same error').toBeNull();
    const f = await failure(r.outcome);
    expect(f).toMatchObject({ kind: 'failed', exitCode: null, signal: 'SIGSEGV' });
  });

  it('not logged in is told apart from other failures, with the fix', async () => {
    bin.add('claude', [{ err: 'Invalid API key · Please run /login\n' }, { exit: 1 }]);
    const f = await failure(run(req({ agent: 'claude' })));
    expect(f).toMatchObject({ kind: 'not_authenticated', message: 'Invalid API key · Please run /login' });
    expect(new DriveError(f).message).toMatch(/\/login/);
  });

  it('a quota refusal is rate_limited, never retried', async () => {
    bin.add('claude', [
      { out: INIT },
      {
        out: {
          type: 'rate_limit_event',
          session_id: 'sess-a',
          rate_limit_info: { status: 'rejected', rateLimitType: 'five_hour', resetsAt: 1785260400 },
        },
      },
      { exit: 1 },
    ]);
    const f = await failure(run(req({ agent: 'claude' })));
    expect(f.kind).toBe('rate_limited');
    expect(new DriveError(f).transient).toBe(true);
  });

  it('not installed says how to install it', async () => {
    const f = await failure(run(req({ agent: 'copilot', parentEnv: { PATH: bin.dir } })));
    expect(f).toMatchObject({ kind: 'not_installed', agent: 'copilot', bin: 'copilot' });
    expect(new DriveError(f).message).toMatch(/npm install -g @github\/copilot/);
  });

  it('an executable that cannot start is a spawn failure', async () => {
    const path = bin.add('claude', []);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, '#!/nonexistent/interpreter\n');
    const f = await failure(run(req({ agent: 'claude' })));
    expect(f.kind).toBe('spawn');
  });

  it('an option the agent lacks is refused before anything runs', async () => {
    const f = await failure(run(req({ agent: 'copilot', schema: { type: 'object' } })));
    expect(f).toMatchObject({ kind: 'unsupported', agent: 'copilot', what: 'an output schema' });
    expect(await failure(run(req({ agent: 'codex', resume: 'a', fork: true })))).toMatchObject({
      kind: 'unsupported',
    });
    expect(await failure(run(req({ agent: 'claude', prompt: '  ' })))).toMatchObject({
      kind: 'invalid_request',
    });
    expect(await failure(run(req({ agent: 'claude', cwd: join(bin.dir, 'missing') })))).toMatchObject({
      kind: 'invalid_request',
    });
  });
});

describe('stopping a run', () => {
  const HANG_TIMEOUT_MS = 3000;

  it('a hang times out, kills the whole group and reports what had arrived', async () => {
    bin.add('claude', [{ grandchild: true }, { out: INIT }, { out: ASSISTANT }, { hang: true }]);
    // Long enough that the stand-in has surely written its first lines on a loaded machine (it starts
    // a Node of its own), which is what the partial outcome below must carry.
    const r = stream(req({ agent: 'claude', timeoutMs: HANG_TIMEOUT_MS }));
    const f = await failure(r.outcome);
    await r.closed;
    expect(f.kind).toBe('timeout');
    if (f.kind !== 'timeout') return;
    expect(f.timeoutMs).toBe(HANG_TIMEOUT_MS);
    expect(f.partial.session).toBe('sess-a');
    const rec = bin.record('claude');
    expect(exists(rec.pid)).toBe(false);
    expect(await eventually(() => !exists(rec.grandchild!))).toBe(true);
  });

  it('an agent that ignores SIGTERM is killed after the grace period', async () => {
    bin.add('codex', [
      { ignoreTerm: true },
      { out: { type: 'thread.started', thread_id: 't' } },
      { hang: true },
    ]);
    const r = stream(req({ agent: 'codex' }));
    // Stopped once its first line has arrived, so surely after it set SIGTERM aside: a stop timed from
    // the spawn (a timeout) could land while a loaded machine was still starting it, and kill it at once.
    expect((await r[Symbol.asyncIterator]().next()).done).toBe(false);
    const stopped = Date.now();
    r.cancel();
    expect((await failure(r.outcome)).kind).toBe('cancelled');
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(KILL_GRACE_MS - 100);
    expect(exists(bin.record('codex').pid)).toBe(false);
  });

  it('breaking out of the events kills and reaps the agent', async () => {
    bin.add('claude', [{ grandchild: true }, { out: INIT }, { hang: true }]);
    const r = stream(req({ agent: 'claude' }));
    for await (const e of r) if (e.kind === 'started') break;
    // The loop's exit waited for the reaping.
    const rec = bin.record('claude');
    expect(rec.grandchild).toBeGreaterThan(0);
    expect(exists(rec.pid)).toBe(false);
    expect(await eventually(() => !exists(rec.grandchild!))).toBe(true);
    expect((await failure(r.outcome)).kind).toBe('cancelled');
  });

  it('an abort signal cancels the run', async () => {
    bin.add('codex', [{ out: { type: 'thread.started', thread_id: 't' } }, { hang: true }]);
    const abort = new AbortController();
    const r = stream(req({ agent: 'codex', signal: abort.signal }));
    // Abort once the agent runs (its first line has arrived), not after a guess at how long that takes.
    expect((await r[Symbol.asyncIterator]().next()).done).toBe(false);
    abort.abort();
    expect((await failure(r.outcome)).kind).toBe('cancelled');
    await r.closed;
    expect(exists(bin.record('codex').pid)).toBe(false);
    // Already aborted: nothing is spawned at all.
    expect((await failure(run(req({ agent: 'codex', signal: abort.signal })))).kind).toBe('cancelled');
  });

  it('cancel() stops it too', async () => {
    bin.add('copilot', [{ hang: true }]);
    const r = stream(req({ agent: 'copilot' }));
    await sleep(100);
    r.cancel();
    expect((await failure(r.outcome)).kind).toBe('cancelled');
  });
});

describe('bounds under a hostile agent', () => {
  it('an endless line costs a bounded buffer until the timeout', async () => {
    bin.add('codex', [{ out: { type: 'thread.started', thread_id: 't' } }, { endless: true }]);
    const before = process.memoryUsage().rss;
    const r = stream(req({ agent: 'codex', timeoutMs: 1500 }));
    const f = await failure(r.outcome);
    expect(f.kind).toBe('timeout');
    if (f.kind === 'timeout') expect(f.partial.session).toBe('t');
    // Gigabytes went through the pipe; well under a hundred megabytes stayed.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('a long line is cut at its bound, counted, and the run goes on', async () => {
    bin.add('claude', [{ out: INIT }, { out: 'x'.repeat(5 * 1024 * 1024) }, { out: RESULT }]);
    const r = stream(req({ agent: 'claude' }));
    await collect(r);
    const o = await r.outcome;
    expect(o.text).toBe('pong');
    expect(o.unparsed).toBe(1);
    expect(o.firstUnparsed?.length).toBe(512);
    expect(r.stats().linesCut).toBe(1);
  });

  it('a flood faster than the consumer reads is held back at the queue, not in memory', async () => {
    const count = 20_000;
    const line = JSON.stringify({
      type: 'item.completed',
      item: { id: 'i%i', type: 'agent_message', text: `${'w'.repeat(80)}` },
    });
    bin.add('codex', [{ out: { type: 'thread.started', thread_id: 't' } }, { flood: { count, line } }]);
    const r = stream(req({ agent: 'codex', timeoutMs: 60_000 }));
    let read = 0;
    let writtenWhilePaused = -1;
    for await (const _ of r) {
      read++;
      if (read === 300) {
        // Stop reading for a while: the agent must stall, not race ahead into our memory.
        await sleep(1000);
        writtenWhilePaused = bin.record('codex').written ?? 0;
      }
    }
    await r.outcome;
    const stats = r.stats();
    expect(read).toBe(count + 1);
    expect(stats.queueHighWater).toBeLessThanOrEqual(EVENT_QUEUE_DEPTH);
    // The queue, one chunk of ready lines and the pipe's buffer: a few thousand lines, not 20,000.
    expect(writtenWhilePaused).toBeGreaterThan(0);
    expect(writtenWhilePaused).toBeLessThan(count / 4);
  });
});

describe('usage across the runs of one thread (codex-cli 0.169.0, conformance lab)', () => {
  const replay = (lines: readonly string[]): Step[] => [...lines.map((out): Step => ({ out })), { exit: 0 }];

  it("a resumed run reports its own usage, and the thread's running total apart", async () => {
    const codexHome = join(bin.dir, 'codex-home');
    writeRollout(codexHome, ROLLOUT_BEFORE_THIRD_RUN);
    bin.add('codex', replay(THIRD_RUN), { expectArgs: ['exec', 'resume', THREAD] });
    const o = await run(
      req({ agent: 'codex', resume: THREAD, parentEnv: bin.env({ CODEX_HOME: codexHome }) }),
    );
    expect(o.usage).toMatchObject({
      input: 5125,
      cacheRead: 5125,
      cacheWrite: null,
      output: 23,
      reasoning: 8,
    });
    expect(o.threadUsage).toEqual({
      input: 25170,
      cacheRead: 25168,
      cacheWrite: null,
      output: 95,
      reasoning: 30,
    });
    expect(o.threadCostUsd, 'Codex prices nothing').toBeNull();
  });

  it("a named thread whose rollout is gone reports unknown usage, never the thread's total", async () => {
    const store = new SessionStore(join(bin.dir, 'sessions'));
    store.bind(bin.dir, 'triage', 'codex', THREAD);
    bin.add('codex', replay(THIRD_RUN), { expectArgs: ['exec', 'resume', THREAD] });
    const o = await run(req({ agent: 'codex', session: { name: 'triage', store } }));
    expect(o.usage).toMatchObject({ input: null, cacheRead: null, output: null, reasoning: null });
    expect(o.threadUsage?.input).toBe(25170);
  });

  it("a new thread's running total is all this run's", async () => {
    bin.add('codex', replay(FIRST_RUN));
    const o = await run(req({ agent: 'codex' }));
    expect(o.usage).toMatchObject({ input: 9929, cacheRead: 9928, output: 32 });
    expect(o.threadUsage).toMatchObject({ input: 9929, cacheRead: 9928, output: 32 });
  });
});

describe('named sessions', () => {
  it('Claude gets a chosen id on the first run and resumes it on the next', async () => {
    const store = new SessionStore(join(bin.dir, 'sessions'));
    // Like Claude, the fake runs under the id it was given.
    bin.add('claude', [{ out: { ...INIT, session_id: '$ARG(--session-id)' } }, { out: RESULT }]);
    await run(req({ agent: 'claude', session: { name: 'review', store } }));
    const first = bin.record('claude').argv;
    const id = first[first.indexOf('--session-id') + 1]!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(store.get(bin.dir, 'review')?.session).toBe(id);
    bin.add('claude', [{ out: { ...INIT, session_id: id } }, { out: { ...RESULT, session_id: id } }]);
    await run(req({ agent: 'claude', session: { name: 'review', store } }));
    expect(store.get(bin.dir, 'review')?.session).toBe(id);
    const second = bin.record('claude').argv;
    expect(second.slice(second.indexOf('--resume'), second.indexOf('--resume') + 2)).toEqual([
      '--resume',
      id,
    ]);
    expect(second).not.toContain('--session-id');
  });

  it('Codex is bound once it names its thread, and resumed by it', async () => {
    const store = new SessionStore(join(bin.dir, 'sessions'));
    const turn: Step[] = [
      { out: { type: 'thread.started', thread_id: 'thread-42' } },
      {
        out: { type: 'turn.completed', usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } },
      },
    ];
    bin.add('codex', turn);
    await run(req({ agent: 'codex', session: { name: 'triage', store } }));
    expect(store.get(bin.dir, 'triage')).toMatchObject({ agent: 'codex', session: 'thread-42' });
    bin.add('codex', turn, { expectArgs: ['exec', 'resume', 'thread-42', '-c', 'sandbox_mode="read-only"'] });
    const o = await run(req({ agent: 'codex', session: { name: 'triage', store } }));
    expect(o.session).toBe('thread-42');
  });

  it('two runs cannot hold one name at once', async () => {
    const store = new SessionStore(join(bin.dir, 'sessions'));
    bin.add('claude', [{ out: INIT }, { hang: true }]);
    const first = stream(req({ agent: 'claude', session: { name: 'busy', store } }));
    const second = await failure(run(req({ agent: 'claude', session: { name: 'busy', store } })));
    expect(second.kind).toBe('session_busy');
    first.cancel();
    await first.closed;
    // Released with the run.
    store.acquire(bin.dir, 'busy').release();
  });

  it('a name bound to one agent is not handed to another', async () => {
    const store = new SessionStore(join(bin.dir, 'sessions'));
    store.bind(bin.dir, 'mine', 'claude', 'sess-a');
    bin.add('codex', []);
    const f = await failure(run(req({ agent: 'codex', session: { name: 'mine', store } })));
    expect(f).toMatchObject({ kind: 'session_conflict', bound: 'claude', requested: 'codex' });
  });
});
