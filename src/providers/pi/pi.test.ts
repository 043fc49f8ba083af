import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { LAB_CASES, labHome } from '../../test-support/lines.js';
import { readCold } from '../../test-support/snapshot.js';
import { labRequestTools, secondCallRenamed } from '../../test-support/tools.js';
import { pi } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['pi'], nowMs: NOW });

const sessions = (home: FakeHome, ...parts: string[]) => join(home.dir, '.pi', 'agent', 'sessions', ...parts);

/**
 * What Pi 0.73.1 wrote in each recorded lab case (`lab/fixtures/pi/<case>/`), worked out apart from
 * cctop: the sums of the figures the lab server answered with (its `ledger.json`), the calls it
 * scripted, the one failure of the `fail` script, and the prompt of its newest request as the context.
 * Pi records no reasoning apart from output: unknown, not 0.
 */
const LAB: Record<
  (typeof LAB_CASES)[number],
  {
    input: number;
    cacheRead: number;
    output: number;
    requests: number;
    calls: number;
    failed: number;
    context: number;
  }
> = {
  text: { input: 716, cacheRead: 716, output: 15, requests: 1, calls: 0, failed: 0, context: 1_432 },
  call: { input: 1_463, cacheRead: 1_462, output: 36, requests: 2, calls: 1, failed: 0, context: 1_492 },
  fail: { input: 1_470, cacheRead: 1_469, output: 44, requests: 2, calls: 1, failed: 1, context: 1_504 },
  parallel: { input: 1_493, cacheRead: 1_492, output: 52, requests: 2, calls: 2, failed: 0, context: 1_545 },
  resume: { input: 2_240, cacheRead: 2_238, output: 93, requests: 3, calls: 1, failed: 0, context: 1_540 },
};

describe('Pi 0.73.1 sessions recorded in the conformance lab', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  for (const name of LAB_CASES) {
    it(`${name}: tokens, requests, tool calls, failures and context are what the server answered`, async () => {
      const want = LAB[name];
      cpSync(labHome('pi', name), home.dir, { recursive: true });
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        cacheWrite: 0,
        reasoning: null,
      });
      expect(s.requests).toBe(want.requests);
      expect(s.tools).toMatchObject({ calls: want.calls, failed: want.failed });
      expect(s.context.used).toBe(want.context);
    });
  }

  it('identity, project, model and effort from the session; Pi’s zero cost left to the catalogue, which does not know the model', async () => {
    cpSync(labHome('pi', 'call'), home.dir, { recursive: true });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('01a2338e-ef32-7318-bb71-074e4deb887d');
    expect(s.project).toBe('/tmp/cctop-lab-pi-KNFaqE/call/work');
    expect(s.model).toBe('lab-model');
    expect(s.reasoningEffort).toBe('off');
    expect(s.title).toBe('[lab:call] Follow the lab script call.');
    expect(s.cost.usd).toBeNull();
    expect(s.cost.unpriced).toEqual(['lab-model']);
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('a Pi session from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
    });
    afterEach(() => home.cleanup());

    // Written by pi (session format 3) against a fixture model; read by hand: two responses of 12 in,
    // 7 out, priced at 0 by Pi (a model it has no price for), two compactions.
    it('pi-small: two responses, Pi’s zero cost left to the catalogue (which does not know the model)', async () => {
      home.copy(
        corpus('other-agents', 'pi', 'agent-sessions__pi-small.jsonl'),
        sessions(home, '--tmp-as-agent-fixture-project--', '2026-05-12T01-02-27-657Z_019e19b4.jsonl'),
      );
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.id).toBe('019e19b4-eb48-746a-aa6b-8dfcfa37954b');
      expect(s.project).toBe('/tmp/as-agent-fixture/project');
      expect(s.tokens).toEqual({ input: 24, output: 14, cacheRead: 0, cacheWrite: 0, reasoning: null });
      expect(s.requests).toBe(2);
      expect(s.model).toBe('pi-fixture-model');
      expect(s.cost.usd).toBeNull();
      expect(s.cost.unpriced).toEqual(['pi-fixture-model']);
      expect(s.compactions).toBe(2);
      expect(s.reasoningEffort).toBe('off');
      expect(s.title).toBe('Read hello.py and summarize what it prints without editing files.');
      expect(s.context.used).toBe(12);
    });
  });
}

