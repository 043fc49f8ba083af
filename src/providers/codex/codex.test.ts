import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, LAB_CASES, labFile, labFiles } from '../../test-support/lines.js';
import { documentOf, parsed, parseFile } from '../../test-support/parse.js';
import { toolsOf } from '../../test-support/tools.js';
import { outputFailed } from './record.js';

/**
 * What Codex 0.169.0 wrote in each recorded lab case (`lab/fixtures/codex/<case>/`), worked out apart
 * from cctop: the sums of the figures the lab server answered with (its `ledger.json`; Codex counts
 * cached tokens inside `input_tokens`, the server and cctop apart), the calls it scripted, and the one
 * failure the `fail` script's command that exits non-zero.
 */
const LAB: Record<
  (typeof LAB_CASES)[number],
  { input: number; cacheRead: number; output: number; reasoning: number; calls: number; failed: number }
> = {
  text: { input: 4_946, cacheRead: 4_946, output: 15, reasoning: 4, calls: 0, failed: 0 },
  call: { input: 9_943, cacheRead: 9_942, output: 36, reasoning: 11, calls: 1, failed: 0 },
  fail: { input: 9_947, cacheRead: 9_945, output: 44, reasoning: 15, calls: 1, failed: 1 },
  parallel: { input: 10_001, cacheRead: 10_000, output: 52, reasoning: 19, calls: 2, failed: 0 },
  resume: { input: 14_996, cacheRead: 14_995, output: 93, reasoning: 36, calls: 1, failed: 0 },
};

describe('Codex 0.169.0 rollouts recorded in the conformance lab', () => {
  for (const name of LAB_CASES) {
    it(`${name}: tokens, tool calls and failures are what the server answered`, () => {
      const want = LAB[name];
      const p = parsed('codex', labFile('codex', name));
      const s = documentOf([p]).sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        reasoning: want.reasoning,
        cacheWrite: null,
      });
      expect(s.tools.calls).toBe(want.calls);
      expect(s.tools.failed).toBe(want.failed);
      expect(s.models).toEqual(['gpt-5-codex']);
      expect(p.result.facts.badLines).toBe(0);
    });
  }

  it('the session id, project, context window and title come from the rollout itself', () => {
    const p = parsed('codex', labFile('codex', 'call'));
    expect(p.result.facts.sessionId).toBe('01a2337e-7431-7350-9b6b-d8fb1359c4ab');
    const s = documentOf([p]).sessions[0]!;
    expect(s.project).toBe('/tmp/cctop-lab-codex-3dAXOl/call/work');
    // The window Codex reports in its `token_count` events, not a table's figure for the model.
    expect(s.context.window).toBe(258_400);
    // Codex 0.169.0 names no title here: the first prompt is the title.
    expect(s.title).toBe('[lab:call] Follow the lab script call.');
  });

  it('every recorded and every demo rollout parses without a bad line', () => {
    const files = [...labFiles('codex'), ...demoFiles('.codex'), ...corpusFiles('codex/rollouts')];
    expect(files.length).toBeGreaterThanOrEqual(LAB_CASES.length + 3);
    for (const file of files) expect(parsed('codex', file).result.facts.badLines, file).toBe(0);
  });
});

