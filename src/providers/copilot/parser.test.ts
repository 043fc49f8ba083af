/**
 * Tokens, requests, context and failures as Copilot CLI 1.0.102 writes them. Every line is a trimmed
 * copy of what the real CLI wrote in the conformance lab (`lab/fixtures/copilot/`: its BYOK mode over
 * Chat Completions; the Anthropic lines from a hand run with `COPILOT_PROVIDER_TYPE=anthropic`), with
 * the lab server's figures for each request in the comments.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { copilot } from './index.js';

const NOW = Date.parse('2026-12-01T21:29:00Z');
const ID = '5fe07f27-685b-45b3-a9fd-dd4e1b2ad5be';

const ev = (type: string, at: string, data: Record<string, unknown>) => ({
  type,
  data,
  id: `${type}@${at}`,
  timestamp: `2026-12-01T21:28:${at}Z`,
  parentId: null,
});

const start = ev('session.start', '42.488', {
  sessionId: ID,
  copilotVersion: '1.0.102',
  selectedModel: 'gpt-4.1',
  context: { cwd: '/tmp/cctop-lab-copilot-3s07Q1/resume/work' },
});
const prompt = (at: string, content: string) => ev('user.message', at, { content });
const record = (at: string, apiCallId: string, sequence: number, u: Record<string, unknown>) =>
  ev('session.usage_record', at, {
    usage: {
      model: 'gpt-4.1',
      ...u,
      interactionType: 'conversation-agent',
      apiCallId,
      accounting: { sourceSessionId: ID, sequence, usageId: apiCallId },
    },
  });
const bash = (at: string, id: string, command: string) => [
  ev('assistant.message', at, {
    model: 'gpt-4.1',
    content: '',
    toolRequests: [{ toolCallId: id, name: 'bash', arguments: { command } }],
  }),
  ev('tool.execution_start', at, { toolCallId: id, toolName: 'bash', arguments: { command } }),
];
const done = (at: string, id: string, exitCode: number, content: string) =>
  ev('tool.execution_complete', at, {
    toolCallId: id,
    model: 'gpt-4.1',
    shellExecution: { exitCode },
    success: true,
    result: { content },
  });
const answer = (at: string, content: string) =>
  ev('assistant.message', at, { model: 'gpt-4.1', content, toolRequests: [] });
const shutdown = (at: string, usage: Record<string, number>, count: number, currentTokens: number) =>
  ev('session.shutdown', at, {
    shutdownType: 'routine',
    modelMetrics: { 'gpt-4.1': { requests: { count, cost: 0 }, usage } },
    currentModel: 'gpt-4.1',
    currentTokens,
    codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
    usageAccountingWatermarks: { [ID]: count },
    accountingSnapshot: { totalUserRequests: 1 },
  });

/** The `call` script's first process (server: input 6062 + 6062 cached, then 6103 + 6103). */
const first = [
  start,
  prompt('42.850', '[lab:call] Follow the lab script call.'),
  record('43.059', 'lab_chat_8', 1, {
    inputTokens: 12124,
    outputTokens: 29,
    cacheReadTokens: 6062,
    cacheWriteTokens: 0,
    reasoningTokens: 11,
  }),
  ...bash('43.066', 'call_lab_5', 'echo lab-call-ok'),
  done('43.254', 'call_lab_5', 0, 'lab-call-ok\n<shellId: 0 completed with exit code 0>'),
  record('43.297', 'lab_chat_9', 2, {
    inputTokens: 12206,
    outputTokens: 31,
    cacheReadTokens: 6103,
    cacheWriteTokens: 0,
    reasoningTokens: 12,
  }),
  answer('43.304', 'The command printed lab-call-ok.'),
  shutdown(
    '43.393',
    {
      inputTokens: 24330,
      outputTokens: 60,
      cacheReadTokens: 12165,
      cacheWriteTokens: 0,
      reasoningTokens: 23,
    },
    2,
    10560,
  ),
];