/** Lines written for these tests in Pi's session format 3 (pi-ai messages inside `message` entries). */
describe('Pi session lines (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const header = {
    type: 'session',
    version: 3,
    id: 'pi-1',
    timestamp: '2026-11-29T10:00:00.000Z',
    cwd: '/work/app',
  };
  let n = 0;
  const entry = (message: Record<string, unknown>, at = '2026-11-29T10:00:01.000Z') => ({
    type: 'message',
    id: `e${++n}`,
    parentId: null,
    timestamp: at,
    message: { timestamp: Date.parse(at) + n, ...message },
  });
  const answer = (
    o: { cost?: number; calls?: string[]; stop?: string; error?: string; reasoning?: number } = {},
  ) =>
    entry({
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      content: (o.calls ?? []).map((name, i) => ({
        type: 'toolCall',
        id: `t${n}-${i}`,
        name,
        arguments: {},
      })),
      usage: {
        input: 100,
        output: 20,
        cacheRead: 1000,
        cacheWrite: 50,
        ...(o.reasoning === undefined ? {} : { reasoning: o.reasoning }),
        totalTokens: 1170,
        cost: { total: o.cost ?? 0 },
      },
      stopReason: o.stop ?? 'stop',
      ...(o.error ? { errorMessage: o.error } : {}),
    });

  it('each compaction entry is a compaction', async () => {
    // As Pi 0.73 writes one: the summary, the first entry kept, the size before.
    const compaction = (id: string) => ({
      type: 'compaction',
      id,
      parentId: null,
      timestamp: '2026-11-29T10:00:02.000Z',
      summary: 'The session so far, in short.',
      firstKeptEntryId: 'e1',
      tokensBefore: 1170,
      details: { readFiles: [], modifiedFiles: [] },
      fromHook: false,
    });
    home.write(
      sessions(home, '--work-app--', 'a.jsonl'),
      jsonl(header, answer(), compaction('c1'), answer(), compaction('c2')),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.compactions).toBe(2);
    expect(s.requests).toBe(2);
  });

  it('Pi’s own cost is kept as reported when above zero', async () => {
    home.write(sessions(home, '--work-app--', 'a.jsonl'), jsonl(header, answer({ cost: 0.0123 })));
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.cost.usd).toBeCloseTo(0.0123, 9);
    expect(s.cost.source).toBe('reported');
    expect(s.tokens).toEqual({ input: 100, output: 20, cacheRead: 1000, cacheWrite: 50, reasoning: null });
    expect(s.context.used).toBe(1150);
  });

  it('reasoning inside output (the total says so) is reported, not added again', async () => {
    home.write(sessions(home, '--work-app--', 'a.jsonl'), jsonl(header, answer({ reasoning: 8 })));
    expect((await snap(home)).document.sessions[0]!.tokens).toMatchObject({ output: 20, reasoning: 8 });
  });

  it('tool results with isError are failures; the name the user gave is the title', async () => {
    home.write(
      sessions(home, '--work-app--', 'a.jsonl'),
      jsonl(
        header,
        { type: 'session_info', id: 'i1', timestamp: '2026-11-29T10:00:00.500Z', name: 'Parser rewrite' },
        answer({ calls: ['bash', 'read'], stop: 'toolUse' }),
        entry({ role: 'toolResult', toolCallId: `t${n}-0`, toolName: 'bash', isError: true, content: [] }),
        entry({ role: 'toolResult', toolCallId: `t${n}-1`, toolName: 'read', isError: false, content: [] }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools.byTool).toEqual({ bash: { calls: 1, failed: 1 }, read: { calls: 1, failed: 0 } });
    expect(s.title).toBe('Parser rewrite');
  });

  it('a response that ended in error leaves the session in error; an aborted one counts as an abort', async () => {
    const recent = new Date(NOW - 10_000).toISOString();
    home.write(
      sessions(home, '--work-app--', 'a.jsonl'),
      jsonl({ ...header, id: 'a' }, entry({ role: 'user', content: 'go' }, recent), {
        ...answer({ stop: 'error', error: '429 rate limit' }),
        timestamp: recent,
      }),
    );
    home.write(
      sessions(home, '--work-app--', 'b.jsonl'),
      jsonl({ ...header, id: 'b' }, { ...answer({ stop: 'aborted' }), timestamp: recent }),
    );
    const doc = (await snap(home)).document;
    const a = doc.sessions.find((s) => s.id === 'a')!;
    const b = doc.sessions.find((s) => s.id === 'b')!;
    expect([a.state, a.stateDetail]).toEqual(['error', '429 rate limit']);
    expect([b.state, b.aborts]).toEqual(['idle', 1]);
  });

  it('$PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions', async () => {
    expect(pi.roots({ HOME: '/h' })).toEqual([{ path: '/h/.pi/agent/sessions', origin: 'default' }]);
    expect(pi.roots({ HOME: '/h', PI_CODING_AGENT_DIR: '/a' })).toEqual([
      { path: '/a/sessions', origin: '$PI_CODING_AGENT_DIR' },
    ]);
    expect(pi.roots({ HOME: '/h', PI_CODING_AGENT_DIR: '/a', PI_CODING_AGENT_SESSION_DIR: '/s' })).toEqual([
      { path: '/s', origin: '$PI_CODING_AGENT_SESSION_DIR' },
    ]);
    home.write(join(home.dir, 'agent', 'sessions', '--x--', 'a.jsonl'), jsonl({ ...header, id: 'moved' }));
    const doc = (await snap(home, { PI_CODING_AGENT_DIR: join(home.dir, 'agent') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['moved']);
  });
});

describe('which tools each Pi 0.73.1 request called (the lab’s recorded runs)', () => {
  it('a response calling bash twice called that one tool; the text answer after it called none', () => {
    expect(labRequestTools('pi', 'parallel')).toEqual([['bash'], []]);
  });

  it('a response calling two different tools called both', () => {
    expect(labRequestTools('pi', 'parallel', secondCallRenamed('read'))).toEqual([['bash', 'read'], []]);
  });
});