describe('Codex rollout headers and errors (records written for these tests in the format of codex-cli 0.40 and 0.53)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const meta = (payload: Record<string, unknown>) => ({
    timestamp: '2026-11-29T10:00:00.000Z',
    type: 'session_meta',
    payload: { id: 'sess-1', timestamp: '2026-11-29T10:00:00.000Z', cwd: '/home/kim/api', ...payload },
  });
  const usage = {
    input_tokens: 1200,
    cached_input_tokens: 1000,
    output_tokens: 80,
    reasoning_output_tokens: 40,
    total_tokens: 1280,
  };
  const tokens = (at: string, extra: Record<string, unknown> = {}) => ({
    timestamp: at,
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 272_000 },
      ...extra,
    },
  });

  it('the branch comes from the header and the reasoning effort from the turn context', () => {
    // codex-cli 0.40 wrote `git` into session_meta and `effort` into turn_context.
    const path = home.write(
      home.codexFile('rollout-meta.jsonl'),
      jsonl(
        meta({
          cli_version: '0.40.0',
          originator: 'codex_cli_rs',
          git: { commit_hash: 'abc123', branch: 'feat/retry-queue' },
        }),
        {
          timestamp: '2026-11-29T10:00:01.000Z',
          type: 'turn_context',
          payload: {
            cwd: '/home/kim/api',
            approval_policy: 'on-request',
            model: 'gpt-5-codex',
            effort: 'high',
            summary: 'auto',
          },
        },
        {
          timestamp: '2026-11-29T10:00:01.000Z',
          type: 'event_msg',
          payload: { type: 'user_message', message: 'why does the retry queue drain twice?', kind: 'plain' },
        },
        tokens('2026-11-29T10:00:05.000Z'),
      ),
    );
    const s = documentOf([parsed('codex', path)]).sessions[0]!;
    expect(s.project).toBe('/home/kim/api');
    expect(s.branch).toBe('feat/retry-queue');
    expect(s.reasoningEffort).toBe('high');
    expect(s.context.window).toBe(272_000);
    expect(s.title).toBe('why does the retry queue drain twice?');
  });

  // codex-cli 0.53: a rate-limit snapshot on a token_count event, then the error event.
  const rateLimited = () =>
    home.write(
      home.codexFile('rollout-limited.jsonl'),
      jsonl(
        meta({ cli_version: '0.53.0', originator: 'codex_cli_rs', source: 'cli' }),
        tokens('2026-11-29T10:00:05.000Z'),
        {
          timestamp: '2026-11-29T10:00:06.000Z',
          type: 'event_msg',
          payload: {
            type: 'token_count',
            info: null,
            rate_limits: {
              primary: { used_percent: 97, window_minutes: 300, resets_at: 1_795_000_000 },
              secondary: { used_percent: 40, window_minutes: 10_080, resets_at: 1_795_500_000 },
            },
          },
        },
        {
          timestamp: '2026-11-29T10:00:07.000Z',
          type: 'event_msg',
          payload: { type: 'error', error: { kind: 'rate_limit', message: 'Rate limit exceeded' } },
        },
      ),
    );

  it('a rate-limit error event leaves the session in error, with the snapshot kept', () => {
    const s = documentOf([parsed('codex', rateLimited())]).sessions[0]!;
    expect(s.state).toBe('error');
    expect(s.stateDetail).toBe('Rate limit exceeded');
    expect(s.rateLimits).not.toBeNull();
  });

  it('a model named nowhere in the rollout is "no price", not $0', () => {
    const s = documentOf([parsed('codex', rateLimited())]).sessions[0]!;
    expect(s.tokens.output).toBe(80);
    expect(s.cost.usd).toBeNull();
    expect(s.cost.unpriced).toEqual(['unknown']);
  });
});

/**
 * Per-file expectations for real Codex rollouts of codex-cli 0.40 (gpt-5-codex) in the shared corpus,
 * checked only where `../shared/corpus` is present; worked out apart from cctop: an independent script
 * summing `last_token_usage` per `token_count` event, and the failures read off the tool outputs
 * (non-zero exit codes, sandbox refusals, rejected patches).
 */
const EXPECTED: Record<
  string,
  { input: number; cacheRead: number; output: number; reasoning: number; calls: number; failed: number }
