import { appendFileSync, copyFileSync, cpSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { WHOLE_FILE_CHAT_ID, WHOLE_FILE_CHAT_PROMPT, wholeFileChat } from '../../test-support/gemini-chat.js';
import { LAB_CASES, labHome } from '../../test-support/lines.js';
import { snapshotIn } from '../../test-support/snapshot.js';
import { labRequestTools, secondCallRenamed } from '../../test-support/tools.js';
import { gemini } from './index.js';
import { callFailed, shellExitCode } from './record.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, useIndex = false, env: Record<string, string> = {}) =>
  snapshotIn({ ...home.env, ...env }, { providers: ['gemini'], useIndex, nowMs: NOW, threads: 1 });

const comparable = (d: SessionDocument) => ({ ...d, generatedAt: '' });

/** A chat folder for one project, with its `.project_root` as Gemini CLI writes it. */
function chats(home: FakeHome, project = 'p1', root = '/work/app'): string {
  const dir = join(home.dir, '.gemini', 'tmp', project, 'chats');
  mkdirSync(dir, { recursive: true });
  home.write(join(home.dir, '.gemini', 'tmp', project, '.project_root'), `${root}\n`);
  return dir;
}

/**
 * What Gemini CLI 0.61.0 wrote in each recorded lab case (`lab/fixtures/gemini/<case>/`), worked out
 * apart from cctop: the sums of the figures the lab server answered with (its `ledger.json`), the calls
 * it scripted, the one failure of the `fail` script, and the prompt of its newest request as the
 * context (what it sent, cached part included).
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
    input: 5_883,
    cacheRead: 5_883,
    output: 15,
    reasoning: 4,
    requests: 1,
    calls: 0,
    failed: 0,
    context: 11_766,
  },
  call: {
    input: 11_822,
    cacheRead: 11_820,
    output: 36,
    reasoning: 11,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 11_875,
  },
  fail: {
    input: 11_827,
    cacheRead: 11_825,
    output: 44,
    reasoning: 15,
    requests: 2,
    calls: 1,
    failed: 1,
    context: 11_883,
  },
  parallel: {
    input: 11_871,
    cacheRead: 11_870,
    output: 52,
    reasoning: 19,
    requests: 2,
    calls: 2,
    failed: 0,
    context: 11_964,
  },
  resume: {
    input: 17_807,
    cacheRead: 17_804,
    output: 93,
    reasoning: 36,
    requests: 3,
    calls: 1,
    failed: 0,
    context: 11_953,
  },
};

describe('Gemini CLI 0.61.0 chats recorded in the conformance lab', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  for (const name of LAB_CASES) {
    it(`${name}: tokens, requests, tool calls, failures and context are what the server answered`, async () => {
      const want = LAB[name];
      cpSync(labHome('gemini', name), home.dir, { recursive: true });
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        reasoning: want.reasoning,
        cacheWrite: null,
      });
      expect(s.requests).toBe(want.requests);
      expect(s.tools.calls).toBe(want.calls);
      expect(s.tools.failed).toBe(want.failed);
      expect(s.context.used).toBe(want.context);
      expect(s.models).toEqual(['gemini-2.5-flash']);
      expect(s.cost.usd).not.toBeNull();
      // The project is the folder Gemini CLI named in `.project_root`.
      expect(s.project).toBe(`/tmp/cctop-lab-gemini-PuKtGq/${name}/work`);
    });
  }
});

describe('a whole-file Gemini CLI chat (the `.json` form before 0.40, written for these tests)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const write = (name = 'session-2025-10-29T09-00-c0ffee00.json') =>
    home.write(join(chats(home), name), JSON.stringify(wholeFileChat(), null, 2));

  it('tokens, requests, tool calls, failures and context, as worked out by hand', async () => {
    write();
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tokens).toEqual({
      input: 14_050,
      cacheRead: 7_000,
      output: 260,
      reasoning: 158,
      cacheWrite: null,
    });
    expect(s.requests).toBe(5);
    expect(s.tools.calls).toBe(6);
    // The `error` and the shell command that exited 1; the cancelled call did not run.
    expect(s.tools.failed).toBe(2);
    expect(s.context.used).toBe(4_450);
    expect(s.models).toEqual(['gemini-2.5-pro']);
    expect(s.cost.usd).not.toBeNull();
    expect(s.project).toBe('/work/app');
  });

  it('the session id and title come from the chat, and the window is the model’s at half for compaction', async () => {
    write();
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe(WHOLE_FILE_CHAT_ID);
    expect(s.title).toBe(WHOLE_FILE_CHAT_PROMPT);
    expect(s.context.window).toBe(1_048_576);
    expect(s.context.compactAt).toBe(524_288);
    expect(s.startedAt).toBe('2025-10-29T09:00:00.000Z');
  });

  it('a chat migrated to `.jsonl` on resume is read once, from the `.jsonl`', async () => {
    const dir = chats(home);
    write('session-a.json');
    // What Gemini CLI writes on resume: the same chat, one record a line, then whatever follows.
    const { messages, ...meta } = wholeFileChat();
    home.write(join(dir, 'session-a.jsonl'), jsonl(meta, ...messages));
    const doc = (await snap(home)).document;
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.file.endsWith('session-a.jsonl')).toBe(true);
    expect(doc.sessions[0]!.requests).toBe(5);
  });
});

/**
 * Per-file expectations for the chats in the shared corpus (Gemini CLI, gemini-2.5-pro and gemini-3 models), worked
 * out apart from cctop by a short script over the files: for each `gemini` message with `tokens`,
 * input − cached + tool, cached, output + thoughts, thoughts; every tool call, and those with status
 * `error` or a shell result ending in a non-zero `Exit Code`; the newest request's prompt (input +
 * tool) as the context. Checked only where `../shared/corpus` is present.
 */
const EXPECTED: Record<
  string,
  {
    input: number;
    cacheRead: number;
    output: number;
    reasoning: number;
    requests: number;
    calls: number;
    failed: number;
    context: number;
    model: string;
  }
> = {
  'agentcmd__session-2025-10-27T19-55-981c87cb.json': {
    input: 57_420,
    cacheRead: 45_385,
    output: 6_456,
    reasoning: 4_905,
    requests: 15,
    calls: 13,
    // A refused path, and two shell commands recorded `success` that exited 127 and 1 (`pip`).
    failed: 3,
    context: 9_198,
    model: 'gemini-2.5-pro',
  },
  'agentcmd__session-2025-10-29T10-36-453aa339.json': {
    input: 17_665,
    cacheRead: 4_029,
    output: 563,
    reasoning: 486,
    requests: 4,
    calls: 3,
    failed: 0,
    context: 5_480,
    model: 'gemini-2.5-pro',
  },
  'agentcmd__session-2025-10-29T10-36-9c9a14e1.json': {
    input: 11_068,
    cacheRead: 0,
    output: 363,
    reasoning: 319,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 5_707,
    model: 'gemini-2.5-pro',
  },
  'agentcmd__session-2025-10-29T10-36-f96c76b0.json': {
    input: 9_540,
    cacheRead: 1_362,
    output: 152,
    reasoning: 128,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 5_536,
    model: 'gemini-2.5-pro',
  },
  // A write_file that failed (status `error`).
  'agentcmd__session-2025-10-29T10-39-a63242d9.json': {
    input: 4_657,
    cacheRead: 0,
    output: 151,
    reasoning: 131,
    requests: 1,
    calls: 1,
    failed: 1,
    context: 4_657,
    model: 'gemini-2.5-pro',
  },
  'agentcmd__session-2025-10-29T10-40-359abdd0.json': {
    input: 10_312,
    cacheRead: 0,
    output: 326,
    reasoning: 301,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 5_181,
    model: 'gemini-2.5-pro',
  },
  // The large real chat: 31 requests, 62 calls (Figma MCP tools among them), two failures.
  'metaphi__session-2026-01-30T06-08-7befeae5.json': {
    input: 126_066,
    cacheRead: 927_523,
    output: 29_350,
    reasoning: 7_489,
    requests: 31,
    calls: 62,
    failed: 2,
    context: 66_309,
    model: 'gemini-3-pro-preview',
  },
  // The JSONL form (synthetic, modelled on Gemini CLI 0.40): header, messages, a `$set`.
  'agent-sessions__gemini-jsonl_v040.synthetic.jsonl': {
    input: 12_422,
    cacheRead: 11_502,
    output: 228,
    reasoning: 0,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 12_069,
    model: 'gemini-3-flash-preview',
  },
};

if (HAVE_CORPUS) {
  describe('Gemini CLI chats from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
    });
    afterEach(() => home.cleanup());

    for (const [file, want] of Object.entries(EXPECTED)) {
      it(`${file.slice(0, 52)}: tokens, requests, tool calls, failures and context`, async () => {
        const name = `session-${basename(file).replace(/^.*__(session-)?/, '')}`;
        home.copy(corpus('gemini-cli', 'sessions', file), join(chats(home), name));
        const s = (await snap(home)).document.sessions[0]!;
        expect(s.tokens).toEqual({
          input: want.input,
          cacheRead: want.cacheRead,
          output: want.output,
          reasoning: want.reasoning,
          cacheWrite: null,
        });
        expect(s.requests).toBe(want.requests);
        expect(s.tools.calls).toBe(want.calls);
        expect(s.tools.failed).toBe(want.failed);
        expect(s.context.used).toBe(want.context);
        expect(s.models).toEqual([want.model]);
        expect(s.cost.usd).not.toBeNull();
        expect(s.project).toBe('/work/app');
      });
    }
  });
}

