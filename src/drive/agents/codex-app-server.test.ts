/**
 * One `codex app-server` conversation, driven line by line without a process, over what codex-cli
 * 0.169.0 wrote in the conformance lab against the stand-in model server
 * (`lab/fixtures/drive/codex-app-server/`, each test names its recording). What drive writes back is
 * compared with what was sent to the real server when the recording was made, and usage with the
 * ledger the lab server kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_PENDING_APPROVALS } from '../bounds.js';
import { isDriveError } from '../errors.js';
import type { Event } from '../events.js';
import type { Request } from '../request.js';
import {
  CODEX_APP_SERVER_FIXTURES,
  codexLines,
  codexPlan,
  recording,
  replay,
} from '../test-support/codex-app-server.js';
import { threadParams } from './codex-app-server.js';
import { denialWords } from './codex-app-server-approvals.js';

interface Figures {
  input: number;
  cacheRead: number;
  output: number;
  reasoning: number;
}
const ledger = (name: string): { figures: Figures; prompt: number; script: string }[] =>
  JSON.parse(readFileSync(join(CODEX_APP_SERVER_FIXTURES, `${name}.ledger.json`), 'utf8'));
const sum = (xs: { figures: Figures }[], k: keyof Figures) => xs.reduce((a, e) => a + e.figures[k], 0);

const kinds = (events: Event[]) => events.map((e) => e.kind);
const ofKind = <K extends Event['kind']>(events: Event[], kind: K) =>
  events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind);
/** What drive wrote, by method (requests and notifications) or as the reply to Codex's request `id`. */
const methods = (written: Record<string, unknown>[]) => written.map((m) => m.method ?? `reply ${m.id}`);