> = {
  'agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl': {
    input: 204_231,
    cacheRead: 7_290_112,
    output: 99_678,
    reasoning: 72_192,
    calls: 123,
    failed: 12,
  },
  // Three failures: a bash syntax error and two `sed` runs on a missing file.
  'agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl': {
    input: 29_257,
    cacheRead: 120_192,
    output: 4_808,
    reasoning: 2_688,
    calls: 16,
    failed: 3,
  },
  // Its cumulative total falls half-way (a reset): the per-request counts still add up.
  'agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl': {
    input: 82_071,
    cacheRead: 1_310_208,
    output: 8_672,
    reasoning: 4_224,
    calls: 57,
    failed: 12,
  },
  'agentcmd__rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl': {
    input: 207_301,
    cacheRead: 2_958_336,
    output: 12_340,
    reasoning: 6_144,
    calls: 84,
    failed: 4,
  },
  'agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl': {
    input: 64_514,
    cacheRead: 472_320,
    output: 6_654,
    reasoning: 4_096,
    calls: 34,
    failed: 0,
  },
};

if (HAVE_CORPUS) {
  describe('Codex 0.40 rollouts from ../shared/corpus', () => {
    for (const [file, want] of Object.entries(EXPECTED)) {
      it(`${file.slice(0, 48)}…: tokens, tool calls and failures`, () => {
        const s = documentOf([parsed('codex', corpus('codex', 'rollouts', file))]).sessions[0]!;
        expect(s.tokens).toEqual({
          input: want.input,
          cacheRead: want.cacheRead,
          output: want.output,
          reasoning: want.reasoning,
          cacheWrite: null,
        });
        expect(s.tools.calls).toBe(want.calls);
        expect(s.tools.failed).toBe(want.failed);
        expect(s.models).toEqual(['gpt-5-codex']);
      });
    }
  });
}

