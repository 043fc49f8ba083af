import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PeerServer } from '../runtime/peers.js';
import type { HookMessage } from '../runtime/protocol.js';
import { agentHooks } from './agents.js';
import { readJournal } from './journal.js';
import { codexNotifyArgs, type HookIo, MAX_HOOK_INPUT_BYTES, readStdin, runHook } from './run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-hook-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A run with `stdin` holding `input` (closed after it), a far deadline, and what it printed and chained. */
function io(args: string[], input: string | null, over: Partial<HookIo> = {}) {
  const printed: string[] = [];
  const chained: (readonly string[])[] = [];
  let stdinRead = false;
  const stdin = new PassThrough();
  if (input !== null) stdin.end(input);
  const hookIo: HookIo = {
    args,
    env: { CCTOP_RUNTIME_DIR: dir },
    get stdin(): Readable {
      stdinRead = true;
      return stdin;
    },
    drain: () => Buffer.alloc(0),
    out: (s) => printed.push(s),
    ppid: 77,
    now: Date.now,
    deadlineAt: Date.now() + 30_000,
    answer: (agent, event) => agentHooks(agent).answer(event),
    chain: async (argv) => {
      chained.push(argv);
    },
    ...over,
  };
  return { io: hookIo, printed, chained, stdinRead: () => stdinRead };
}

const claudeStop = JSON.stringify({
  session_id: '7f33dda3-268b-4cc7-ab75-a0d8d9ba1031',
  transcript_path: '/LAB/home/.claude/projects/-LAB-work/7f33dda3-268b-4cc7-ab75-a0d8d9ba1031.jsonl',
  cwd: '/LAB/work',
  permission_mode: 'default',
  hook_event_name: 'Stop',
  stop_hook_active: false,
  last_assistant_message: 'answer 10',
});

describe('cctop hook', () => {
  it('journals the reduced event and prints nothing for an agent that wants no answer', async () => {
    const r = io(['claude', 'Stop'], claudeStop);
    const out = await runHook(r.io);
    expect(out).toMatchObject({ kind: 'recorded', journal: 'appended', delivery: { peers: 0 } });
    expect(r.printed).toEqual([]);
    expect(readJournal(r.io.env)).toEqual([
      expect.objectContaining({
        agent: 'claude',
        event: 'Stop',
        session: '7f33dda3-268b-4cc7-ab75-a0d8d9ba1031',
        cwd: '/LAB/work',
        ppid: 77,
      }),
    ]);
  });

  it('hands the event to a running cctop', async () => {
    const got: HookMessage[] = [];
    const listening = await PeerServer.listen({ CCTOP_RUNTIME_DIR: dir }, (m) => {
      if (m.kind === 'hook') got.push(m);
    });
    if (listening.kind !== 'listening') throw new Error(listening.why);
    try {
      const out = await runHook(io(['claude', 'Stop'], claudeStop).io);
      expect(out).toMatchObject({ delivery: { peers: 1, delivered: 1 } });
      await expect
        .poll(() => got.map((m) => m.event.session))
        .toEqual(['7f33dda3-268b-4cc7-ab75-a0d8d9ba1031']);
    } finally {
      await listening.server.close();
    }
  });

  it('prints the answer an agent requires, before anything else can go wrong', async () => {
    const r = io(['cursor', 'beforeSubmitPrompt'], 'garbage');
    await runHook(r.io);
    expect(r.printed).toEqual(['{"continue":true}']);
  });

  it('an unknown agent or a word that is no event is ignored: nothing read, printed or journaled', async () => {
    for (const args of [
      [],
      ['emacs', 'Stop'],
      ['claude'],
      ['claude', '--help'],
      ['cursor', 'before Submit'],
    ]) {
      const r = io(args, claudeStop);
      expect((await runHook(r.io)).kind).toBe('ignored');
      expect(r.printed).toEqual([]);
      expect(r.stdinRead()).toBe(false);
    }
    expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([]);
  });

  it('a runtime directory that is refused is no error: the event is reduced and goes nowhere', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const r = io(['claude', 'Stop'], claudeStop, { env: { CCTOP_RUNTIME_DIR: join(dir, 'plain') } });
    expect(await runHook(r.io)).toMatchObject({ kind: 'recorded', journal: 'refused', delivery: null });
  });

  it("reads Codex's notification from its last argument, never from stdin, and chains to the user's notifier", async () => {
    const payload = JSON.stringify({
      type: 'agent-turn-complete',
      'thread-id': '019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11',
      'turn-id': '1',
      cwd: '/home/dev/src/app',
      'input-messages': ['fix the test'],
      'last-assistant-message': 'Done.',
    });
    // Stdin left open: reading it would wait for the whole deadline.
    const r = io(['codex', 'notify', '--then', 'notify-send', '-a', 'Codex', payload], null);
    const out = await runHook(r.io);
    expect(r.stdinRead()).toBe(false);
    expect(out).toMatchObject({
      kind: 'recorded',
      event: {
        agent: 'codex',
        event: 'agent-turn-complete',
        session: '019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11',
      },
    });
    expect(r.chained).toEqual([['notify-send', '-a', 'Codex', payload]]);
  });

  it("Codex's notify without a notifier of the user's chains nothing; a bad notification is still the turn's notify", async () => {
    const r = io(['codex', 'notify', 'not json'], null);
    expect(await runHook(r.io)).toMatchObject({ event: { event: 'notify', session: null } });
    expect(r.chained).toEqual([]);
  });

  it("reads stdin for the events of Codex's hooks file, like the other agents", async () => {
    const r = io(['codex', 'PermissionRequest'], JSON.stringify({ session_id: 'th-1', tool_name: 'shell' }));
    expect(await runHook(r.io)).toMatchObject({
      event: { event: 'PermissionRequest', session: 'th-1', tool: 'shell' },
    });
  });
});