/** Records written for these tests in the JSONL format of Gemini CLI 0.40+ (`chatRecordingTypes.ts`). */
describe('Gemini CLI chat records (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const header = {
    sessionId: 'sess-1',
    projectHash: 'abc',
    startTime: '2026-11-29T10:00:00.000Z',
    lastUpdated: '2026-11-29T10:00:00.000Z',
    kind: 'main',
  };
  const user = (id: string, text: string, at = '2026-11-29T10:00:01.000Z') => ({
    id,
    timestamp: at,
    type: 'user',
    content: [{ text }],
  });
  const reply = (
    id: string,
    t: { input: number; output: number; cached?: number; thoughts?: number; tool?: number } | null,
    calls: { name: string; status: string }[] = [],
    at = '2026-11-29T10:00:02.000Z',
  ) => ({
    id,
    timestamp: at,
    type: 'gemini',
    content: '',
    model: 'gemini-2.5-pro',
    toolCalls: calls.map((c, i) => ({ id: `${id}-c${i}`, args: {}, timestamp: at, ...c })),
    tokens:
      t === null
        ? null
        : {
            cached: 0,
            thoughts: 0,
            tool: 0,
            ...t,
            total: t.input + t.output + (t.thoughts ?? 0) + (t.tool ?? 0),
          },
  });

  it('cached tokens are inside input, thoughts are output reported as reasoning, and all add up to total', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(
        header,
        user('u1', 'hi'),
        reply('g1', { input: 1000, cached: 600, output: 50, thoughts: 30, tool: 20 }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tokens).toEqual({ input: 420, cacheRead: 600, output: 80, reasoning: 30, cacheWrite: null });
    // input + cacheRead + output is the record's own total: 1000 + 50 + 30 + 20.
    expect(s.tokens.input! + s.tokens.cacheRead! + s.tokens.output!).toBe(1100);
    expect(s.context.used).toBe(1020);
  });

  it('a message written again once its tokens arrive counts once, with the newest copy', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(
        header,
        user('u1', 'hi'),
        reply('g1', null, [{ name: 'read_file', status: 'executing' }]),
        reply('g1', { input: 100, output: 10 }, [{ name: 'read_file', status: 'error' }]),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(1);
    expect(s.tokens.input).toBe(100);
    expect(s.tools).toMatchObject({ calls: 1, failed: 1 });
  });

  it('a rewind drops the message it names and everything after: tokens, calls and prompts', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(
        header,
        user('u1', 'first question'),
        reply('g1', { input: 100, output: 10 }),
        user('u2', 'a question taken back'),
        reply('g2', { input: 200, output: 20 }, [{ name: 'run_shell_command', status: 'error' }]),
        { $rewindTo: 'u2' },
        user('u3', 'asked instead'),
        reply('g3', { input: 300, output: 30 }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(2);
    expect(s.tokens.input).toBe(400);
    expect(s.tokens.output).toBe(40);
    expect(s.tools).toMatchObject({ calls: 0, failed: 0 });
    expect(s.context.used).toBe(300);
  });

  it('a rewind to the first prompt drops its title too', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(header, user('u1', 'taken back'), { $rewindTo: 'u1' }, user('u2', 'the real question')),
    );
    expect((await snap(home)).document.sessions[0]!.title).toBe('the real question');
  });

  it('a rewind appended to a tailed chat gives the same answer as reading it cold', async () => {
    const dir = chats(home);
    const path = home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(
        header,
        user('u1', 'q1'),
        reply('g1', { input: 100, output: 10 }),
        user('u2', 'q2'),
        reply('g2', { input: 200, output: 20 }),
      ),
    );
    await snap(home, true);
    appendFileSync(
      path,
      jsonl({ $rewindTo: 'u2' }, user('u3', 'q3'), reply('g3', { input: 300, output: 30 })),
    );
    const warm = await snap(home, true);
    expect(warm.stats.tailed).toBe(1);
    expect(warm.document.sessions[0]!.tokens.input).toBe(400);
    expect(comparable(warm.document)).toEqual(comparable((await snap(home, false)).document));
  });

  it('a rewind to a message older than the open window starts the file over, and drops the same', async () => {
    const dir = chats(home);
    const records: unknown[] = [header];
    for (let i = 0; i < 100; i++)
      records.push(user(`u${i}`, `q${i}`), reply(`g${i}`, { input: 10, output: 1 }));
    const path = home.write(join(dir, 'session-x.jsonl'), jsonl(...records));
    expect((await snap(home, true)).document.sessions[0]!.requests).toBe(100);
    appendFileSync(path, jsonl({ $rewindTo: 'u3' }));
    const warm = await snap(home, true);
    expect(warm.document.sessions[0]!.requests).toBe(3);
    expect(warm.document.sessions[0]!.tokens.input).toBe(30);
    expect(comparable(warm.document)).toEqual(comparable((await snap(home, false)).document));
  });

  it('a growing chat is tailed, and the totals match a cold read at every step', async () => {
    const dir = chats(home);
    const path = home.write(join(dir, 'session-x.jsonl'), jsonl(header));
    for (let i = 0; i < 80; i++) {
      appendFileSync(path, jsonl(user(`u${i}`, `q${i}`), reply(`g${i}`, null)));
      appendFileSync(
        path,
        jsonl(reply(`g${i}`, { input: 10 + i, output: 1 }), {
          $set: { lastUpdated: new Date(NOW).toISOString() },
        }),
      );
      if (i % 20 === 19) {
        const warm = await snap(home, true);
        expect(comparable(warm.document)).toEqual(comparable((await snap(home, false)).document));
      }
    }
    expect((await snap(home, true)).document.sessions[0]!.requests).toBe(80);
  });

  it('a `$set` of the whole message list updates the messages it names and drops none', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(
        header,
        user('u1', 'q1'),
        reply('g1', { input: 100, output: 10 }),
        user('u2', 'q2'),
        reply('g2', { input: 200, output: 20 }),
        // A history rewrite (masking, compression) that keeps only the newest turn.
        { $set: { messages: [user('u2', 'q2'), reply('g2', { input: 200, output: 20 })] } },
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(2);
    expect(s.tokens.input).toBe(300);
  });

  it('the summary Gemini CLI writes names the session', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(header, user('u1', 'q1'), { $set: { summary: 'Fix the flaky parser test' } }),
    );
    expect((await snap(home)).document.sessions[0]!.title).toBe('Fix the flaky parser test');
  });

  it('an error message leaves the session in error; a call awaiting approval waits on the user', async () => {
    const dir = chats(home);
    const recent = new Date(NOW - 60_000).toISOString();
    home.write(
      join(dir, 'session-a.jsonl'),
      jsonl({ ...header, sessionId: 'a' }, user('u1', 'q', recent), {
        id: 'e1',
        timestamp: recent,
        type: 'error',
        content: 'Quota exceeded for quota metric',
      }),
      NOW - 60_000,
    );
    home.write(
      join(dir, 'session-b.jsonl'),
      jsonl(
        { ...header, sessionId: 'b' },
        user('u1', 'q', recent),
        reply('g1', null, [{ name: 'run_shell_command', status: 'awaiting_approval' }], recent),
      ),
      NOW - 60_000,
    );
    const doc = (await snap(home)).document;
    const a = doc.sessions.find((s) => s.id === 'a')!;
    const b = doc.sessions.find((s) => s.id === 'b')!;
    expect(a.state).toBe('error');
    expect(a.stateDetail).toBe('Quota exceeded for quota metric');
    expect(b.state).toBe('waiting');
    expect(b.stateDetail).toBe('run_shell_command');
  });

  it('a turn stopped at the terminal ("Request cancelled.") leaves the session idle, not working', async () => {
    const dir = chats(home);
    const recent = new Date(NOW - 60_000).toISOString();
    const note = (id: string, content: string) => ({ id, timestamp: recent, type: 'info', content });
    home.write(
      join(dir, 'session-c.jsonl'),
      jsonl({ ...header, sessionId: 'c' }, user('u1', 'q', recent), note('i1', 'Request cancelled.')),
      NOW - 60_000,
    );
    // Any other note says nothing about the turn.
    home.write(
      join(dir, 'session-d.jsonl'),
      jsonl(
        { ...header, sessionId: 'd' },
        user('u1', 'q', recent),
        note('i1', 'Switched to fallback model.'),
      ),
      NOW - 60_000,
    );
    const doc = (await snap(home)).document;
    const c = doc.sessions.find((s) => s.id === 'c')!;
    const d = doc.sessions.find((s) => s.id === 'd')!;
    expect([c.state, c.stateDetail]).toEqual(['idle', 'interrupted']);
    expect(d.state).toBe('working');
  });

  it('a subagent chat in `chats/<parent id>/` counts toward its parent', async () => {
    const dir = chats(home);
    home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(header, user('u1', 'q'), reply('g1', { input: 100, output: 10 })),
    );
    home.write(
      join(dir, 'sess-1', 'sub-9.jsonl'),
      jsonl({ ...header, sessionId: 'sub-9', kind: 'subagent' }, reply('s1', { input: 50, output: 5 })),
    );
    const doc = (await snap(home)).document;
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.subagentFiles).toBe(1);
    expect(doc.sessions[0]!.tokens.input).toBe(150);
  });

  it('a compression threshold in settings.json moves the compaction point', async () => {
    const dir = chats(home);
    home.write(join(dir, 'session-x.jsonl'), jsonl(header, reply('g1', { input: 100, output: 10 })));
    home.write(
      join(home.dir, '.gemini', 'settings.json'),
      JSON.stringify({ model: { compressionThreshold: 0.7 } }),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.context.compactAt).toBe(Math.round(1_048_576 * 0.7));
  });

  it('$GEMINI_DIR, then $GEMINI_CLI_HOME/.gemini, then ~/.gemini', () => {
    expect(gemini.roots({ HOME: '/h', GEMINI_DIR: '/g' })).toEqual([{ path: '/g', origin: '$GEMINI_DIR' }]);
    expect(gemini.roots({ HOME: '/h', GEMINI_CLI_HOME: '/c' })).toEqual([
      { path: '/c/.gemini', origin: '$GEMINI_CLI_HOME' },
    ]);
    expect(gemini.roots({ HOME: '/h' })).toEqual([{ path: '/h/.gemini', origin: 'default' }]);
  });

  it('a chat under $GEMINI_DIR is found there', async () => {
    const dir = join(home.dir, 'elsewhere', 'tmp', 'p', 'chats');
    mkdirSync(dir, { recursive: true });
    home.write(join(dir, 'session-x.jsonl'), jsonl(header, reply('g1', { input: 100, output: 10 })));
    const doc = (await snap(home, false, { GEMINI_DIR: join(home.dir, 'elsewhere') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['sess-1']);
  });

  it('a garbage line is counted and the rest of the chat still counts', async () => {
    const dir = chats(home);
    const path = join(dir, 'session-x.jsonl');
    home.write(path, `${jsonl(header)}not json at all\n${jsonl(reply('g1', { input: 100, output: 10 }))}`);
    const snapshot = await snap(home);
    expect(snapshot.document.sessions[0]!.tokens.input).toBe(100);
    expect(snapshot.document.problems.find((p) => p.kind === 'bad-lines')?.count).toBe(1);
  });

  it('reading leaves the chat files exactly as they were', async () => {
    const dir = chats(home);
    const path = home.write(
      join(dir, 'session-x.jsonl'),
      jsonl(header, reply('g1', { input: 100, output: 10 })),
      NOW - 5000,
    );
    copyFileSync(path, `${path}.before`);
    await snap(home, true);
    expect(readFileSync(path).equals(readFileSync(`${path}.before`))).toBe(true);
    expect(statSync(path).mtimeMs).toBe(NOW - 5000);
  });
});