describe('an approval through codex app-server', () => {
  it('is asked, allowed, and the command runs; answer and usage arrive as the server counted them', () => {
    const r = replay();
    const events = r.feed(codexLines('approve-allowed'), (e, c) => {
      if (e.kind === 'approval_request') c.answer(e.id, { behavior: 'allow' });
    });
    expect(kinds(events).filter((k) => k !== 'usage')).toEqual([
      'started',
      'tool_call',
      'approval_request',
      'tool_result',
      'text',
    ]);
    const command = "/bin/bash -lc 'touch lab-approved.txt && echo lab-touched'";
    expect(ofKind(events, 'approval_request')[0]).toMatchObject({
      id: '0',
      tool: 'exec_command',
      input: { command },
    });
    expect(ofKind(events, 'tool_call')[0]).toMatchObject({
      id: 'call_lab_1',
      name: 'exec_command',
      input: { command },
    });
    expect(ofKind(events, 'tool_result')[0]).toMatchObject({ ok: true, output: 'lab-touched\n' });
    expect(methods(r.written)).toEqual([
      'initialize',
      'initialized',
      'thread/start',
      'turn/start',
      'reply 0',
    ]);
    expect(r.written[4]).toMatchObject({ id: 0, result: { decision: 'accept' } });

    const calls = ledger('approve-allowed');
    const t = r.c.terminal();
    expect(r.c.sawTerminal).toBe(true);
    expect(t.stop).toEqual({ kind: 'completed' });
    expect(t.text).toBe('Done with the file.');
    expect(t.model).toBe('gpt-5-codex');
    expect(t.usage).toMatchObject({
      input: sum(calls, 'input'),
      cacheRead: sum(calls, 'cacheRead'),
      cacheWrite: null,
      output: sum(calls, 'output'),
      reasoning: sum(calls, 'reasoning'),
      contextTokens: calls.at(-1)!.prompt,
      contextWindow: 258400,
    });
    expect(t.threadUsage?.output).toBe(sum(calls, 'output'));
    // The turn is over: stdin ended, and the runner told so.
    expect(r.ended()).toBe(true);
    expect(r.host.settled).toBe(1);
    // The runner abandons the conversation before it reads the outcome: the turn stays settled.
    r.c.abandon();
    expect(r.c.sawTerminal).toBe(true);
  });

  it('sends the thread the sandbox and approval policy the plan asks for', () => {
    const r = replay({ model: 'gpt-lab', effort: 'high', schema: { type: 'object' } });
    r.feed(codexLines('approve-allowed').slice(0, 4));
    const [, , thread, turn] = r.written;
    expect(thread).toMatchObject({
      method: 'thread/start',
      params: {
        cwd: process.cwd(),
        sandbox: 'workspace-write',
        approvalPolicy: 'untrusted',
        model: 'gpt-lab',
      },
    });
    expect(turn).toMatchObject({
      method: 'turn/start',
      params: {
        threadId: expect.any(String),
        effort: 'high',
        outputSchema: { type: 'object' },
        input: [{ type: 'text', text: '[lab:approve] Follow the lab script approve.' }],
      },
    });
  });

  it('denied with a reason: the reason goes into the turn first, then the call is declined', () => {
    const r = replay();
    const events = r.feed(codexLines('approve-denied-with-reason'), (e, c) => {
      if (e.kind === 'approval_request') c.answer(e.id, { behavior: 'deny', reason: 'the lab says no' });
    });
    expect(methods(r.written).slice(4)).toEqual(['turn/steer', 'reply 0']);
    expect(r.written[4]).toMatchObject({
      params: {
        expectedTurnId: expect.any(String),
        input: [{ type: 'text', text: denialWords('the lab says no') }],
      },
    });
    expect(r.written[5]).toMatchObject({ result: { decision: 'decline' } });
    expect(ofKind(events, 'tool_result').map((e) => e.ok)).toEqual([false]);
    // In the lab the model was told both: the refused call and the reason, in one request.
    const told = recording('approve-denied-with-reason').find(
      (l) =>
        l.dir === 'codex' &&
        (l.line?.params as { item?: { type?: string; content?: { text?: string }[] } })?.item?.type ===
          'userMessage' &&
        JSON.stringify(l.line).includes('the lab says no'),
    );
    expect(told).toBeDefined();
  });

  it('denied without a reason is only declined', () => {
    const r = replay();
    r.feed(codexLines('approve-declined'), (e, c) => {
      if (e.kind === 'approval_request') c.answer(e.id, { behavior: 'deny' });
    });
    expect(methods(r.written).slice(4)).toEqual(['reply 0']);
    expect(r.written[4]).toMatchObject({ result: { decision: 'decline' } });
  });

  it('on a run that did not ask for approvals is declined for the caller and never shown', () => {
    const r = replay({ approvals: false, interactive: true });
    const events = r.feed(codexLines('approve-declined'));
    expect(kinds(events)).not.toContain('approval_request');
    expect(r.written[2]).toMatchObject({ params: { approvalPolicy: 'never' } });
    expect(r.written.at(-1)).toMatchObject({ id: 0, result: { decision: 'decline' } });
  });

  it('waits for each of several parallel approvals, answered by its own id', () => {
    const r = replay();
    const asked: string[] = [];
    const events = r.feed(codexLines('approvals-parallel'), (e, c) => {
      if (e.kind !== 'approval_request') return;
      asked.push(e.id);
      if (asked.length === 2) for (const id of asked) c.answer(id, { behavior: 'allow' });
    });
    expect(asked).toEqual(['0', '1']);
    expect(ofKind(events, 'tool_result').map((e) => e.ok)).toEqual([true, true]);
  });

  it(`keeps at most ${MAX_PENDING_APPROVALS} waiting; the next is declined at once`, () => {
    const lines = codexLines('approve-allowed');
    const ask = lines.findIndex((l) => l.includes('requestApproval'));
    const request = JSON.parse(lines[ask]!) as { id: number };
    const flood = Array.from({ length: MAX_PENDING_APPROVALS + 1 }, (_, i) =>
      JSON.stringify({ ...request, id: i }),
    );
    const r = replay();
    const events = r.feed([...lines.slice(0, ask), ...flood]);
    expect(ofKind(events, 'approval_request')).toHaveLength(MAX_PENDING_APPROVALS);
    expect(r.written.at(-1)).toMatchObject({ id: MAX_PENDING_APPROVALS, result: { decision: 'decline' } });
  });

  it('cannot carry changed arguments, and an id that is not waiting is no answer', () => {
    const r = replay();
    const lines = codexLines('approve-allowed');
    r.feed(lines.slice(0, lines.findIndex((l) => l.includes('requestApproval')) + 1));
    expect(r.c.answer('7', { behavior: 'allow' })).toBe(false);
    let refused: unknown;
    try {
      r.c.answer('0', { behavior: 'allow', updatedInput: { command: 'true' } });
    } catch (e) {
      refused = e;
    }
    expect(isDriveError(refused) && refused.failure.kind).toBe('unsupported');
  });
});