describe("Codex's notify arguments", () => {
  it('the payload is the last word, and what stands between --then and it is the chained program', () => {
    expect(codexNotifyArgs(['{}'])).toEqual({ payload: '{}', chained: [] });
    expect(codexNotifyArgs(['--then', 'prog', 'a', 'b', '{}'])).toEqual({
      payload: '{}',
      chained: ['prog', 'a', 'b'],
    });
    expect(codexNotifyArgs(['--then', '{}'])).toEqual({ payload: '{}', chained: [] });
    expect(codexNotifyArgs([])).toEqual({ payload: '', chained: [] });
  });
});

describe('reading stdin', () => {
  it('stops at the bound and leaves the rest unread', async () => {
    const s = new PassThrough();
    const big = Buffer.alloc(MAX_HOOK_INPUT_BYTES + 10_000, 'a');
    s.write(big);
    const text = await readStdin(s, {
      maxBytes: MAX_HOOK_INPUT_BYTES,
      until: Date.now() + 30_000,
      now: Date.now,
    });
    expect(text.length).toBe(MAX_HOOK_INPUT_BYTES);
    expect(s.destroyed).toBe(true);
  });

  it('gives up on a pipe that never closes, with what arrived', async () => {
    const s = new PassThrough();
    s.write('{"session_id":"abc"');
    const until = Date.now() + 20;
    expect(await readStdin(s, { maxBytes: MAX_HOOK_INPUT_BYTES, until, now: Date.now })).toBe(
      '{"session_id":"abc"',
    );
  });

  it('takes what is waiting unread when the wait ends, as a process starved of CPU finds it', async () => {
    const s = new PassThrough();
    s.write('{"session_id":');
    const text = await readStdin(s, {
      maxBytes: MAX_HOOK_INPUT_BYTES,
      until: 0,
      now: Date.now,
      drain: () => Buffer.from('"late"}'),
    });
    expect(text).toBe('{"session_id":"late"}');
  });

  it('does not read a terminal', async () => {
    const s = Object.assign(new PassThrough(), { isTTY: true });
    expect(
      await readStdin(s, { maxBytes: MAX_HOOK_INPUT_BYTES, until: Date.now() + 30_000, now: Date.now }),
    ).toBe('');
  });
});

describe('a deciding hook (--hold)', () => {
  const permission = JSON.stringify({
    session_id: '76a71b89-ade7-44f1-b633-48325d8c9845',
    cwd: '/LAB/work',
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: { command: 'touch lab-approved.txt && echo lab-touched', description: 'Run a lab command' },
  });

  it('holds the request until an answer from cctop, then prints the decision the agent reads', async () => {
    const { claudeDecider } = await import('../providers/claude/decide.js');
    const { answerRequest } = await import('../approvals/answer.js');
    const { approvalsDir, openRequests } = await import('../approvals/store.js');
    const r = io(['claude', 'PermissionRequest', '--hold', '30'], permission, {
      decider: async () => claudeDecider,
      pid: process.pid,
      // The agent's process: this test's, alive throughout.
      ppid: process.pid,
    });
    const running = runHook(r.io);
    const approvals = approvalsDir(dir)!;
    let open = openRequests(approvals, Date.now());
    while (open.length === 0) {
      await new Promise((res) => setTimeout(res, 20));
      open = openRequests(approvals, Date.now());
    }
    expect(open.map((q) => [q.session, q.tool, q.input, q.kind])).toEqual([
      [
        '76a71b89-ade7-44f1-b633-48325d8c9845',
        'Bash',
        'touch lab-approved.txt && echo lab-touched',
        'permission',
      ],
    ]);
    const sent = await answerRequest(
      {
        dir: approvals,
        runtime: dir,
        now: Date.now,
        sleep: (ms) => new Promise((res) => setTimeout(res, ms)),
        confirmMs: 10_000,
      },
      open[0]!,
      {
        verdict: { kind: 'deny', reason: 'not today' },
        by: { via: 'cli', who: 'ada', from: 'lab' },
        at: Date.now(),
      },
    );
    expect(sent.kind).toBe('delivered');
    const out = await running;
    expect(out.kind === 'recorded' ? out.held?.kind : null).toBe('delivered');
    expect(r.printed).toEqual([
      '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not today"}}}',
    ]);
  });

  it('without --hold, or with a hold out of bounds, nothing is held and nothing printed', async () => {
    const { holdSecondsIn } = await import('./run.js');
    expect(holdSecondsIn(['claude', 'PermissionRequest'])).toBeNull();
    expect(holdSecondsIn(['claude', 'PermissionRequest', '--hold', '3601'])).toBeNull();
    expect(holdSecondsIn(['claude', 'PermissionRequest', '--hold', '2.5'])).toBeNull();
    expect(holdSecondsIn(['claude', 'PermissionRequest', '--hold', '600'])).toBe(600);
    const r = io(['claude', 'PermissionRequest'], permission, { decider: async () => null });
    const out = await runHook(r.io);
    expect(out.kind === 'recorded' ? out.held : 'ignored').toBeNull();
    expect(r.printed).toEqual([]);
  });
});
