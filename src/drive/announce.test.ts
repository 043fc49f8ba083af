import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentStates } from '../live/agent-state.js';
import { encodeMessage, MAX_MESSAGE_BYTES } from '../runtime/protocol.js';
import { foldAnswer, foldEvent, runLine, startSnapshot } from './announce-fold.js';
import { announced } from './announced-run.js';
import type { Run } from './run.js';
import { scriptedOutcome as outcome, ScriptedRun } from './test-support/scripted-run.js';

const dirs: string[] = [];
const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A runtime directory of its own, and a cctop following runs in it. */
function cctop(dir?: string) {
  const runtime = dir ?? mkdtempSync(join(tmpdir(), 'cctop-announce-'));
  if (!dir) dirs.push(runtime);
  const env = { CCTOP_RUNTIME_DIR: runtime };
  const states = new AgentStates(env);
  states.start();
  stops.push(() => states.stop());
  return { env, states, driven: states.driven };
}

/** Read the run's events as a program would, until it ends. */
const drain = async (run: Run) => {
  for await (const _ of run) {
    // The program's own reading is what moves the snapshot.
  }
};

const listening = async (env: Record<string, string>) => {
  const { peerSockets } = await import('../runtime/peers.js');
  await expect.poll(() => peerSockets(env.CCTOP_RUNTIME_DIR!).length).toBe(1);
};

describe('a driven run, told to running cctops', () => {
  it('shows in a running cctop as it moves, with who answered, and leaves when it ends', async () => {
    const c = cctop();
    await listening(c.env);
    const inner = new ScriptedRun();
    const run = announced(inner, {
      agent: 'claude',
      prompt: 'p',
      approvals: 'remote',
      parentEnv: c.env,
      announce: { program: 'fix-bot' },
    });
    const reading = drain(run);
    await expect.poll(() => c.driven.list().map((r) => r.program)).toEqual(['fix-bot']);
    inner.emit({ kind: 'started', session: 'sess-1', model: 'claude-sonnet-4-5' });
    inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'Bash', input: { command: 'touch x' } });
    await expect.poll(() => c.driven.list()[0]?.phase).toBe('waiting');
    const shown = c.driven.list()[0]!;
    expect(shown).toMatchObject({
      session: 'sess-1',
      pending: [{ id: 'req-1', tool: 'Bash', input: '{"command":"touch x"}' }],
    });

    expect(c.driven.answer(shown.id, 'req-1', 'allow', 'the live table (pid 1)')).toEqual({ kind: 'sent' });
    await expect.poll(() => inner.answers).toEqual([['req-1', { behavior: 'allow' }]]);
    await expect
      .poll(() => c.driven.list()[0]?.answered)
      .toEqual({
        id: 'req-1',
        tool: 'Bash',
        behavior: 'allow',
        by: 'the live table (pid 1)',
      });
    // A second answer to the same request is refused here, and would find nothing waiting there.
    expect(c.driven.answer(shown.id, 'req-1', 'deny', 'the dashboard')).toEqual({
      kind: 'refused',
      why: 'already answered (allow) by the live table (pid 1)',
    });

    inner.end(outcome());
    await reading;
    await expect.poll(() => c.driven.list()).toEqual([]);
  });

  it('the first answer wins: the program answering first leaves nothing for a watcher', async () => {
    const c = cctop();
    await listening(c.env);
    const inner = new ScriptedRun();
    const run = announced(inner, { agent: 'claude', prompt: 'p', approvals: 'remote', parentEnv: c.env });
    const reading = drain(run);
    inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'Bash', input: { command: 'ls' } });
    await expect.poll(() => c.driven.list()[0]?.pending.length).toBe(1);
    run.respond('req-1', { behavior: 'deny', reason: 'no' });
    await expect.poll(() => c.driven.list()[0]?.answered?.behavior).toBe('deny');
    expect(c.driven.answer(c.driven.list()[0]!.id, 'req-1', 'allow', 'x')).toMatchObject({ kind: 'refused' });
    expect(inner.answers).toEqual([['req-1', { behavior: 'deny', reason: 'no' }]]);
    inner.end(outcome());
    await reading;
  });

  it('a program that answers its own approvals takes no answer from outside', async () => {
    const c = cctop();
    await listening(c.env);
    const inner = new ScriptedRun();
    const run = announced(inner, { agent: 'claude', prompt: 'p', approvals: true, parentEnv: c.env });
    const reading = drain(run);
    inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'Bash', input: {} });
    await expect.poll(() => c.driven.list()[0]?.pending.length).toBe(1);
    const shown = c.driven.list()[0]!;
    expect(shown.remote).toBe(false);
    expect(c.driven.answer(shown.id, 'req-1', 'allow', 'x').kind).toBe('refused');
    // Even a cctop that sent one anyway (an older one, or a hostile client) is not obeyed.
    inner.end(outcome());
    await reading;
    expect(inner.answers).toEqual([]);
  });

  it('a cctop started while the run goes finds it, and a run that opts out is told to nobody', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'cctop-announce-'));
    dirs.push(runtime);
    const env = { CCTOP_RUNTIME_DIR: runtime };
    const inner = new ScriptedRun();
    const hidden = new ScriptedRun();
    const reading = [
      drain(
        announced(inner, { agent: 'claude', prompt: 'p', parentEnv: env, announce: { program: 'early' } }),
      ),
      drain(announced(hidden, { agent: 'claude', prompt: 'p', parentEnv: env, announce: false })),
    ];
    inner.emit({ kind: 'tool_call', id: 't1', name: 'Read', input: {} });
    const c = cctop(runtime);
    await expect.poll(() => c.driven.list().map((r) => r.program), { timeout: 5_000 }).toEqual(['early']);
    inner.end(outcome());
    hidden.end(outcome());
    await Promise.all(reading);
  });

  it('a command that does not stay reads the run from its file while it runs, and not once it ends', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'cctop-announce-'));
    dirs.push(runtime);
    const env = { CCTOP_RUNTIME_DIR: runtime };
    const { announcedRuns } = await import('../runtime/run-files.js');
    const inner = new ScriptedRun();
    // No cctop listens: the file alone carries the run.
    const reading = drain(
      announced(inner, { agent: 'codex', prompt: 'p', parentEnv: env, announce: { program: 'nightly' } }),
    );
    expect(announcedRuns(env).map((r) => [r.program, r.phase])).toEqual([['nightly', 'starting']]);
    inner.emit({ kind: 'started', session: 'sess-7', model: 'gpt-5' });
    inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'shell', input: { command: 'ls' } });
    await expect
      .poll(() => announcedRuns(env).map((r) => [r.session, r.phase, r.pending.map((p) => p.tool)]))
      .toEqual([['sess-7', 'waiting', ['shell']]]);
    inner.end(outcome());
    await reading;
    expect(announcedRuns(env)).toEqual([]);
  });

  it('a driver that dies without a word is dropped when its connection closes', async () => {
    const c = cctop();
    await listening(c.env);
    const { connect } = await import('node:net');
    const { peerSockets } = await import('../runtime/peers.js');
    const s = connect(peerSockets(c.env.CCTOP_RUNTIME_DIR)[0]!.path);
    const snap = startSnapshot({
      id: 'r9',
      agent: 'codex',
      harness: 'codex',
      program: 'p',
      cwd: '/',
      model: null,
      remote: false,
      startedAtMs: 1,
    });
    s.write(encodeMessage({ v: 1, kind: 'announce', run: snap }));
    await expect.poll(() => c.driven.list().length).toBe(1);
    s.destroy();
    await expect.poll(() => c.driven.list().length).toBe(0);
  });
});

