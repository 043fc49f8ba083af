import { appendFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { LAB_CASES, labHome } from '../../test-support/lines.js';
import { parseFile } from '../../test-support/parse.js';
import { snapshotIn } from '../../test-support/snapshot.js';
import { labRequestTools, toolsOf } from '../../test-support/tools.js';
import { copilot, workspaceSummary } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, useIndex = false, env: Record<string, string> = {}) =>
  snapshotIn({ ...home.env, ...env }, { providers: ['copilot'], useIndex, nowMs: NOW, threads: 1 });

const comparable = (d: SessionDocument) => ({ ...d, generatedAt: '' });

const state = (home: FakeHome, ...parts: string[]) => join(home.dir, '.copilot', 'session-state', ...parts);

/**
 * What Copilot CLI 1.0.102 wrote in each recorded lab case (`lab/fixtures/copilot/<case>/`), worked out
 * apart from cctop: the sums of the figures the lab server answered with (its `ledger.json`; Copilot
 * counts the cached part inside `inputTokens`, the server and cctop apart), the calls it scripted, the
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
    input: 6_058,
    cacheRead: 6_058,
    output: 15,
    reasoning: 4,
    requests: 1,
    calls: 0,
    failed: 0,
    context: 12_116,
  },
  call: {
    input: 12_159,
    cacheRead: 12_157,
    output: 36,
    reasoning: 11,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 12_199,
  },
  fail: {
    input: 12_162,
    cacheRead: 12_161,
    output: 44,
    reasoning: 15,
    requests: 2,
    calls: 1,
    failed: 1,
    context: 12_204,
  },
  parallel: {
    input: 12_199,
    cacheRead: 12_198,
    output: 52,
    reasoning: 19,
    requests: 2,
    calls: 2,
    failed: 0,
    context: 12_272,
  },
  resume: {
    input: 18_303,
    cacheRead: 18_303,
    output: 93,
    reasoning: 36,
    requests: 3,
    calls: 1,
    failed: 0,
    context: 12_276,
  },
};

describe('Copilot CLI 1.0.102 sessions recorded in the conformance lab', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  for (const name of LAB_CASES) {
    it(`${name}: tokens, requests, tool calls, failures and context are what the server answered`, async () => {
      const want = LAB[name];
      cpSync(labHome('copilot', name), home.dir, { recursive: true });
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        reasoning: want.reasoning,
        cacheWrite: 0,
      });
      expect(s.requests).toBe(want.requests);
      expect(s.tools).toMatchObject({ calls: want.calls, failed: want.failed });
      expect(s.context.used).toBe(want.context);
      expect(s.models).toEqual(['gpt-4.1']);
    });
  }

  it('identity, project and title come from the session folder, its start and its first prompt', async () => {
    cpSync(labHome('copilot', 'call'), home.dir, { recursive: true });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('a209e303-0bbe-4fed-918a-9394856777a1');
    expect(s.project).toBe('/tmp/cctop-lab-copilot-3s07Q1/call/work');
    expect(s.title).toBe('[lab:call] Follow the lab script call.');
    expect(s.model).toBe('gpt-4.1');
  });
});

/**
 * The corpus has no real Copilot CLI session: its three files are synthetic fixtures modelled on the
 * format (Copilot CLI 1.0.11, 1.0.77 and 0.0.420, per their `copilotVersion`). Expectations were read
 * off the files by hand. Checked only where `../shared/corpus` is present; the lab's recordings and the
 * events written below are what every clone runs.
 */