/**
 * Lines Gemini CLI 0.61.0 wrote in the conformance lab (`[lab:fail]`, then `--resume` with
 * `[lab:resume]`), trimmed: the `<session_context>` to its first lines, the second header and the
 * `$set`s of `lastUpdated` left out. 0.61 writes the context as the chat's first `user` message,
 * records a shell command that exited 3 as `success` with `Exit Code: 3` in its output, and on
 * resume writes the whole history again as the model sees it: no tokens, no tool calls.
 */
describe('a Gemini CLI 0.61 chat', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const context = {
    id: 'd04923d38bb0f6017037e74183378ef4',
    timestamp: '2026-12-01T21:19:03.148Z',
    type: 'user',
    content: [
      {
        text: "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Tuesday, December 1, 2026 (formatted according to the user's locale).\nMy operating system is: linux\n</session_context>",
      },
    ],
  };
  const prompt = {
    id: '5b1ee638-05dc-4fee-8ef0-f4896458d3ff',
    timestamp: '2026-12-01T21:19:03.286Z',
    type: 'user',
    content: [{ text: '[lab:fail] Follow the lab script fail.' }],
  };
  const output =
    '<untrusted_context>\nOutput: lab-fail-out\nExit Code: 3\nProcess Group PGID: 25916\n</untrusted_context>';
  const response = (id: string) => ({
    functionResponse: { id, name: 'run_shell_command', response: { output } },
  });
  const call = {
    id: '7239154d-e4ba-4f68-b88b-a7b8fbf89517',
    timestamp: '2026-12-01T21:19:05.072Z',
    type: 'gemini',
    content: '',
    thoughts: [],
    tokens: { input: 11747, output: 13, cached: 5873, thoughts: 6, tool: 0, total: 11766 },
    model: 'gemini-2.5-flash',
    toolCalls: [
      {
        id: 'run_shell_command__call_lab_2',
        name: 'run_shell_command',
        args: { command: 'echo lab-fail-out; exit 3', description: 'Run a lab command' },
        result: [response('run_shell_command__call_lab_2')],
        status: 'success',
        timestamp: '2026-12-01T21:19:06.483Z',
        resultDisplay: 'lab-fail-out',
        displayName: 'Shell',
      },
    ],
  };
  const answer = {
    id: '5aeaf7ab-9c35-410e-a68c-cdec2bab70a6',
    timestamp: '2026-12-01T21:19:06.809Z',
    type: 'gemini',
    content: 'The command failed with exit code 3.',
    thoughts: [],
    tokens: { input: 11861, output: 14, cached: 5930, thoughts: 7, tool: 0, total: 11882 },
    model: 'gemini-2.5-flash',
  };
  const header = {
    sessionId: 'd66d1d33-9192-49cd-be88-4ffbd7ecf85c',
    projectHash: '1e1c156b7a7ab4e82d910d08b63e8598ede511b0928d1c55a98cd2834b0f6a2c',
    startTime: '2026-12-01T21:19:03.147Z',
    lastUpdated: '2026-12-01T21:19:03.147Z',
    kind: 'main',
  };
  const firstRun = [
    header,
    { $set: { messages: [context], lastUpdated: '2026-12-01T21:19:03.148Z' } },
    prompt,
    { ...call, toolCalls: undefined },
    call,
    {
      id: '8e90c0fb-848a-4cdc-88a7-9ef56ee857c0',
      timestamp: '2026-12-01T21:19:06.524Z',
      type: 'user',
      content: [response('run_shell_command__call_lab_2')],
    },
    answer,
  ];
  const at = '2026-12-01T21:19:31.300Z';
  const resumed = [
    { $set: { sessionId: header.sessionId } },
    {
      $set: {
        messages: [
          context,
          { ...prompt, timestamp: at },
          {
            id: call.id,
            timestamp: at,
            type: 'gemini',
            content: [{ functionCall: { id: 'run_shell_command__call_lab_2', name: 'run_shell_command' } }],
          },
          {
            id: `${call.id}_response`,
            timestamp: at,
            type: 'user',
            content: [response('run_shell_command__call_lab_2')],
          },
          { id: answer.id, timestamp: at, type: 'gemini', content: [{ text: answer.content }] },
        ],
        lastUpdated: at,
      },
    },
    {
      id: 'cd8053ac-06ab-4fe7-a197-6e970404c82e',
      timestamp: '2026-12-01T21:19:31.319Z',
      type: 'user',
      content: [{ text: '[lab:resume] Follow the lab script resume.' }],
    },
    {
      id: 'f5b19346-42a5-4f7f-96e5-9687cd58ebeb',
      timestamp: '2026-12-01T21:19:31.859Z',
      type: 'gemini',
      content: 'Resumed: the second turn is answered.',
      thoughts: [],
      tokens: { input: 11936, output: 15, cached: 5968, thoughts: 8, tool: 0, total: 11959 },
      model: 'gemini-2.5-flash',
    },
  ];
  const write = (...lines: unknown[]) =>
    home.write(
      join(chats(home, 'work', '/tmp/lab/work'), 'session-2026-12-01T21-19-d66d1d33.jsonl'),
      jsonl(...lines),
    );

  it('is titled by the prompt, not by the <session_context> Gemini CLI writes first', async () => {
    write(...firstRun);
    expect((await snap(home)).document.sessions[0]!.title).toBe('[lab:fail] Follow the lab script fail.');
  });

  it('counts a shell call recorded `success` whose command exited 3 as a failure', async () => {
    write(...firstRun);
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools).toMatchObject({
      calls: 1,
      failed: 1,
      byTool: { run_shell_command: { calls: 1, failed: 1 } },
    });
  });

  it('keeps the requests and calls from before a resume, which writes the history again without them', async () => {
    write(...firstRun, ...resumed);
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(3);
    // input − cached, summed over the three requests: 5874 + 5931 + 5968.
    expect(s.tokens).toMatchObject({ input: 17773, cacheRead: 17771, output: 63, reasoning: 21 });
    expect(s.tools).toMatchObject({ calls: 1, failed: 1 });
    expect(s.title).toBe('[lab:fail] Follow the lab script fail.');
  });
});

