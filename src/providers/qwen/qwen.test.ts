import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { LAB_CASES, labHome } from '../../test-support/lines.js';
import { readCold } from '../../test-support/snapshot.js';
import { labRequestTools, secondCallRenamed } from '../../test-support/tools.js';
import { qwen } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['qwen'], nowMs: NOW });

const chats = (home: FakeHome, ...parts: string[]) =>
  join(home.dir, '.qwen', 'projects', '-tmp-qwentest', 'chats', ...parts);

/**
 * What Qwen Code 0.24.4 wrote in each recorded lab case (`lab/fixtures/qwen/<case>/`), worked out apart
 * from cctop: the sums of the figures the lab server answered with (its `ledger.json`; each response
 * is written again in a `ui_telemetry` record, which must not count twice), the calls it scripted, the
 * one failure of the `fail` script, and the prompt of its newest request as the context.
 */
const LAB: Record<
  (typeof LAB_CASES)[number],
  {
    input: number;
    cacheRead: number;
    output: number;
    reasoning: number;
    requests: number;
    calls: number;
    failed: number;
    context: number;
  }
> = {
  text: {
    input: 9_005,
    cacheRead: 9_004,
    output: 15,
    reasoning: 4,
    requests: 1,
    calls: 0,
    failed: 0,
    context: 18_009,
  },
  call: {
    input: 18_065,
    cacheRead: 18_065,
    output: 36,
    reasoning: 11,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 18_120,
  },
  fail: {
    input: 18_070,
    cacheRead: 18_069,
    output: 44,
    reasoning: 15,
    requests: 2,
    calls: 1,
    failed: 1,
    context: 18_127,
  },
  parallel: {
    input: 18_121,
    cacheRead: 18_120,
    output: 52,
    reasoning: 19,
    requests: 2,
    calls: 2,
    failed: 0,
    context: 18_223,
  },
  resume: {
    input: 27_157,
    cacheRead: 27_155,
    output: 93,
    reasoning: 36,
    requests: 3,
    calls: 1,
    failed: 0,
    context: 18_168,
  },
};

describe('Qwen Code 0.24.4 chats recorded in the conformance lab', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  for (const name of LAB_CASES) {
    it(`${name}: tokens, requests (telemetry not counted again), calls, failures and context`, async () => {
      const want = LAB[name];
      cpSync(labHome('qwen', name), home.dir, { recursive: true });
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        reasoning: want.reasoning,
        cacheWrite: null,
      });
      expect(s.requests).toBe(want.requests);
      expect(s.tools).toMatchObject({ calls: want.calls, failed: want.failed });
      expect(s.context.used).toBe(want.context);
      expect(s.model).toBe('qwen3-coder-plus');
    });
  }

  it('identity, project and title come from the records', async () => {
    cpSync(labHome('qwen', 'fail'), home.dir, { recursive: true });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('f4585b58-5d50-40e8-929f-fd6f4d623930');
    expect(s.project).toBe('/tmp/cctop-lab-qwen-p7xgEs/fail/work');
    expect(s.title).toBe('[lab:fail] Follow the lab script fail.');
    expect(s.tools.byTool).toEqual({ run_shell_command: { calls: 1, failed: 1 } });
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('a Qwen Code chat from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
    });
    afterEach(() => home.cleanup());

    // Real, Qwen Code 0.18.1; read by hand: two assistant responses (500 + 600 prompt, 50 of it
    // cached; 20 + 5 out), each repeated in a `ui_telemetry` line that must not count again; one
    // `list_directory` call that failed (a relative path).
    it('splitrail qwen_code.jsonl: two requests, not four; the failed call; the project from the records', async () => {
      const id = '69f0814a-8bfc-4c8e-93d3-05757f17b96f';
      home.copy(
        corpus('other-agents', 'qwen-code', 'splitrail__qwen_code.jsonl'),
        chats(home, `${id}.jsonl`),
      );
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.id).toBe(id);
      expect(s.requests).toBe(2);
      expect(s.tokens).toEqual({ input: 1050, output: 25, cacheRead: 50, cacheWrite: null, reasoning: 0 });
      expect(s.tools.byTool).toEqual({ list_directory: { calls: 1, failed: 1 } });
      expect(s.project).toBe('/tmp/qwentest');
      expect(s.title).toBe('List the files here.');
      expect(s.model).toBe('coder-model');
      expect(s.context.used).toBe(600);
      expect(s.cost.usd).toBeNull();
    });
  });
}