describe('Codex token accounting (records written for these tests in the rollout format of codex-cli 0.40+)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const ctx = {
    timestamp: '2026-11-29T10:00:00.000Z',
    type: 'turn_context',
    payload: { model: 'gpt-5', effort: 'medium', cwd: '/w' },
  };
  const u = (input: number, cached: number, output: number, reasoning = 0) => ({
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_output_tokens: reasoning,
    total_tokens: input + output,
  });
  const tokens = (at: string, info: Record<string, unknown>) => ({
    timestamp: at,
    type: 'event_msg',
    payload: { type: 'token_count', info },
  });

  it('input excludes the cached part, and reasoning is reported inside output, not added again', () => {
    const path = home.write(
      home.codexFile('rollout-a.jsonl'),
      jsonl(
        ctx,
        tokens('2026-11-29T10:00:01Z', {
          last_token_usage: u(1000, 800, 100, 60),
          total_token_usage: u(1000, 800, 100, 60),
        }),
      ),
    );
    const s = documentOf([parsed('codex', path)]).sessions[0]!;
    expect(s.tokens).toEqual({ input: 200, cacheRead: 800, output: 100, reasoning: 60, cacheWrite: null });
    // gpt-5: 200 × $1.25/M + 800 × $0.125/M + 100 × $10/M
    expect(s.cost.usd).toBeCloseTo(0.00135, 9);
  });

  it('with only cumulative totals, each event adds the difference; a total that falls is a reset', () => {
    const path = home.write(
      home.codexFile('rollout-b.jsonl'),
      jsonl(
        ctx,
        tokens('2026-11-29T10:00:01Z', { total_token_usage: u(100, 0, 10) }),
        tokens('2026-11-29T10:00:02Z', { total_token_usage: u(250, 0, 30) }),
        tokens('2026-11-29T10:00:03Z', { total_token_usage: u(40, 0, 5) }),
      ),
    );
    const s = documentOf([parsed('codex', path)]).sessions[0]!;
    expect(s.tokens.input).toBe(100 + 150 + 40);
    expect(s.tokens.output).toBe(10 + 20 + 5);
  });

  it('an event repeated with an unchanged total adds nothing', () => {
    const e = { last_token_usage: u(100, 0, 10), total_token_usage: u(100, 0, 10) };
    const path = home.write(
      home.codexFile('rollout-c.jsonl'),
      jsonl(ctx, tokens('2026-11-29T10:00:01Z', e), tokens('2026-11-29T10:00:02Z', e)),
    );
    expect(documentOf([parsed('codex', path)]).sessions[0]!.tokens.input).toBe(100);
  });

  it('cached tokens above the input are counted as inconsistent usage and clamped', () => {
    const path = home.write(
      home.codexFile('rollout-d.jsonl'),
      jsonl(ctx, tokens('2026-11-29T10:00:01Z', { last_token_usage: u(100, 300, 10) })),
    );
    const p = parsed('codex', path);
    expect(p.result.facts.inconsistentUsage).toBe(1);
    const s = documentOf([p]).sessions[0]!;
    expect(s.tokens).toMatchObject({ input: 0, cacheRead: 100 });
  });

  it('the context is the newest request, never the sum of a turn', () => {
    const path = home.write(
      home.codexFile('rollout-e.jsonl'),
      jsonl(
        ctx,
        tokens('2026-11-29T10:00:01Z', {
          last_token_usage: u(30_000, 0, 10),
          total_token_usage: u(30_000, 0, 10),
          model_context_window: 272_000,
        }),
        tokens('2026-11-29T10:00:02Z', {
          last_token_usage: u(32_000, 0, 10),
          total_token_usage: u(62_000, 0, 20),
          model_context_window: 272_000,
        }),
      ),
    );
    expect(documentOf([parsed('codex', path)]).sessions[0]!.context).toEqual({
      used: 32_000,
      window: 272_000,
      compactAt: 272_000,
    });
  });

  it('task_complete makes the session idle; a turn aborted by the user counts as an abort', () => {
    const path = home.write(
      home.codexFile('rollout-f.jsonl'),
      jsonl(
        ctx,
        {
          timestamp: '2026-11-29T10:00:01Z',
          type: 'event_msg',
          payload: { type: 'turn_aborted', reason: 'interrupted' },
        },
        {
          timestamp: '2026-11-29T10:00:02Z',
          type: 'event_msg',
          payload: { type: 'user_message', message: 'go on' },
        },
        { timestamp: '2026-11-29T10:00:03Z', type: 'event_msg', payload: { type: 'task_complete' } },
      ),
      Date.parse('2026-11-29T10:00:03Z'),
    );
    const s = documentOf([parsed('codex', path)], { nowMs: Date.parse('2026-11-29T10:01:00Z') }).sessions[0]!;
    expect(s.state).toBe('idle');
    expect(s.aborts).toBe(1);
  });

  it('the same session archived and live is one session', () => {
    const id = '01997ea4-a70d-7da3-8c20-c736db82a7c5';
    const body = jsonl(
      { timestamp: '2026-11-29T10:00:00Z', type: 'session_meta', payload: { id, cwd: '/w' } },
      ctx,
      tokens('2026-11-29T10:00:01Z', { last_token_usage: u(100, 0, 10) }),
    );
    const live = home.write(home.codexFile(`rollout-2026-11-29T10-00-00-${id}.jsonl`), body);
    const archived = home.write(
      `${home.dir}/.codex/archived_sessions/rollout-2026-11-29T10-00-00-${id}.jsonl`,
      body,
    );
    const doc = documentOf([parsed('codex', live, 'main', id), parsed('codex', archived, 'main', id)]);
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.tokens.input).toBe(100);
  });
});

describe('Codex tool outputs', () => {
  it('a non-zero exit code in the JSON envelope is a failure; zero is not', () => {
    expect(outputFailed('{"output":"x","metadata":{"exit_code":2}}')).toBe(true);
    expect(outputFailed('{"output":"x","metadata":{"exit_code":0}}')).toBe(false);
  });
  it('the plain-text output of newer versions is judged by its exit code line', () => {
    expect(outputFailed('Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom')).toBe(true);
    expect(outputFailed('Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok')).toBe(false);
  });
  it('sandbox refusals and rejected patches are failures; ordinary text is not', () => {
    expect(
      outputFailed('failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error'),
    ).toBe(true);
    expect(outputFailed('patch rejected by user')).toBe(true);
    expect(outputFailed('Plan updated')).toBe(false);
  });
});

