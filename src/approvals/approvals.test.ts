import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerRequest, pickSession } from './answer.js';
import { startHold } from './hold.js';
import {
  approvalsDir,
  openRequests,
  readApprovalJournal,
  readRequestFile,
  registerRequest,
  settlementOf,
} from './store.js';
import { type Answer, APPROVAL_VERSION, type ApprovalRequest, type Verdict } from './types.js';

let runtime: string;
let dir: string;
beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), 'cctop-approvals-'));
  dir = approvalsDir(runtime)!;
});
afterEach(() => rmSync(runtime, { recursive: true, force: true }));

// Now: the prune of old files compares with the files' real times.
const T0 = Date.now();
const HOLD_MS = 60_000;

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  v: APPROVAL_VERSION,
  id: 'a'.repeat(32),
  agent: 'claude',
  session: '590ab5e8-9a56-44f5-9897-e198d98e1295',
  cwd: '/work',
  tool: 'Bash',
  input: 'touch lab-approved.txt',
  kind: 'permission',
  questions: [],
  at: T0,
  expiresAt: T0 + HOLD_MS,
  // This test process: alive for as long as the test runs.
  pid: process.pid,
  ...over,
});

const answer = (verdict: Verdict, at = T0 + 1000, via: Answer['by']['via'] = 'cli'): Answer => ({
  verdict,
  by: { via, who: 'ada', from: 'lab-host' },
  at,
});

/** A clock that moves only when a wait is asked for: each wait is the time it asks for. */
function clock(start = T0) {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
    set: (t: number) => {
      now = t;
    },
  };
}

const RENDER = (a: Answer): string | null =>
  a.verdict.kind === 'text' ? null : `decided: ${a.verdict.kind}`;

describe('holding a request', () => {
  it('delivers the first answer and journals who gave it, from where and when', async () => {
    const c = clock();
    const hold = startHold({
      dir,
      runtime,
      request: request(),
      now: c.now,
      sleep: c.sleep,
      agentPid: null,
      movedOn: () => false,
      render: RENDER,
    });
    const io = { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 5_000 };
    const [out, held] = await Promise.all([
      answerRequest(io, request(), answer({ kind: 'allow' })),
      hold.done,
    ]);
    expect(out.kind).toBe('delivered');
    expect(held).toEqual({ kind: 'delivered', answer: answer({ kind: 'allow' }), output: 'decided: allow' });
    const journal = readApprovalJournal(runtime);
    expect(journal).toEqual([
      {
        kind: 'settled',
        request: request(),
        settlement: { kind: 'delivered', answer: answer({ kind: 'allow' }), at: expect.any(Number) },
      },
    ]);
  });

  it('refuses a second answer, naming the first and who gave it', async () => {
    const c = clock();
    registerRequest(dir, request(), c.now());
    const io = { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 0 };
    const first = await answerRequest(io, request(), answer({ kind: 'deny', reason: 'not today' }));
    expect(first.kind).toBe('unconfirmed');
    const second = await answerRequest(io, request(), answer({ kind: 'allow' }, T0 + 2000, 'dashboard'));
    expect(second).toMatchObject({
      kind: 'refused',
      why: 'taken',
      words: 'already answered (deny: not today) by ada via cli',
    });
  });

  it('releases at its bound, printing nothing, and a later answer is told the hold ran out', async () => {
    const c = clock();
    const hold = startHold({
      dir,
      runtime,
      request: request(),
      now: c.now,
      sleep: c.sleep,
      agentPid: null,
      movedOn: () => false,
      render: RENDER,
    });
    expect(await hold.done).toEqual({ kind: 'released', why: 'timeout' });
    expect(c.now()).toBe(T0 + HOLD_MS);
    const late = await answerRequest(
      { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 0 },
      request(),
      answer({ kind: 'allow' }, c.now()),
    );
    expect(late).toMatchObject({
      kind: 'refused',
      why: 'closed',
      words: 'no longer open: its hold ran out: only the agent’s own dialog can answer it now',
    });
    expect(readApprovalJournal(runtime).map((j) => j.kind)).toEqual(['settled', 'refused']);
  });

  it('does not deliver an answer that came after the agent’s own dialog was answered', async () => {
    const c = clock();
    let answeredAtTerminal = false;
    const hold = startHold({
      dir,
      runtime,
      request: request(),
      now: c.now,
      sleep: c.sleep,
      agentPid: null,
      // The transcript shows the call ran once the answer file is there (the person was a moment faster).
      movedOn: () => answeredAtTerminal,
      render: RENDER,
    });
    const io = { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 5_000 };
    answeredAtTerminal = true;
    const [out, held] = await Promise.all([
      answerRequest(io, request(), answer({ kind: 'deny', reason: null })),
      hold.done,
    ]);
    expect(held).toEqual({ kind: 'released', why: 'moved-on' });
    expect(out).toMatchObject({
      kind: 'refused',
      words: 'not taken: the session moved on: it was answered in the agent’s own dialog',
    });
  });

  it('releases when the agent is gone', async () => {
    const c = clock();
    // A pid no process has: the kernel's limit is far below it.
    const gone = 2 ** 30;
    const hold = startHold({
      dir,
      runtime,
      request: request(),
      now: c.now,
      sleep: c.sleep,
      agentPid: gone,
      movedOn: () => false,
      render: RENDER,
    });
    expect(await hold.done).toEqual({ kind: 'released', why: 'agent-gone' });
  });

  it('a stop from a signal settles the request as the agent giving up', async () => {
    const c = clock();
    let stop = () => {};
    const hold = startHold({
      dir,
      runtime,
      request: request(),
      now: c.now,
      sleep: async (ms) => {
        await c.sleep(ms);
        stop();
      },
      agentPid: null,
      movedOn: () => false,
      render: RENDER,
    });
    stop = () => hold.stop('hook-ended');
    expect(await hold.done).toEqual({ kind: 'released', why: 'hook-ended' });
    expect(settlementOf(dir, request().id)).toMatchObject({ kind: 'released', why: 'hook-ended' });
  });
});