/** Lines written for these tests in the shape Qwen Code 0.18 records. */
describe('Qwen Code chat lines (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  let n = 0;
  const line = (type: string, extra: Record<string, unknown>) => ({
    uuid: `u-${++n}`,
    sessionId: 'q1',
    timestamp: '2026-11-29T10:00:00.000Z',
    type,
    cwd: '/work/app',
    ...extra,
  });

  it('thoughts already inside the candidates (the total says so) are not added again', async () => {
    home.write(
      chats(home, 'q1.jsonl'),
      jsonl(
        line('assistant', {
          model: 'qwen3-coder-plus',
          message: { role: 'model', parts: [{ text: 'hi' }] },
          usageMetadata: {
            promptTokenCount: 100,
            candidatesTokenCount: 30,
            thoughtsTokenCount: 10,
            totalTokenCount: 130,
          },
        }),
        line('assistant', {
          model: 'qwen3-coder-plus',
          message: { role: 'model', parts: [{ text: 'hi' }] },
          usageMetadata: {
            promptTokenCount: 100,
            candidatesTokenCount: 30,
            thoughtsTokenCount: 10,
            totalTokenCount: 140,
          },
        }),
      ),
    );
    expect((await snap(home)).document.sessions[0]!.tokens).toMatchObject({ output: 30 + 40, reasoning: 20 });
  });

  it('a response whose every call was cancelled (refused, or stopped while it waited or ran) ends the turn: the session reads idle, interrupted', async () => {
    const recent = new Date(NOW - 60_000).toISOString();
    const at = (id: string, type: string, extra: Record<string, unknown>) =>
      line(type, { sessionId: id, timestamp: recent, ...extra });
    const calls = (id: string, ...ids: string[]) =>
      at(id, 'assistant', {
        model: 'qwen3-coder-plus',
        message: {
          role: 'model',
          parts: ids.map((c) => ({ functionCall: { id: c, name: 'run_shell_command', args: {} } })),
        },
      });
    const result = (id: string, call: string, status: string) =>
      at(id, 'tool_result', {
        message: { role: 'user', parts: [{ functionResponse: { id: call, response: {} } }] },
        toolCallResult: { callId: call, status },
      });
    const session = (id: string, ...lines: Record<string, unknown>[]) =>
      home.write(
        chats(home, `${id}.jsonl`),
        jsonl(at(id, 'user', { message: { role: 'user', parts: [{ text: 'go' }] } }), ...lines),
        NOW - 60_000,
      );
    session('refused', calls('refused', 'c1'), result('refused', 'c1', 'cancelled'));
    // One call ran: Qwen Code sends both results to the model, and the turn goes on.
    session(
      'ran',
      calls('ran', 'c1', 'c2'),
      result('ran', 'c1', 'success'),
      result('ran', 'c2', 'cancelled'),
    );
    // A call still open: the turn is not over.
    session('open', calls('open', 'c1', 'c2'), result('open', 'c1', 'cancelled'));
    // A later response with a call, after a turn that ended so: the new call is the turn's.
    session(
      'again',
      calls('again', 'c1'),
      result('again', 'c1', 'cancelled'),
      at('again', 'user', { message: { role: 'user', parts: [{ text: 'again' }] } }),
      calls('again', 'c2'),
    );
    const doc = (await snap(home)).document;
    const read = (id: string) => {
      const s = doc.sessions.find((x) => x.id === id)!;
      return [s.state, s.stateDetail];
    };
    expect(read('refused')).toEqual(['idle', 'interrupted']);
    expect(read('ran')[0]).toBe('working');
    expect(read('open')[0]).toBe('working');
    expect(read('again')[0]).toBe('working');
    // A refused call did not fail.
    expect(doc.sessions.find((x) => x.id === 'refused')!.tools.failed).toBe(0);
  });

  it('a chat compression is a compaction', async () => {
    home.write(
      chats(home, 'q1.jsonl'),
      jsonl(line('system', { subtype: 'chat_compression', systemPayload: {} })),
    );
    expect((await snap(home)).document.sessions[0]!.compactions).toBe(1);
  });

  it('$QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen', async () => {
    expect(qwen.roots({ HOME: '/h' })).toEqual([{ path: '/h/.qwen', origin: 'default' }]);
    expect(qwen.roots({ HOME: '/h', QWEN_HOME: '/q' })).toEqual([{ path: '/q', origin: '$QWEN_HOME' }]);
    expect(qwen.roots({ HOME: '/h', QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '/r' })).toEqual([
      { path: '/r', origin: '$QWEN_RUNTIME_DIR' },
    ]);
    home.write(
      join(home.dir, 'rt', 'projects', 'p', 'chats', 'q9.jsonl'),
      jsonl(line('user', { sessionId: 'q9' })),
    );
    const doc = (await snap(home, { QWEN_RUNTIME_DIR: join(home.dir, 'rt') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['q9']);
  });
});

describe('which tools each Qwen Code 0.24.4 request called (the lab’s recorded runs)', () => {
  it('a response calling run_shell_command twice called that one tool; the text answer after it called none', () => {
    expect(labRequestTools('qwen', 'parallel')).toEqual([['run_shell_command'], []]);
  });

  it('a response calling two different tools called both', () => {
    expect(labRequestTools('qwen', 'parallel', secondCallRenamed('read_file'))).toEqual([
      ['read_file', 'run_shell_command'],
      [],
    ]);
  });
});
