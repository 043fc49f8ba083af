import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, FakeHome, HAVE_CORPUS, jsonl, REPO } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, LAB_CASES, labFile, labFiles } from '../../test-support/lines.js';
import { documentOf, parsed, parseFile } from '../../test-support/parse.js';
import { toolsOf } from '../../test-support/tools.js';

/**
 * What Claude Code 2.1.328 wrote in each recorded lab case (`lab/fixtures/claude/<case>/`), worked out
 * apart from cctop's parser: the tokens are the sums of the figures the lab server answered with (its
 * `ledger.json`, every request of the session), the calls are the tool calls it scripted, and the one
 * failure is the `fail` script's command that exits non-zero.
 */
const LAB: Record<
  (typeof LAB_CASES)[number],
  { tokens: [number, number, number, number]; calls: number; failed: number }
> = {
  text: { tokens: [10_769, 15, 10_787, 18], calls: 0, failed: 0 },
  call: { tokens: [21_565, 36, 21_621, 57], calls: 1, failed: 0 },
  fail: { tokens: [21_542, 44, 21_626, 85], calls: 1, failed: 1 },
  parallel: { tokens: [21_545, 52, 21_657, 113], calls: 2, failed: 0 },
  resume: { tokens: [32_285, 93, 32_505, 222], calls: 1, failed: 0 },
};

describe('Claude Code 2.1.328 transcripts recorded in the conformance lab', () => {
  for (const name of LAB_CASES) {
    it(`${name}: tokens, models, tool calls and failures are what the server answered`, () => {
      const want = LAB[name];
      const p = parsed('claude', labFile('claude', name));
      const s = documentOf([p]).sessions[0]!;
      expect([s.tokens.input, s.tokens.output, s.tokens.cacheRead, s.tokens.cacheWrite]).toEqual(want.tokens);
      expect(s.models).toEqual(['claude-sonnet-4-5']);
      expect(s.tools.calls).toBe(want.calls);
      expect(s.tools.failed).toBe(want.failed);
      expect(p.result.facts.badLines).toBe(0);
    });
  }

  it('every recorded and every bundled demo transcript parses without a bad line', () => {
    const files = [...labFiles('claude'), ...demoFiles('.claude'), ...corpusFiles('claude-code/transcripts')];
    expect(files.length).toBeGreaterThanOrEqual(LAB_CASES.length + 6);
    for (const file of files) {
      const p = parsed('claude', file);
      expect(p.result.facts.badLines, file).toBe(0);
      expect(p.result.facts.lines, file).toBeGreaterThan(0);
    }
  });

  it('Claude Code 2.1 records thinking apart from output, so reasoning reads 0 where the model never thought', () => {
    const p = parsed('claude', labFile('claude', 'call'));
    expect(documentOf([p]).sessions[0]!.tokens.reasoning).toBe(0);
  });

  it('the context is the prompt of the newest request, not the sum over the session', () => {
    const s = documentOf([parsed('claude', labFile('claude', 'call'))]).sessions[0]!;
    // The server's last request: input 10,802 + cache read 10,834 + cache write 32 (its `prompt`).
    expect(s.context.used).toBe(21_668);
    expect(s.context.window).toBe(200_000);
    expect(s.context.compactAt).toBe(167_000);
  });

  it('a subagent transcript counts toward its parent session (the bundled demo)', () => {
    const dir = join(REPO, 'demo', 'home', '.claude', 'projects', '-home-sam-src-billing');
    const parent = 'a0d12928-daca-4076-a4ae-776fe074bc1e';
    const doc = documentOf([
      parsed('claude', join(dir, `${parent}.jsonl`)),
      parsed('claude', join(dir, parent, 'subagents', 'agent-a3a6448476ea5ca32.jsonl'), 'subagent', parent),
    ]);
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.subagentFiles).toBe(1);
    expect(doc.sessions[0]!.id).toBe(parent);
  });
});

/**
 * Per-file expectations for real Claude Code transcripts of other versions in the shared corpus,
 * checked only where `../shared/corpus` is present (a clone has none; the lab's recordings above are
 * the cases every clone runs). Worked out apart from cctop's parser: an independent script that
 * JSON-parses every line, keeps the fullest copy of each (message.id, requestId), counts tool_use ids
 * once and error results that answer a known call; and, for the failures, by reading the results.
 */