describe('a codex app-server turn', () => {
  it('takes a message mid-turn as a steer; only the call Codex finished counts', () => {
    const r = replay({
      approvals: false,
      interactive: true,
      prompt: '[lab:hold] Follow the lab script hold.',
    });
    const lines = codexLines('steer');
    const started = lines.findIndex((l) => l.includes('"turn/started"'));
    r.feed(lines.slice(0, started + 1));
    r.c.send('Also: mention the steer.');
    const events = r.feed(lines.slice(started + 1));
    expect(r.written[4]).toMatchObject({
      method: 'turn/steer',
      params: { input: [{ type: 'text', text: 'Also: mention the steer.' }] },
    });
    const counted = ledger('steer').slice(1);
    expect(r.c.terminal().usage.input).toBe(sum(counted, 'input'));
    expect(ofKind(events, 'usage')).toHaveLength(1);
    expect(r.c.terminal().text).toBe('The held answer arrives.');
  });

  it('sends a message given before the turn began along with the prompt', () => {
    const r = replay({ approvals: false, interactive: true });
    r.c.send('and one more thing');
    r.feed(codexLines('steer').slice(0, 4));
    expect(r.written[3]).toMatchObject({
      method: 'turn/start',
      params: {
        input: [{ text: '[lab:approve] Follow the lab script approve.' }, { text: 'and one more thing' }],
      },
    });
  });

  it("on a resumed thread counts this run's calls; the replayed total is the thread's", () => {
    const calls = ledger('resume');
    const thread = recording('resume').find(
      (l) => l.dir === 'codex' && l.process === 0 && (l.line?.result as { thread?: { id: string } })?.thread,
    );
    const id = (thread!.line!.result as { thread: { id: string } }).thread.id;
    const r = replay({ approvals: false, interactive: true, resume: id });
    r.feed(codexLines('resume', 1));
    expect(r.written[2]).toMatchObject({
      method: 'thread/resume',
      params: { threadId: id, excludeTurns: true },
    });
    const mine = calls.filter((e) => e.script === 'resume');
    const t = r.c.terminal();
    expect(t.session).toBe(id);
    expect(t.usage.input).toBe(sum(mine, 'input'));
    expect(t.usage.output).toBe(sum(mine, 'output'));
    expect(t.threadUsage?.output).toBe(sum(calls, 'output'));
  });

  it('that failed says so, with the upstream status where Codex forwards one', () => {
    for (const [name, status] of [
      ['failed-401', 401],
      ['failed-429', 429],
      ['failed-400', null],
    ] as const) {
      const r = replay({ approvals: false, interactive: true });
      r.feed(codexLines(name));
      const t = r.c.terminal();
      expect(r.c.sawTerminal).toBe(true);
      expect(t.stop).toEqual({ kind: 'error' });
      expect(t.errorStatus).toBe(status);
      expect(t.errorMessage).not.toBeNull();
    }
  });

  it('is interrupted when the run is stopped, and stdin ends', () => {
    const r = replay({ approvals: false, interactive: true });
    const lines = codexLines('interrupt');
    r.feed(lines.slice(0, lines.findIndex((l) => l.includes('"turn/started"')) + 1));
    r.c.close();
    expect(r.written.at(-1)).toMatchObject({
      method: 'turn/interrupt',
      params: { turnId: expect.any(String) },
    });
    expect(r.ended()).toBe(true);
    expect(r.c.open).toBe(false);
  });
});

describe('the codex app-server handshake', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('breaks off with a protocol error when the thread cannot be resumed', () => {
    const r = replay({ approvals: false, interactive: true, resume: '01a23589-0000-7000-8000-000000000000' });
    const lines = codexLines('resume', 1);
    r.feed([
      lines[0]!,
      '{"error":{"code":-32600,"message":"no rollout found for thread id 01a23589-0000-7000-8000-000000000000"},"id":1}',
    ]);
    expect(r.host.broke).toBe(1);
    expect(r.c.breakdown).toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining('no rollout found'),
    });
  });

  it('breaks off when the server does not open a thread in time', () => {
    vi.useFakeTimers();
    const r = replay({}, 1000);
    vi.advanceTimersByTime(1001);
    expect(r.host.broke).toBe(1);
    expect(r.c.breakdown?.kind).toBe('protocol');
  });

  it('refuses requests it does not handle at once, and counts lines that are not JSON-RPC', () => {
    const r = replay();
    r.feed(['{"id":5,"method":"item/tool/requestUserInput","params":{}}', 'WARNING: not json']);
    expect(r.written.at(-1)).toMatchObject({ id: 5, error: { code: -32601 } });
    expect(r.c.terminal()).toMatchObject({ unparsed: 1, firstUnparsed: 'WARNING: not json' });
  });
});

describe('a codex app-server thread', () => {
  it('is sandboxed and asks as the permission says; without approvals it never asks', () => {
    const params = (req: Partial<Request>) => threadParams(codexPlan(req));
    expect(params({ permission: 'edit' })).toMatchObject({
      sandbox: 'workspace-write',
      approvalPolicy: 'untrusted',
    });
    expect(params({ permission: 'plan' })).toMatchObject({
      sandbox: 'read-only',
      approvalPolicy: 'untrusted',
    });
    expect(params({ permission: 'auto' })).toMatchObject({
      sandbox: 'workspace-write',
      approvalPolicy: 'on-request',
    });
    expect(params({ permission: 'bypass' })).toMatchObject({
      sandbox: 'danger-full-access',
      approvalPolicy: 'never',
    });
    // Codex's own settings decide, as `codex exec` leaves them.
    const own = params({ permission: 'default' });
    expect('sandbox' in own || 'approvalPolicy' in own).toBe(false);
    expect(params({ permission: 'read-only', approvals: false, interactive: true })).toMatchObject({
      sandbox: 'read-only',
      approvalPolicy: 'never',
    });
  });

  it('may write in the directories added, as `codex exec --add-dir` may', () => {
    const dir = join(process.cwd(), 'src');
    expect(threadParams(codexPlan({ addDirs: [dir] }))).toMatchObject({
      config: { sandbox_workspace_write: { writable_roots: [dir] } },
    });
  });
});