/**
 * Lines Codex 0.169.0 wrote in the conformance lab (`[lab:fail]`), trimmed to the members that
 * matter: 0.169 writes no `event_msg` `user_message`, says `Process exited with code N` in an
 * `exec_command` output, and names its sandbox by `type`.
 */
describe('a Codex 0.169 rollout', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const meta = { id: '01a23373-d11c-7af1-b233-ba6d3af3ddd7', cwd: '/tmp/lab/work' };
  const at = '2026-12-01T21:12:38.100Z';
  const rollout = (sandbox: string) =>
    jsonl(
      { timestamp: at, type: 'session_meta', payload: meta },
      {
        timestamp: at,
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'user',
          content: [
            {
              type: 'input_text',
              text: '<environment_context>\n  <cwd>/tmp/lab/work</cwd>\n</environment_context>',
            },
          ],
          internal_chat_message_metadata_passthrough: {
            content_item_kinds: ['environments.environment_context'],
          },
        },
      },
      {
        timestamp: at,
        type: 'turn_context',
        payload: {
          cwd: '/tmp/lab/work',
          approval_policy: 'never',
          model: 'gpt-5-codex',
          sandbox_policy: { type: sandbox },
        },
      },
      {
        timestamp: at,
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '[lab:fail] Follow the lab script fail.' }],
          internal_chat_message_metadata_passthrough: { content_item_kinds: ['user.text'] },
        },
      },
      {
        timestamp: at,
        type: 'response_item',
        payload: {
          type: 'function_call',
          name: 'exec_command',
          arguments: '{"cmd":"echo lab-fail-out; exit 3"}',
          call_id: 'call_lab_2',
        },
      },
      {
        timestamp: at,
        type: 'response_item',
        payload: {
          type: 'function_call_output',
          call_id: 'call_lab_2',
          output:
            'Chunk ID: 2a2748\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 4\nOutput:\nlab-fail-out\n',
        },
      },
    );

  it('counts an exec_command that exited non-zero as a failure', () => {
    const path = home.write(
      home.codexFile(`rollout-2026-12-01T21-12-37-${meta.id}.jsonl`),
      rollout('read-only'),
    );
    const s = documentOf([parsed('codex', path)]).sessions[0]!;
    expect(s.tools).toMatchObject({ calls: 1, failed: 1, byTool: { exec_command: { calls: 1, failed: 1 } } });
  });

  it('is titled by the prompt from its user message, not by the environment Codex sends first', () => {
    const path = home.write(
      home.codexFile(`rollout-2026-12-01T21-12-37-${meta.id}.jsonl`),
      rollout('read-only'),
    );
    expect(documentOf([parsed('codex', path)]).sessions[0]!.title).toBe(
      '[lab:fail] Follow the lab script fail.',
    );
  });

  it('tells a read-only run from a full-access one by its sandbox type', () => {
    const ro = home.write(
      home.codexFile(`rollout-2026-12-01T21-12-37-${meta.id}.jsonl`),
      rollout('read-only'),
    );
    expect(documentOf([parsed('codex', ro)]).sessions[0]!.permissionMode).toBe('never/read-only');
    const full = home.write(
      home.codexFile(`rollout-2026-12-01T21-12-37-${meta.id}.jsonl`),
      rollout('danger-full-access'),
    );
    expect(documentOf([parsed('codex', full)]).sessions[0]!.permissionMode).toBe('never/danger-full-access');
  });
});

describe('the shell exit rule', () => {
  it('reads both the shell tool and exec_command exit lines', () => {
    expect(outputFailed('Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok')).toBe(false);
    expect(outputFailed('Exit code: 2\nOutput:\nnope')).toBe(true);
    expect(
      outputFailed('Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nok\n'),
    ).toBe(false);
    expect(outputFailed('Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 127\nOutput:\n')).toBe(
      true,
    );
  });
});