const EXPECTED: Record<
  string,
  { tokens: [number, number, number, number]; calls: number; failed: number; models: string[] }
> = {
  // Claude Code 2.0.27: a long real session; the one failure is a Read of a missing file.
  'agentcmd__full-session-four.jsonl': {
    tokens: [48, 228, 1_178_761, 64_499],
    calls: 27,
    failed: 1,
    models: ['claude-sonnet-4-5-20250929'],
  },
  // 2.0.28, starts with 16 summaries of other sessions.
  'agentcmd__full-session-five.jsonl': {
    tokens: [14, 12, 50_325, 9_289],
    calls: 5,
    failed: 0,
    models: ['claude-sonnet-4-5-20250929'],
  },
  'agentcmd__full-session-three.jsonl': {
    tokens: [1_223, 833, 185_540, 21_565],
    calls: 23,
    failed: 0,
    models: ['claude-sonnet-4-5-20250929'],
  },
  'agentcmd__full-session-two.jsonl': {
    tokens: [45, 107, 307_871, 63_095],
    calls: 10,
    failed: 1,
    models: ['claude-sonnet-4-5-20250929'],
  },
  'agentcmd__06381696-0074-49f8-863e-6ad4fac507f9.jsonl': {
    tokens: [11, 16, 49_327, 33_531],
    calls: 3,
    failed: 0,
    models: ['claude-sonnet-4-5-20250929'],
  },
  'agent-workflows-v2__8f079ffe-995f-42ba-b089-84de56817b6f.jsonl': {
    tokens: [47, 8, 64_787, 8_399],
    calls: 8,
    failed: 0,
    models: ['claude-sonnet-4-5-20250929'],
  },
  // Claude Code 1.0.x, 805 lines; 33 of 268 tool calls came back as errors.
  'happy-cli__400429ba-c1e1-4ef5-a7ec-fe40608df53b.trimmed.jsonl': {
    tokens: [1_802, 35_923, 19_806_352, 533_930],
    calls: 268,
    failed: 33,
    models: ['claude-opus-4-20250514'],
  },
  // The same response written twice: counted once.
  'happy-cli__duplicate-assistant-response.jsonl': {
    tokens: [12, 16, 13_594, 34_756],
    calls: 0,
    failed: 0,
    models: ['claude-opus-4-20250514'],
  },
  // The user refused the tool: its result is an error.
  'happy-cli__permission-prompt-aborted-with-interrupt.jsonl': {
    tokens: [4, 5, 10_491, 5_678],
    calls: 1,
    failed: 1,
    models: ['claude-opus-4-20250514'],
  },
  'happy-cli__task_non_sdk.jsonl': {
    tokens: [25, 1_163, 78_093, 28_106],
    calls: 3,
    failed: 0,
    models: ['claude-opus-4-1-20250805', 'claude-sonnet-4-20250514'],
  },
  'happy-cli__1-continue-run-ls-tool.jsonl': {
    tokens: [14, 100, 17_776, 35_691],
    calls: 1,
    failed: 0,
    models: ['claude-opus-4-20250514'],
  },
  'happy-cli__watcher-simple-session.jsonl': {
    tokens: [4, 5, 16_180, 0],
    calls: 0,
    failed: 0,
    models: ['claude-opus-4-20250514'],
  },
};

if (HAVE_CORPUS) {
  describe('Claude Code transcripts of older versions from ../shared/corpus', () => {
    for (const [file, want] of Object.entries(EXPECTED)) {
      it(`${file}: tokens, models, tool calls and failures`, () => {
        const p = parsed('claude', corpus('claude-code', 'transcripts', file));
        const s = documentOf([p]).sessions[0]!;
        expect([s.tokens.input, s.tokens.output, s.tokens.cacheRead, s.tokens.cacheWrite]).toEqual(
          want.tokens,
        );
        expect(s.models).toEqual(want.models);
        expect(s.tools.calls).toBe(want.calls);
        expect(s.tools.failed).toBe(want.failed);
        expect(p.result.facts.badLines).toBe(0);
      });
    }
  });
}