describe('what an answer must be', () => {
  it('words for a yes/no request are refused before they are written', async () => {
    const c = clock();
    registerRequest(dir, request(), c.now());
    const out = await answerRequest(
      { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 0 },
      request(),
      answer({ kind: 'text', text: 'sure' }),
    );
    expect(out).toMatchObject({ kind: 'refused', why: 'unusable' });
    // Still open: the refused words took nothing.
    expect(openRequests(dir, c.now()).map((r) => r.id)).toEqual([request().id]);
  });

  it('a bare allow for a question is refused: it wants words', async () => {
    const c = clock();
    const q = request({ kind: 'question', tool: 'AskUserQuestion', questions: ['Which colour?'] });
    registerRequest(dir, q, c.now());
    const out = await answerRequest(
      { dir, runtime, now: c.now, sleep: c.sleep, confirmMs: 0 },
      q,
      answer({ kind: 'allow' }),
    );
    expect(out).toMatchObject({
      kind: 'refused',
      words: 'not taken: it asks a question: answer it with words (--answer TEXT), or deny it',
    });
  });
});

describe('the files', () => {
  it('keep the folder to its owner (0700) and each file to its owner (0600)', () => {
    registerRequest(dir, request(), T0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir))
      expect([name, statSync(join(dir, name)).mode & 0o777]).toEqual([name, 0o600]);
  });

  it('a request id that is not 32 hex digits names no file', () => {
    registerRequest(dir, request(), T0);
    expect(readRequestFile(dir, `../${'a'.repeat(32)}`)).toBeNull();
    expect(readRequestFile(dir, 'a'.repeat(31))).toBeNull();
    expect(readRequestFile(dir, 'a'.repeat(32))?.session).toBe(request().session);
  });

  it('a session is picked by its whole id or the start of one, and two sessions sharing a start are named', () => {
    registerRequest(dir, request(), T0);
    registerRequest(dir, request({ id: 'b'.repeat(32), session: '590ab5e8-ffff', at: T0 + 1 }), T0);
    expect(pickSession(dir, '590ab5e8', T0)).toEqual({
      kind: 'ambiguous',
      sessions: ['590ab5e8-9a56-44f5-9897-e198d98e1295', '590ab5e8-ffff'],
    });
    expect(pickSession(dir, '590ab5e8-ff', T0)).toMatchObject({
      kind: 'found',
      requests: [{ id: 'b'.repeat(32) }],
    });
    expect(pickSession(dir, 'nothing', T0)).toEqual({ kind: 'none' });
  });
});