describe('which tools each Codex request called', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  // Codex 0.169 in the lab writes a response's calls as they stream and its token_count when it
  // ends: one response calling exec_command twice, then a text-only answer.
  const recorded = labFiles('codex').find((f) => f.includes('/parallel/'))!;

  it('usage last (0.169): the calls since the previous token_count are the next one’s; a text answer has none', () => {
    expect(toolsOf(parseFile('codex', recorded).ledger)).toEqual([['exec_command'], []]);
  });

  it('usage last (0.169): a response calling two different tools has both', () => {
    const text = readFileSync(recorded, 'utf8');
    const second = text.lastIndexOf('"name":"exec_command"');
    const edited = `${text.slice(0, second)}"name":"apply_patch"${text.slice(second + '"name":"exec_command"'.length)}`;
    const path = home.write(
      home.codexFile('rollout-2026-12-01T21-24-32-01a2337e-b764-7f32-b411-fbe2c069b9f5.jsonl'),
      edited,
    );
    expect(toolsOf(parseFile('codex', path).ledger)).toEqual([['apply_patch', 'exec_command'], []]);
  });

  // Trimmed from codex-cli 0.40 rollouts (agentcmd, September 2025): the token_count comes first, then
  // the response's reasoning and calls, then a turn_context before the next request.
  const at = '2025-09-25T01:22:20.084Z';
  const line = (type: string, payload: Record<string, unknown>) => ({ timestamp: at, type, payload });
  const usage = (n: number) => ({
    input_tokens: n,
    cached_input_tokens: 0,
    output_tokens: 10,
    reasoning_output_tokens: 0,
    total_tokens: n + 10,
  });
  const count = (n: number, total: number) =>
    line('event_msg', {
      type: 'token_count',
      info: { total_token_usage: usage(total), last_token_usage: usage(n), model_context_window: 272000 },
    });
  const context = line('turn_context', { cwd: '/w', approval_policy: 'on-request', model: 'gpt-5-codex' });
  const call = (name: string, id: string) =>
    line('response_item', { type: 'function_call', name, arguments: '{}', call_id: id });
  const output = (id: string) =>
    line('response_item', { type: 'function_call_output', call_id: id, output: 'ok' });

  it('usage first (0.40): the calls after a token_count are its request’s, and a text answer has none', () => {
    const path = home.write(
      home.codexFile('rollout-2025-09-25T01-22-20-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl'),
      jsonl(
        line('session_meta', { id: '0199812e-64f0-7f73-91fc-095dda01c36e', cwd: '/w' }),
        line('event_msg', { type: 'user_message', message: 'Make team updates fast' }),
        context,
        line('event_msg', { type: 'agent_reasoning', text: 'Assessing' }),
        count(100, 100),
        line('response_item', { type: 'reasoning', summary: [], content: null }),
        call('shell', 'call_1'),
        call('update_plan', 'call_2'),
        output('call_1'),
        output('call_2'),
        context,
        count(200, 300),
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Done.' }],
        }),
      ),
    );
    expect(toolsOf(parseFile('codex', path).ledger)).toEqual([['shell', 'update_plan'], []]);
  });

  it('a local shell call is a call of the local_shell tool', () => {
    const path = home.write(
      home.codexFile('rollout-2025-09-25T01-22-20-0199812e-64f0-7f73-91fc-095dda01c36f.jsonl'),
      jsonl(
        line('session_meta', { id: '0199812e-64f0-7f73-91fc-095dda01c36f', cwd: '/w' }),
        line('event_msg', { type: 'user_message', message: 'List the files' }),
        context,
        line('response_item', {
          type: 'local_shell_call',
          call_id: 'call_1',
          status: 'completed',
          action: { type: 'exec', command: ['ls'] },
        }),
        count(100, 100),
      ),
    );
    const r = parseFile('codex', path);
    expect(toolsOf(r.ledger)).toEqual([['local_shell']]);
    expect(r.facts.tools).toEqual({ local_shell: { calls: 1, failed: 0 } });
  });
});
