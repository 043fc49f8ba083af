/**
 * ACP agents run for real through `stream()`: a fake ACP agent (`src/drive/test-support/fake-acp.ts`)
 * answers the handshake and a prompt, asks permission, and misbehaves in the ways a broken or hostile
 * agent can (never answering, flooding, dying mid-line, asking for what drive never offered, ignoring
 * the end of its input), while drive spawns, reads, answers, times out and kills it as it does any
 * agent. The real Gemini CLI in its ACP mode is `test/lab/drive-acp.test.ts`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcpAgent } from '../../src/drive/acp/index.js';
import { EVENT_QUEUE_DEPTH, SETTLED_EXIT_MS } from '../../src/drive/bounds.js';
import { DriveError, type Failure } from '../../src/drive/errors.js';
import type { Event } from '../../src/drive/events.js';
import type { Request } from '../../src/drive/request.js';
import { run, stream } from '../../src/drive/run.js';
import { type AcpScenario, acpRecord, writeFakeAcp } from '../../src/drive/test-support/fake-acp.js';
import { eventually, exists, FakeBin, ofKind } from '../../src/drive/test-support/fake-agent.js';

let bin: FakeBin;
let fake: string;
beforeEach(() => {
  bin = new FakeBin();
  fake = writeFakeAcp(bin.dir);
});
afterEach(() => bin.cleanup());

const acp = (scenario: AcpScenario, more: Partial<AcpAgent> = {}): AcpAgent => ({
  name: 'fake',
  command: [fake, scenario],
  ...more,
});

const req = (scenario: AcpScenario, r: Partial<Request> = {}): Request => ({
  agent: 'acp',
  acp: acp(scenario),
  prompt: 'say pong',
  cwd: bin.dir,
  parentEnv: bin.env(),
  permission: 'default',
  timeoutMs: 30_000,
  ...r,
});

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

const methods = () => acpRecord(bin.dir).received.map((m) => m.method ?? `reply ${String(m.id)}`);

describe('an ACP agent through stream()', () => {
  it('answers a prompt: the outcome says which ACP agent ran, and its stdin is ended after the turn', async () => {
    const r = stream(req('well'));
    const events = await collect(r);
    const o = await r.outcome;
    expect(events).toEqual([
      { kind: 'started', session: 'fake-session-1', model: null },
      { kind: 'text', text: 'pong from the fake' },
    ]);
    expect(o).toMatchObject({
      agent: 'acp',
      text: 'pong from the fake',
      session: 'fake-session-1',
      stop: { kind: 'completed' },
      exitCode: 0,
      acp: {
        name: 'fake',
        command: [fake, 'well'],
        agentName: 'fake-acp',
        agentVersion: '0.0.1',
        protocolVersion: 1,
      },
    });
    expect(r.argv).toEqual([fake, 'well']);
    expect(methods()).toEqual(['initialize', 'session/new', 'session/prompt']);
    expect(acpRecord(bin.dir).eof).toBe(true);
  });

  it('an allowed permission runs the tool, a denied one does not, each answered through respond()', async () => {
    for (const behavior of ['allow', 'deny'] as const) {
      const r = stream(req('ask', { approvals: true }));
      const events: Event[] = [];
      for await (const e of r) {
        events.push(e);
        if (e.kind === 'approval_request')
          r.respond(e.id, behavior === 'allow' ? { behavior } : { behavior, reason: 'no' });
      }
      const o = await r.outcome;
      expect(ofKind(events, 'approval_request')).toEqual([
        { kind: 'approval_request', id: '7', tool: 'touch x', input: { command: 'touch x' } },
      ]);
      expect(o.text).toBe(behavior === 'allow' ? 'ran it' : 'was not allowed');
      expect(ofKind(events, 'tool_result')).toEqual(
        behavior === 'allow' ? [{ kind: 'tool_result', id: 'call-1', ok: null, output: 'touched' }] : [],
      );
      const reply = acpRecord(bin.dir).received.find((m) => m.id === 7);
      expect(reply?.result).toEqual({
        outcome: { outcome: 'selected', optionId: behavior === 'allow' ? 'yes' : 'no' },
      });
    }
  });

  it('without approvals a permission request is rejected at once, and the run goes on', async () => {
    const o = await run(req('ask'));
    expect(o.text).toBe('was not allowed');
  });

  it('asks for the mode a permission level needs before the prompt', async () => {
    await run(req('well', { permission: 'bypass' }));
    const received = acpRecord(bin.dir).received;
    expect(received.map((m) => m.method)).toEqual([
      'initialize',
      'session/new',
      'session/set_mode',
      'session/prompt',
    ]);
    expect(received[2]?.params).toEqual({ sessionId: 'fake-session-1', modeId: 'yolo' });
  });

  it('a permission level the agent has no mode for is refused once it says so, and the agent is reaped', async () => {
    const r = stream(req('well', { permission: 'edit' }));
    const f = await failure(r.outcome);
    expect(f.kind).toBe('unsupported');
    await r.closed;
    expect(exists(acpRecord(bin.dir).pid)).toBe(false);
  });

  it('resumes by loading the session the caller names', async () => {
    const o = await run(req('well', { resume: 'fake-session-0' }));
    expect(o.session).toBe('fake-session-0');
    expect(acpRecord(bin.dir).received[1]).toMatchObject({
      method: 'session/load',
      params: { sessionId: 'fake-session-0', mcpServers: [] },
    });
  });

  it('reports the usage the agent gives, and on a new session its cost as the run’s', async () => {
    const r = stream(req('usage'));
    const events = await collect(r);
    const o = await r.outcome;
    expect(ofKind(events, 'usage')[0]?.usage).toMatchObject({
      contextTokens: 1200,
      contextWindow: 200000,
      costUsd: null,
    });
    expect(o.usage).toMatchObject({
      input: 1000,
      output: 300,
      reasoning: 100,
      cacheRead: 200,
      cacheWrite: null,
      costUsd: 0.25,
    });
    expect(o.threadCostUsd).toBe(0.25);
  });

  it('passes the variables acp.env names, and a known CLI’s own credentials, through the minimal policy', async () => {
    await run(
      req('well', {
        acp: acp('well', { env: ['GOOSE_*', 'EXTRA_KEY'] }),
        parentEnv: bin.env({ GOOSE_PROVIDER: 'p', EXTRA_KEY: 'k', AWS_SECRET_ACCESS_KEY: 'no' }),
      }),
    );
    const env = acpRecord(bin.dir).env;
    expect(env.GOOSE_PROVIDER).toBe('p');
    expect(env.EXTRA_KEY).toBe('k');
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });

  it('refuses before spawning what ACP cannot carry', async () => {
    const refused = async (r: Partial<Request>) => (await failure(run(req('well', r)))).kind;
    expect(await refused({ model: 'm' })).toBe('unsupported');
    expect(await refused({ sessionId: 'x' })).toBe('unsupported');
    expect(await refused({ interactive: true })).toBe('unsupported');
    expect(await refused({ format: 'text' })).toBe('unsupported');
    expect(await refused({ session: { name: 'n' } })).toBe('unsupported');
    expect(await refused({ acp: undefined })).toBe('invalid_request');
    expect(await refused({ acp: { name: 'x', command: [] } })).toBe('invalid_request');
    expect(() => acpRecord(bin.dir), 'nothing was spawned').toThrow();
  });
});

describe('an ACP run’s errors', () => {
  const message = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof DriveError) return e.message;
      throw e;
    }
    throw new Error('expected the run to fail');
  };

  it('name the agent, not "acp": one not installed, one that crashes, one that breaks off', async () => {
    const missing = { name: 'claude-code-acp', command: ['claude-code-acp-not-here'] };
    expect(await message(run(req('well', { acp: missing })))).toBe(
      'claude-code-acp is not installed (no `claude-code-acp-not-here` on PATH): check the command of the ACP agent claude-code-acp (`claude-code-acp-not-here`)',
    );
    expect(await message(run(req('crash')))).toMatch(/^fake failed \(exit code 1\) without a result/);
    const silent = stream(req('silent', { acp: acp('silent', { handshakeMs: 1500 }) }));
    expect(await message(silent.outcome)).toMatch(/^fake broke off its protocol: fake did not answer/);
  });

  it('a refused answer names the agent too', async () => {
    const r = stream(req('ask', { approvals: true }));
    for await (const e of r) {
      if (e.kind !== 'approval_request') continue;
      expect(() => r.respond(e.id, { behavior: 'allow', updatedInput: { x: 1 } })).toThrow(
        /^fake does not support changing a tool's input/,
      );
      r.respond(e.id, { behavior: 'deny' });
    }
    await r.outcome;
  });
});

describe('a hostile ACP agent', () => {
  it('one that never answers initialize ends the run with a protocol error at the deadline, not a hang', async () => {
    const started = Date.now();
    const r = stream(req('silent', { acp: acp('silent', { handshakeMs: 1500 }) }));
    const f = await failure(r.outcome);
    expect(f.kind).toBe('protocol');
    if (f.kind === 'protocol') expect(f.message).toContain('did not answer `initialize` within 2 s');
    expect(Date.now() - started).toBeLessThan(10_000);
    await r.closed;
    expect(exists(acpRecord(bin.dir).pid)).toBe(false);
  });

  it('a flood is read under back-pressure, every chunk delivered, the answer intact', async () => {
    const r = stream(req('flood'));
    const events: Event[] = [];
    for await (const e of r) {
      events.push(e);
      // A slow consumer: the queue fills and the agent's writes block, memory stays bounded.
      if (events.length % 500 === 0) await new Promise((res) => setTimeout(res, 5));
    }
    const o = await r.outcome;
    expect(ofKind(events, 'text')).toHaveLength(5001);
    // The answer is the turn's text after its last call: every chunk, then the last words.
    expect(o.text.startsWith('chunk 0 chunk 1 ')).toBe(true);
    expect(o.text.endsWith('chunk 4999 flood over')).toBe(true);
    expect(r.stats().queueHighWater).toBeLessThanOrEqual(EVENT_QUEUE_DEPTH);
  });

  it('one that dies mid-line fails without a result, the cut line counted as unparsed', async () => {
    const r = stream(req('crash'));
    const events = await collect(r).catch(() => []);
    const f = await failure(r.outcome);
    expect(f.kind).toBe('failed');
    if (f.kind === 'failed') {
      expect(f.exitCode).toBe(1);
      expect(f.partial.stop).toEqual({ kind: 'unfinished' });
      expect(f.partial.unparsed).toBe(1);
      expect(f.partial.acp?.name).toBe('fake');
    }
    expect(events).toBeDefined();
  });

  it('one that asks for something drive never offered gets an error reply and goes on', async () => {
    const o = await run(req('unknown'));
    expect(o.text).toBe('no file, then');
    const reply = acpRecord(bin.dir).received.find((m) => m.id === 'fs-1');
    // The SDK's own refusal, which names the method.
    expect(reply?.error).toMatchObject({ code: -32601, data: { method: 'fs/read_text_file' } });
  });

  it(`one that ignores the end of its input is stopped ${SETTLED_EXIT_MS / 1000} s after its turn, with its outcome`, async () => {
    const r = stream(req('linger'));
    const o = await r.outcome;
    expect(o.stop).toEqual({ kind: 'completed' });
    expect(o.text).toBe('pong from the fake');
    expect(o.signal).toBe('SIGTERM');
    await r.closed;
    expect(exists(acpRecord(bin.dir).pid)).toBe(false);
  });

  it('one that writes a line without end holds no more than its bound and is stopped by the timeout', async () => {
    const r = stream(req('endless', { timeoutMs: 2000 }));
    const f = await failure(r.outcome);
    expect(f.kind).toBe('timeout');
    await r.closed;
    expect(exists(acpRecord(bin.dir).pid)).toBe(false);
  });

  it('cancel mid-turn tells the agent and kills its group', async () => {
    const r = stream(req('hang'));
    await eventually(() => {
      try {
        return methods().includes('session/prompt');
      } catch {
        return false;
      }
    }, 10_000);
    r.cancel();
    expect((await failure(r.outcome)).kind).toBe('cancelled');
    await r.closed;
    expect(exists(acpRecord(bin.dir).pid)).toBe(false);
  });
});