describe('Claude Code records (written for these tests from the format Claude Code 2.x writes)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const base = {
    sessionId: 's1',
    cwd: '/work/app',
    isSidechain: false,
    userType: 'external',
    version: '2.1.80',
  };
  const assistant = (
    id: string,
    req: string | undefined,
    usage: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => ({
    ...base,
    type: 'assistant',
    uuid: `a-${id}-${Math.random()}`,
    timestamp: '2026-11-29T10:00:00.000Z',
    ...(req ? { requestId: req } : {}),
    message: {
      id,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'ok' }],
      usage,
    },
    ...extra,
  });
  const usage = (input: number, output: number, read = 0, write = 0) => ({
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
  });

  it('a response streamed as several lines counts once, with its most complete usage', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        assistant('m1', 'r1', usage(10, 1, 100, 0)),
        assistant('m1', 'r1', usage(10, 250, 100, 0)),
        assistant('m1', 'r1', usage(10, 250, 100, 0)),
      ),
    );
    const s = documentOf([parsed('claude', path)]).sessions[0]!;
    expect(s.tokens).toMatchObject({ input: 10, output: 250, cacheRead: 100, cacheWrite: 0 });
    expect(s.requests).toBe(1);
  });

  it('a line with no requestId still counts', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(assistant('m1', undefined, usage(5, 7))),
    );
    expect(documentOf([parsed('claude', path)]).sessions[0]!.tokens.output).toBe(7);
  });

  it('a sidechain replay of a main-thread response is not counted twice', () => {
    const main = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(assistant('m1', 'r1', usage(10, 20, 1000, 0))),
    );
    const side = home.write(
      home.claudeFile('-w', 's1/subagents/agent-btw.jsonl'),
      jsonl(
        assistant('m1', 'r2', usage(10, 20, 1000, 0), { isSidechain: true }),
        assistant('m2', 'r3', usage(1, 2, 0, 0), { isSidechain: true }),
      ),
    );
    const s = documentOf([parsed('claude', main), parsed('claude', side, 'subagent', 's1')]).sessions[0]!;
    // m1 once (the main copy) plus the sidechain's own m2.
    expect(s.tokens).toMatchObject({ input: 11, output: 22, cacheRead: 1000 });
  });

  it('a resumed session that replays its parent does not bill the replayed responses again', () => {
    const parent = home.write(
      home.claudeFile('-w', 'p.jsonl'),
      jsonl(assistant('m1', 'r1', usage(10, 20))),
      Date.parse('2026-11-01T00:00:00Z'),
    );
    const child = home.write(
      home.claudeFile('-w', 'c.jsonl'),
      jsonl(assistant('m1', 'r1', usage(10, 20)), assistant('m2', 'r2', usage(3, 4))),
      Date.parse('2026-11-02T00:00:00Z'),
    );
    const doc = documentOf([parsed('claude', parent), parsed('claude', child)]);
    const byId = Object.fromEntries(doc.sessions.map((s) => [s.id, s]));
    expect(byId.p!.tokens.output).toBe(20);
    expect(byId.c!.tokens.output).toBe(4);
  });

  it('one-hour cache writes are kept apart and priced at their own rate', () => {
    const oneHour = {
      ...usage(0, 0, 0, 100_000),
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 100_000 },
    };
    const fiveMin = {
      ...usage(0, 0, 0, 100_000),
      cache_creation: { ephemeral_5m_input_tokens: 100_000, ephemeral_1h_input_tokens: 0 },
    };
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), jsonl(assistant('m1', 'r1', oneHour)));
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), jsonl(assistant('m2', 'r2', fiveMin)));
    const doc = documentOf([parsed('claude', a), parsed('claude', b)]);
    const cost = Object.fromEntries(doc.sessions.map((s) => [s.id, s.cost.usd]));
    // Sonnet 4.5: $6 per million one-hour writes, $3.75 per million five-minute writes.
    expect(cost.a).toBeCloseTo(0.6, 6);
    expect(cost.b).toBeCloseTo(0.375, 6);
  });

  it('the long-context tier applies to each request on its own prompt size', () => {
    // Two requests of 150k prompt each: neither crosses the 200k tier, though their sum would.
    const a = home.write(
      home.claudeFile('-w', 'a.jsonl'),
      jsonl(assistant('m1', 'r1', usage(150_000, 0)), assistant('m2', 'r2', usage(150_000, 0))),
    );
    // One request of 300k: the whole request is priced at the long-context rate ($6 rather than $3).
    const b = home.write(home.claudeFile('-w', 'b.jsonl'), jsonl(assistant('m3', 'r3', usage(300_000, 0))));
    const cost = Object.fromEntries(
      documentOf([parsed('claude', a), parsed('claude', b)]).sessions.map((s) => [s.id, s.cost.usd]),
    );
    expect(cost.a).toBeCloseTo(0.9, 6);
    expect(cost.b).toBeCloseTo(1.8, 6);
  });

  it('a compaction marked both by a boundary and by a summary record counts once', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        {
          ...base,
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          timestamp: '2026-11-29T10:00:00Z',
        },
        {
          ...base,
          type: 'user',
          isCompactSummary: true,
          parentUuid: 'b1',
          uuid: 'u1',
          timestamp: '2026-11-29T10:00:01Z',
          message: { role: 'user', content: 'Summary' },
        },
        // An older Claude Code marked a compaction with the summary alone.
        {
          ...base,
          type: 'user',
          isCompactSummary: true,
          uuid: 'u2',
          timestamp: '2026-11-29T11:00:01Z',
          message: { role: 'user', content: 'Summary' },
        },
      ),
    );
    expect(documentOf([parsed('claude', path)]).sessions[0]!.compactions).toBe(2);
  });

  it('a custom title wins over the AI title, which wins over the first prompt', () => {
    const prompt = {
      ...base,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-11-29T10:00:00Z',
      message: { role: 'user', content: 'fix the login bug' },
    };
    const a = home.write(home.claudeFile('-w', 'a.jsonl'), jsonl(prompt));
    const b = home.write(
      home.claudeFile('-w', 'b.jsonl'),
      jsonl(prompt, { type: 'ai-title', sessionId: 'b', aiTitle: 'Login bug' }),
    );
    const c = home.write(
      home.claudeFile('-w', 'c.jsonl'),
      jsonl(
        prompt,
        { type: 'ai-title', sessionId: 'c', aiTitle: 'Login bug' },
        { type: 'custom-title', sessionId: 'c', customTitle: 'Auth work' },
      ),
    );
    const titles = Object.fromEntries(
      documentOf([parsed('claude', a), parsed('claude', b), parsed('claude', c)]).sessions.map((s) => [
        s.id,
        s.title,
      ]),
    );
    expect(titles).toEqual({ a: 'fix the login bug', b: 'Login bug', c: 'Auth work' });
  });

  it('a summary written in another file names the session whose leaf message it points at', () => {
    const a = home.write(
      home.claudeFile('-w', 'a.jsonl'),
      jsonl({
        ...base,
        type: 'user',
        uuid: 'leaf-1',
        timestamp: '2026-11-29T10:00:00Z',
        message: { role: 'user', content: 'hello' },
      }),
    );
    const b = home.write(
      home.claudeFile('-w', 'b.jsonl'),
      jsonl(
        { type: 'summary', summary: 'Greeting the user', leafUuid: 'leaf-1' },
        { type: 'summary', summary: 'Elsewhere', leafUuid: 'nowhere' },
      ),
    );
    const titles = Object.fromEntries(
      documentOf([parsed('claude', a), parsed('claude', b)]).sessions.map((s) => [s.id, s.title]),
    );
    expect(titles.a).toBe('Greeting the user');
  });

  it('an API error as the newest record reads as error; a finished turn reads as idle at once', () => {
    const now = Date.parse('2026-11-29T10:01:00Z');
    const err = home.write(
      home.claudeFile('-w', 'e.jsonl'),
      jsonl({ ...base, type: 'system', subtype: 'api_error', timestamp: '2026-11-29T10:00:00Z', uuid: 'x' }),
      now,
    );
    const done = home.write(
      home.claudeFile('-w', 'd.jsonl'),
      jsonl(assistant('m1', 'r1', usage(1, 1)), {
        ...base,
        type: 'system',
        subtype: 'turn_duration',
        durationMs: 1000,
        timestamp: '2026-11-29T10:00:05Z',
        uuid: 'y',
      }),
      now,
    );
    const busy = home.write(
      home.claudeFile('-w', 'w.jsonl'),
      jsonl({
        ...assistant('m2', 'r2', usage(1, 1)),
        message: {
          id: 'm2',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }],
          usage: usage(1, 1),
        },
      }),
      now,
    );
    const states = Object.fromEntries(
      documentOf([parsed('claude', err), parsed('claude', done), parsed('claude', busy)], {
        nowMs: now,
      }).sessions.map((s) => [s.id, s.state]),
    );
    expect(states).toEqual({ e: 'error', d: 'idle', w: 'working' });
  });

  it('working lapses to idle once the file has been quiet for fifteen minutes', () => {
    const written = Date.parse('2026-11-29T10:00:00Z');
    const path = home.write(
      home.claudeFile('-w', 'w.jsonl'),
      jsonl(assistant('m1', 'r1', usage(1, 1))),
      written,
    );
    expect(documentOf([parsed('claude', path)], { nowMs: written + 14 * 60_000 }).sessions[0]!.state).toBe(
      'working',
    );
    expect(documentOf([parsed('claude', path)], { nowMs: written + 16 * 60_000 }).sessions[0]!.state).toBe(
      'idle',
    );
  });

  it('a [1m] model or a project pinning one has a million-token window', () => {
    const a = home.write(
      home.claudeFile('-w', 'a.jsonl'),
      jsonl({
        ...assistant('m1', 'r1', usage(1, 1)),
        message: {
          id: 'm1',
          role: 'assistant',
          model: 'claude-sonnet-4-5[1m]',
          content: [],
          usage: usage(1, 1),
        },
      }),
    );
    const cwd = `${home.dir}/proj`;
    home.write(`${cwd}/.claude/settings.json`, JSON.stringify({ model: 'sonnet[1m]' }));
    const b = home.write(
      home.claudeFile('-w', 'b.jsonl'),
      jsonl({ ...assistant('m2', 'r2', usage(1, 1)), cwd }),
    );
    const windows = Object.fromEntries(
      documentOf([parsed('claude', a), parsed('claude', b)]).sessions.map((s) => [s.id, s.context.window]),
    );
    expect(windows).toEqual({ a: 1_000_000, b: 1_000_000 });
  });

  it('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE moves the auto-compact point', () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), jsonl(assistant('m1', 'r1', usage(1, 1))));
    const s = documentOf([parsed('claude', path)], { env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' } })
      .sessions[0]!;
    expect(s.context.compactAt).toBe(100_000);
  });

  // The records below follow what Claude Code 2.0.27 and 2.0.28 wrote (`version` says which); the text
  // in them is ours.
  const v20 = { ...base, version: '2.0.27' };
  const user = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) => ({
    ...v20,
    type: 'user',
    uuid,
    timestamp: '2026-11-29T10:00:00.000Z',
    message: { role: 'user', content },
    ...extra,
  });
  const calling = (id: string, tool: { id: string; name: string; input: Record<string, unknown> }) => ({
    ...assistant(id, `r-${id}`, usage(3, 40, 1_000, 0)),
    ...v20,
    message: {
      id,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'tool_use', ...tool }],
      usage: usage(3, 40, 1_000, 0),
    },
  });
  const result = (uuid: string, toolUseId: string, content: string, extra: Record<string, unknown> = {}) =>
    user(uuid, [{ type: 'tool_result', tool_use_id: toolUseId, content, ...extra }]);

  it('Claude Code 2.0 recorded no thinking apart from output, so reasoning is unknown, not zero', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(user('u1', 'hello'), { ...assistant('m1', 'r1', usage(3, 12, 500, 20)), ...v20 }),
    );
    const s = documentOf([parsed('claude', path)]).sessions[0]!;
    expect(s.tokens.output).toBe(12);
    expect(s.tokens.reasoning).toBeNull();
  });

  it('a session that opens with summaries of other sessions is titled by its first prompt', () => {
    // Claude Code 2.0.28 began a continued session's file with the summaries of earlier ones.
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        { type: 'summary', summary: 'Fixing the flaky upload test', leafUuid: 'other-session-leaf-1' },
        { type: 'summary', summary: 'Renaming the billing module', leafUuid: 'other-session-leaf-2' },
        user('u1', 'look up how the retry queue drains'),
        { ...assistant('m1', 'r1', usage(3, 12)), ...v20 },
      ),
    );
    expect(documentOf([parsed('claude', path)]).sessions[0]!.title).toBe(
      'look up how the retry queue drains',
    );
  });

  it('a session that begins with /clear is titled by the prompt that follows, not by the command', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        { type: 'file-history-snapshot', messageId: 'f1', snapshot: { trackedFileBackups: {} } },
        user('u0', 'Caveat: The messages below were generated by the user while running local commands.', {
          isMeta: true,
        }),
        user(
          'u1',
          '<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>',
        ),
        user('u2', '<local-command-stdout></local-command-stdout>'),
        user('u3', 'make the sidebar collapse on narrow screens'),
        { ...assistant('m1', 'r1', usage(3, 12)), ...v20 },
      ),
    );
    expect(documentOf([parsed('claude', path)]).sessions[0]!.title).toBe(
      'make the sidebar collapse on narrow screens',
    );
  });

  it('an interrupted tool call leaves the session idle and counts one abort', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        user('u1', 'write notes.txt'),
        calling('m1', { id: 'toolu_w1', name: 'Write', input: { file_path: '/w/notes.txt', content: 'x' } }),
        result('u2', 'toolu_w1', 'Permission prompt was aborted.', { is_error: true }),
        user('u3', [{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
      ),
    );
    const s = documentOf([parsed('claude', path)]).sessions[0]!;
    expect(s.state).toBe('idle');
    expect(s.aborts).toBe(1);
    expect(s.tools.failed).toBe(1);
  });

  it('a plan waiting for approval reads as waiting on the user', () => {
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        user('u1', 'plan the move to the new router'),
        calling('m1', { id: 'toolu_p1', name: 'ExitPlanMode', input: { plan: '1. move the routes' } }),
      ),
    );
    const s = documentOf([parsed('claude', path)]).sessions[0]!;
    expect(s.state).toBe('waiting');
    expect(s.stateDetail).toBe('ExitPlanMode');
  });

  it('lines added and removed come from the recorded patches', () => {
    // Two edits: the first adds 2 lines and removes 1, the second adds 1; context lines count nowhere.
    const patch = (lines: string[]) => ({
      toolUseResult: {
        filePath: '/w/a.ts',
        structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 4, lines }],
      },
    });
    const path = home.write(
      home.claudeFile('-w', 's1.jsonl'),
      jsonl(
        user('u1', 'tidy a.ts'),
        calling('m1', { id: 'toolu_e1', name: 'Edit', input: { file_path: '/w/a.ts' } }),
        {
          ...result('u2', 'toolu_e1', 'The file /w/a.ts has been updated.'),
          ...patch([' keep', '-old', '+one', '+two']),
        },
        calling('m2', { id: 'toolu_e2', name: 'Edit', input: { file_path: '/w/a.ts' } }),
        { ...result('u3', 'toolu_e2', 'The file /w/a.ts has been updated.'), ...patch([' keep', '+added']) },
      ),
    );
    expect(documentOf([parsed('claude', path)]).sessions[0]!.lines).toEqual({ added: 3, removed: 1 });
  });
});