if (HAVE_CORPUS) {
  describe('Copilot CLI sessions from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
    });
    afterEach(() => home.cleanup());

    it('events.jsonl (1.0.11): identity, project, branch, one bash call; no shutdown, so no tokens (absent, not 0)', async () => {
      const id = 'aaaabbbb-1111-2222-3333-ccccddddeeee';
      home.copy(corpus('copilot-cli', 'session-state', id, 'events.jsonl'), state(home, id, 'events.jsonl'));
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.id).toBe(id);
      expect(s.project).toBe('/tmp/project');
      expect(s.branch).toBe('main');
      expect(s.title).toBe('List the files');
      expect(s.tools).toMatchObject({ calls: 1, failed: 0 });
      expect(s.tokens).toEqual({
        input: null,
        output: null,
        cacheRead: null,
        cacheWrite: null,
        reasoning: null,
      });
      expect(s.cost.usd).toBeNull();
    });

    it('1.0.77 events: model and effort, the shutdown’s session totals under its current model, an abort', async () => {
      home.copy(
        corpus('copilot-cli', 'session-state', 'agent-sessions__copilot-small.synthetic.jsonl'),
        state(home, 'copilot_stage0_small.jsonl'),
      );
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.model).toBe('gpt-5-mini');
      expect(s.reasoningEffort).toBe('medium');
      // `modelMetrics` names the model without a usage block: `tokenDetails` carries the totals. Its
      // input is the whole prompt, as Copilot counts it (see record.ts): 100 less the 5 read from cache.
      expect(s.tokens).toEqual({ input: 95, output: 15, cacheRead: 5, cacheWrite: 0, reasoning: null });
      expect(s.requests).toBe(1);
      expect(s.context.used).toBe(120);
      expect(s.lines).toEqual({ added: 0, removed: 0 });
      expect(s.aborts).toBe(1);
      // `shell` (succeeded) and the trimmed subagent call (failed); the trimmed ids repeat, so later
      // namings of the same id are one call, and a completion for a call never named is not counted.
      expect(s.tools).toMatchObject({ calls: 2, failed: 1 });
    });

    it('0.0.420 events: the model from model_change, tool calls named in messages and at execution', async () => {
      home.copy(
        corpus('copilot-cli', 'session-state', 'agent-sessions__copilot-large.synthetic.jsonl'),
        state(home, 'copilot_stage0_large.jsonl'),
      );
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.id).toBe('copilot_stage0_large');
      expect(s.model).toBe('gpt-5');
      expect(s.title).toBe('Step 1');
      expect(s.tools).toMatchObject({ calls: 2, failed: 0 });
      expect(s.tokens.input).toBeNull();
    });
  });
}