describe('the shell exit rule', () => {
  const shell = (output: string) => ({
    name: 'run_shell_command',
    result: [{ functionResponse: { response: { output } } }],
  });

  it('reads the exit line only where the shell tool writes it, at the end of its result', () => {
    // 0.61: no exit line for a zero exit; one before the trailer for any other.
    expect(
      shellExitCode(shell('<untrusted_context>\nOutput: ok\nProcess Group PGID: 1\n</untrusted_context>')),
    ).toBe(null);
    expect(
      shellExitCode(
        shell('Output: x\nError: boom\nExit Code: 127\nSignal: 9\nBackground PIDs: 4\nProcess Group PGID: 2'),
      ),
    ).toBe(127);
    // Older Gemini CLI (and Qwen Code) write `Exit Code: 0` too.
    expect(shellExitCode(shell('Command: true\nOutput: (empty)\nExit Code: 0\nSignal: (none)'))).toBe(0);
    // An exit line the command printed, with its own output after it, is not the tool's.
    expect(shellExitCode(shell('Output: Exit Code: 3\nmore output\nProcess Group PGID: 2'))).toBe(null);
    expect(shellExitCode({ ...shell('Output: x\nExit Code: 3'), name: 'read_file' })).toBe(null);
  });

  it('a shell call that exited non-zero failed whatever its status; a refused one did not run', () => {
    expect(callFailed('success', 3)).toBe(true);
    expect(callFailed('success', 0)).toBe(false);
    expect(callFailed('error', null)).toBe(true);
    expect(callFailed('cancelled', null)).toBe(false);
  });
});

describe('which tools each Gemini CLI 0.61 request called (the lab’s recorded runs)', () => {
  it('a response calling run_shell_command twice called that one tool; the text answer after it called none', () => {
    expect(labRequestTools('gemini', 'parallel')).toEqual([['run_shell_command'], []]);
  });

  it('a response calling two different tools called both', () => {
    expect(labRequestTools('gemini', 'parallel', secondCallRenamed('read_file'))).toEqual([
      ['read_file', 'run_shell_command'],
      [],
    ]);
  });
});