describe('the snapshot a driver sends', () => {
  const base = startSnapshot({
    id: 'r',
    agent: 'claude',
    harness: 'claude',
    program: 'p',
    cwd: '/w',
    model: null,
    remote: true,
    startedAtMs: 0,
  });

  it('waits while an approval is pending and works again once it is answered', () => {
    let s = foldEvent(base, { kind: 'approval_request', id: 'a', tool: 'Bash', input: { command: 'ls' } });
    expect(s.phase).toBe('waiting');
    s = foldAnswer(s, 'a', 'allow', 'me');
    expect(s).toMatchObject({
      phase: 'working',
      pending: [],
      answered: { id: 'a', behavior: 'allow', by: 'me' },
    });
  });

  it('counts failed tools and sums usage, output unknown until the outcome', () => {
    let s = foldEvent(base, { kind: 'tool_call', id: '1', name: 'Bash', input: {} });
    s = foldEvent(s, { kind: 'tool_result', id: '1', ok: false, output: '' });
    s = foldEvent(s, { kind: 'usage', usage: { ...outcome().usage, input: 5, output: null } });
    s = foldEvent(s, { kind: 'usage', usage: { ...outcome().usage, input: 7, output: null } });
    expect(s).toMatchObject({
      toolCalls: 1,
      toolFailures: 1,
      tokens: { input: 12, output: null, cacheRead: 60 },
    });
  });

  it('always fits one protocol line, however large and hostile the inputs', () => {
    let s = base;
    for (let i = 0; i < 40; i++)
      s = foldEvent(s, {
        kind: 'approval_request',
        id: `q${i}`,
        tool: 'Edit',
        input: { patch: '\u0000"\ud800'.repeat(5_000) },
      });
    expect(s.pending.length).toBeLessThanOrEqual(16);
    expect(Buffer.byteLength(runLine('run-event', s))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });
});