describe('which tools each Claude Code request called', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  // Claude Code 2.1.328 in the lab: one response calling Bash twice (one line per tool_use block,
  // sharing the message id), then a text-only answer.
  const recorded = labFiles('claude').find((f) => f.includes('/parallel/'))!;
  const lines = readFileSync(recorded, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const calling = (l: string) => l.includes('"type":"tool_use","id":"call_lab_');

  it('a response streamed as one line per tool_use calls the tools of all its lines; a text answer none', () => {
    expect(toolsOf(parseFile('claude', recorded).ledger)).toEqual([['Bash'], []]);
  });

  it('a response calling two different tools has both, whichever line names each', () => {
    // The recorded response with its second call made a Read: the set is the two names.
    const second = lines.findLastIndex(calling);
    const edited = lines.map((l, i) => (i === second ? l.replace('"name":"Bash"', '"name":"Read"') : l));
    const path = home.write(home.claudeFile('-w', 's.jsonl'), `${edited.join('\n')}\n`);
    expect(toolsOf(parseFile('claude', path).ledger)).toEqual([['Bash', 'Read'], []]);
  });

  it('a response whose lines are read in two passes over a growing file is one request with both calls', () => {
    const first = lines.findIndex(calling);
    const path = home.write(home.claudeFile('-w', 's.jsonl'), `${lines.slice(0, first + 1).join('\n')}\n`);
    const before = parseFile('claude', path);
    expect(toolsOf(before.ledger)).toEqual([['Bash']]);
    home.write(path, `${lines.join('\n')}\n`);
    const after = parseFile('claude', path, before);
    expect(toolsOf(after.ledger)).toEqual([['Bash'], []]);
  });
});