/** Events written for these tests in the shape of Copilot CLI 1.0 `events.jsonl`. */
describe('Copilot CLI events (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  let n = 0;
  const ev = (type: string, data: Record<string, unknown>, at = '2026-11-29T10:00:00.000Z') => ({
    type,
    data,
    id: `e${++n}`,
    timestamp: at,
    parentId: null,
  });
  const start = ev('session.start', {
    sessionId: 's1',
    copilotVersion: '1.0.77',
    selectedModel: 'claude-sonnet-4.5',
    context: { cwd: '/work/app', branch: 'dev' },
  });
  const shutdown = (metrics: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ev('session.shutdown', { shutdownType: 'routine', modelMetrics: metrics, ...extra });
  const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
    usage: {
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
    },
  });

  it('a shutdown’s per-model usage is one record per model, priced per model', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        start,
        shutdown({ 'claude-sonnet-4.5': usage(1000, 100, 500, 50), 'gpt-5-mini': usage(200, 20) }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    // Each model's input is its whole prompt: 1000 less 500 read and 50 written to cache, and 200.
    expect(s.tokens).toEqual({ input: 650, output: 120, cacheRead: 500, cacheWrite: 50, reasoning: null });
    expect(s.cost.byModel.map((m) => m.model).sort()).toEqual(['claude-sonnet-4.5', 'gpt-5-mini']);
    expect(s.cost.usd).not.toBeNull();
  });

  it('a resumed session’s shutdowns add up, one per process lifetime', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        start,
        shutdown({ 'gpt-5-mini': usage(100, 10) }, { codeChanges: { linesAdded: 3, linesRemoved: 1 } }),
        ev('session.resume', { context: { cwd: '/work/app' } }),
        shutdown({ 'gpt-5-mini': usage(200, 20) }, { codeChanges: { linesAdded: 2, linesRemoved: 0 } }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tokens.input).toBe(300);
    expect(s.requests).toBe(2);
    expect(s.lines).toEqual({ added: 5, removed: 1 });
  });

  it('per-request usage events are counted, and the shutdown closing the same process adds nothing', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        start,
        ev('assistant.usage', { model: 'gpt-5-mini', inputTokens: 100, outputTokens: 10, apiCallId: 'a1' }),
        ev('assistant.usage', { model: 'gpt-5-mini', inputTokens: 150, outputTokens: 15, apiCallId: 'a2' }),
        shutdown({ 'gpt-5-mini': usage(250, 25) }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tokens.input).toBe(250);
    expect(s.requests).toBe(2);
    expect(s.context.used).toBe(150);
  });

  it('a call is counted once though named twice, and a failed execution is a failure', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        start,
        ev('user.message', { content: 'fix the build' }),
        ev('assistant.message', {
          content: '',
          toolRequests: [{ toolCallId: 'c1', name: 'bash', arguments: {} }],
        }),
        ev('tool.execution_start', { toolCallId: 'c1', toolName: 'bash' }),
        ev('tool.execution_complete', { toolCallId: 'c1', success: false }),
        ev('tool.execution_start', { toolCallId: 'c2', toolName: 'view' }),
        ev('tool.execution_complete', { toolCallId: 'c2', success: true }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools.byTool).toEqual({ bash: { calls: 1, failed: 1 }, view: { calls: 1, failed: 0 } });
    expect(s.title).toBe('fix the build');
  });

  it('1.0.11: branch from the start; with no shutdown and no usage event there are no tokens (absent, not 0)', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        ev('session.start', {
          sessionId: 's1',
          copilotVersion: '1.0.11',
          context: { cwd: '/work/app', gitRoot: '/work/app', branch: 'main' },
        }),
        ev('user.message', { content: 'list the files' }),
        ev('assistant.turn_start', { turnId: '0' }),
        ev('assistant.message', {
          content: '',
          toolRequests: [{ toolCallId: 'c1', name: 'bash', arguments: { command: 'ls' } }],
        }),
        ev('tool.execution_start', { toolCallId: 'c1', toolName: 'bash', arguments: { command: 'ls' } }),
        ev('tool.execution_complete', { toolCallId: 'c1', success: true, result: { content: 'a\nb' } }),
        ev('assistant.message', { content: 'Two files: a and b.', toolRequests: [] }),
        ev('assistant.turn_end', { turnId: '0' }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('s1');
    expect(s.project).toBe('/work/app');
    expect(s.branch).toBe('main');
    expect(s.tools).toMatchObject({ calls: 1, failed: 0 });
    expect(s.tokens).toEqual({
      input: null,
      output: null,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
    expect(s.cost.usd).toBeNull();
  });

  it('1.0.77: model and effort from a model change, the shutdown’s totals under its current model, an abort', async () => {
    home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        start,
        ev('session.model_change', { newModel: 'gpt-5-mini', reasoningEffort: 'medium' }),
        ev('user.message', { content: 'list the files' }),
        ev('abort', { reason: 'user initiated' }),
        // No per-model breakdown: `tokenDetails` carries the totals, the prompt whole (100, of which
        // 5 read from cache), and `currentTokens` what the context holds.
        ev('session.shutdown', {
          shutdownType: 'routine',
          currentModel: 'gpt-5-mini',
          currentTokens: 120,
          modelMetrics: { 'gpt-5-mini': { requests: { count: 1, cost: 1 } } },
          tokenDetails: {
            input: { tokenCount: 100 },
            output: { tokenCount: 15 },
            cache_read: { tokenCount: 5 },
          },
        }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.model).toBe('gpt-5-mini');
    expect(s.reasoningEffort).toBe('medium');
    expect(s.tokens).toEqual({ input: 95, output: 15, cacheRead: 5, cacheWrite: 0, reasoning: null });
    expect(s.requests).toBe(1);
    expect(s.context.used).toBe(120);
    expect(s.aborts).toBe(1);
  });

  it('0.0.420: the model comes from a model change when the start names none', async () => {
    home.write(
      state(home, 'flat-old.jsonl'),
      jsonl(
        ev('session.start', {
          sessionId: 'flat-old',
          copilotVersion: '0.0.420',
          context: { cwd: '/work/app' },
        }),
        ev('session.model_change', { newModel: 'gpt-5' }),
        ev('user.message', { content: 'Step 1' }),
        ev('assistant.message', { content: 'Ok', toolRequests: [] }),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('flat-old');
    expect(s.model).toBe('gpt-5');
    expect(s.title).toBe('Step 1');
    expect(s.tokens.input).toBeNull();
  });

  it('the summary in workspace.yaml is the title', async () => {
    home.write(state(home, 's1', 'events.jsonl'), jsonl(start, ev('user.message', { content: 'hello' })));
    home.write(
      state(home, 's1', 'workspace.yaml'),
      'id: s1\ncwd: /work/app\nsummary: Fix flaky login test\n',
    );
    expect((await snap(home)).document.sessions[0]!.title).toBe('Fix flaky login test');
  });

  it('workspace.yaml summaries: plain, quoted, and folded blocks', () => {
    expect(workspaceSummary('summary: plain words\n')).toBe('plain words');
    expect(workspaceSummary("summary: 'it''s quoted'\n")).toBe("it's quoted");
    expect(workspaceSummary('summary: >-\n  first line\n  second line\nupdated_at: x\n')).toBe(
      'first line second line',
    );
    expect(workspaceSummary('cwd: /x\n')).toBeNull();
  });

  it('an error, a question to the user, and the end of a turn read as error, waiting and idle', async () => {
    const recent = new Date(NOW - 30_000).toISOString();
    home.write(
      state(home, 'a', 'events.jsonl'),
      jsonl({ ...start, data: { sessionId: 'a' } }, ev('session.error', { message: 'rate limited' }, recent)),
    );
    home.write(
      state(home, 'b', 'events.jsonl'),
      jsonl(
        { ...start, data: { sessionId: 'b' } },
        ev('assistant.message', { toolRequests: [{ toolCallId: 'q', name: 'ask_user' }] }, recent),
      ),
    );
    home.write(
      state(home, 'c', 'events.jsonl'),
      jsonl({ ...start, data: { sessionId: 'c' } }, ev('assistant.turn_end', { turnId: '0' }, recent)),
    );
    const doc = (await snap(home)).document;
    const by = (id: string) => doc.sessions.find((s) => s.id === id)!;
    expect([by('a').state, by('a').stateDetail]).toEqual(['error', 'rate limited']);
    expect([by('b').state, by('b').stateDetail]).toEqual(['waiting', 'ask_user']);
    expect([by('c').state, by('c').stateDetail]).toEqual(['idle', 'turn_end']);
  });

  it('a growing events file is tailed and ends with the same totals as a cold read', async () => {
    const path = home.write(state(home, 's1', 'events.jsonl'), jsonl(start));
    await snap(home, true);
    appendFileSync(
      path,
      jsonl(
        ev('assistant.message', { toolRequests: [{ toolCallId: 'c1', name: 'bash' }] }),
        ev('tool.execution_start', { toolCallId: 'c1', toolName: 'bash' }),
      ),
    );
    await snap(home, true);
    appendFileSync(
      path,
      jsonl(
        ev('tool.execution_complete', { toolCallId: 'c1', success: false }),
        shutdown({ 'gpt-5': usage(10, 1) }),
      ),
    );
    const warm = await snap(home, true);
    expect(warm.stats.tailed).toBe(1);
    expect(warm.document.sessions[0]!.tools).toMatchObject({ calls: 1, failed: 1 });
    expect(comparable(warm.document)).toEqual(comparable((await snap(home, false)).document));
  });

  it('the older flat session-state/<id>.jsonl is read too', async () => {
    home.write(state(home, 'flat-1.jsonl'), jsonl({ ...start, data: { sessionId: 'flat-1' } }));
    expect((await snap(home)).document.sessions.map((s) => s.id)).toEqual(['flat-1']);
  });

  it('$COPILOT_HOME, else ~/.copilot', async () => {
    expect(copilot.roots({ HOME: '/h' })).toEqual([{ path: '/h/.copilot', origin: 'default' }]);
    expect(copilot.roots({ HOME: '/h', COPILOT_HOME: '/c' })).toEqual([
      { path: '/c', origin: '$COPILOT_HOME' },
    ]);
    home.write(
      join(home.dir, 'cp', 'session-state', 's9', 'events.jsonl'),
      jsonl({ ...start, data: { sessionId: 's9' } }),
    );
    const doc = (await snap(home, false, { COPILOT_HOME: join(home.dir, 'cp') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['s9']);
  });
});

describe('which tools each Copilot CLI request called', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  // Copilot CLI 1.0.102 in the lab: a usage record says its response's tools itself (`toolCounts`).
  it('a usage record with toolCounts {bash: 2} called bash; the text answer’s {} called none', () => {
    expect(labRequestTools('copilot', 'parallel')).toEqual([['bash'], []]);
  });

  it('a response calling two different tools called both', () => {
    const two = (text: string) => text.replace('"toolCounts":{"bash":2}', '"toolCounts":{"bash":1,"view":1}');
    expect(labRequestTools('copilot', 'parallel', two)).toEqual([['bash', 'view'], []]);
  });

  it('a shutdown’s totals and a usage record that does not say leave the tools unknown, not none', () => {
    const at = '2026-11-29T10:00:00.000Z';
    const ev = (type: string, data: Record<string, unknown>, id: string) => ({
      type,
      data,
      id,
      timestamp: at,
    });
    const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const path = home.write(
      state(home, 's1', 'events.jsonl'),
      jsonl(
        ev('session.start', { sessionId: 's1', selectedModel: 'gpt-5-mini', context: { cwd: '/w' } }, 'e1'),
        ev('session.shutdown', { modelMetrics: { 'gpt-5-mini': { usage } } }, 'e2'),
        ev('session.resume', { context: { cwd: '/w' } }, 'e3'),
        ev('session.usage_record', { usage: { model: 'gpt-5-mini', ...usage, apiCallId: 'a1' } }, 'e4'),
        ev(
          'session.usage_record',
          { usage: { model: 'gpt-5-mini', ...usage, apiCallId: 'a2', numToolCalls: 0 } },
          'e5',
        ),
      ),
    );
    expect(toolsOf(parseFile('copilot', path).ledger)).toEqual([null, null, []]);
  });
});