/** The same session resumed for the `resume` script (server: input 6138 + 6138 cached). */
const second = [
  ev('session.resume', '45.065', {
    selectedModel: 'gpt-4.1',
    context: { cwd: '/tmp/cctop-lab-copilot-3s07Q1/resume/work' },
  }),
  prompt('45.239', '[lab:resume] Follow the lab script resume.'),
  record('45.578', 'lab_chat_10', 3, {
    inputTokens: 12276,
    outputTokens: 33,
    cacheReadTokens: 6138,
    cacheWriteTokens: 0,
    reasoningTokens: 13,
  }),
  answer('45.585', 'Resumed: the second turn is answered.'),
  // The whole session's totals, the first process's two requests included.
  shutdown(
    '45.620',
    {
      inputTokens: 36606,
      outputTokens: 93,
      cacheReadTokens: 18303,
      cacheWriteTokens: 0,
      reasoningTokens: 36,
    },
    3,
    10613,
  ),
];

describe('Copilot CLI 1.0.102 usage records (trimmed from lab runs)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const events = (...lines: unknown[]) =>
    home.write(join(home.dir, '.copilot', 'session-state', ID, 'events.jsonl'), jsonl(...lines));
  const read = async () =>
    (await readCold(home.env, { providers: ['copilot'], nowMs: NOW })).document.sessions[0]!;

  it('each usage record is one request, its input the prompt less what was read from cache', async () => {
    events(...first);
    const s = await read();
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({
      input: 6062 + 6103,
      output: 29 + 31,
      cacheRead: 6062 + 6103,
      cacheWrite: 0,
      reasoning: 11 + 12,
    });
  });

  it("the newest request's prompt is the context, not Copilot's own estimate at shutdown", async () => {
    events(...first);
    expect((await read()).context.used).toBe(12206);
  });

  it("a resumed session's second shutdown repeats the first's totals and adds nothing", async () => {
    events(...first, ...second);
    const s = await read();
    expect(s.requests).toBe(3);
    expect(s.tokens).toMatchObject({ input: 6062 + 6103 + 6138, output: 29 + 31 + 33, reasoning: 36 });
    expect(s.context.used).toBe(12276);
  });

  it('a running session shows the tokens of the requests it has made before its process exits', async () => {
    // Copied while the CLI was running the call: no shutdown yet.
    events(...first.slice(0, 5));
    const s = await read();
    expect(s.requests).toBe(1);
    expect(s.tokens).toMatchObject({ input: 6062, cacheRead: 6062, output: 29, reasoning: 11 });
    expect(s.state).toBe('working');
  });

  it('over an Anthropic provider the cache writes come out of the input too, and no reasoning is recorded', async () => {
    // Server: input 5971, cache read 6059, cache write 88; then 5993, 6087, 95.
    const anthropic = (at: string, apiCallId: string, sequence: number, u: Record<string, number>) =>
      record(at, apiCallId, sequence, { model: 'claude-sonnet-4.5', providerType: 'anthropic', ...u });
    events(
      start,
      anthropic('43.059', 'lab_anthropic_11', 1, {
        inputTokens: 12118,
        outputTokens: 35,
        cacheReadTokens: 6059,
        cacheWriteTokens: 88,
      }),
      anthropic('43.297', 'lab_anthropic_12', 2, {
        inputTokens: 12175,
        outputTokens: 37,
        cacheReadTokens: 6087,
        cacheWriteTokens: 95,
      }),
    );
    const s = await read();
    expect(s.tokens).toEqual({
      input: 5971 + 5993,
      output: 35 + 37,
      cacheRead: 6059 + 6087,
      cacheWrite: 88 + 95,
      reasoning: null,
    });
    expect(s.context.used).toBe(12175);
  });

  it('a shell call whose command exited non-zero has failed, though Copilot wrote success: true', async () => {
    const lines = [
      start,
      prompt('34.814', '[lab:fail] Follow the lab script fail.'),
      ...bash('34.967', 'call_lab_2', 'echo lab-fail-out; exit 3'),
      done('35.167', 'call_lab_2', 3, 'lab-fail-out\n<shellId: 0 completed with exit code 3>'),
      answer('35.210', 'The command failed with exit code 3.'),
    ];
    const path = events(...lines);
    expect((await read()).tools).toMatchObject({ calls: 1, failed: 1 });
    const chat = copilot.conversation!(path, { before: null, agent: null });
    expect(chat.turns.flatMap((t) => t.tools)).toEqual([
      expect.objectContaining({ name: 'bash', failed: true }),
    ]);
  });
});
