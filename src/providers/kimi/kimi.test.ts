import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { kimi } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['kimi'], nowMs: NOW });

const wire = (home: FakeHome, session: string) =>
  join(home.dir, '.kimi', 'sessions', 'a1b2', session, 'wire.jsonl');
const line = (ts: number, type: string, payload: object) =>
  JSON.stringify({ timestamp: ts, message: { type, payload } });
const usage = (ts: number, id: string, u: object) =>
  line(ts, 'StatusUpdate', { token_usage: u, message_id: id });
const T = 1_770_983_426.5;

describe('Kimi CLI wire files', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('the recorded home: three sessions, titles from the first prompt, the failed shell call named', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'kimi', 'home'), home.dir, { recursive: true });
    const doc = (await snap(home)).document;
    const rows = doc.sessions
      .map((s) => [s.id, s.title, s.model, s.requests, s.tools.byTool])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      [
        '7b1e0d2a-0001',
        'list the failing tests and fix the first one',
        'kimi-k2',
        3,
        { Shell: { calls: 1, failed: 1 }, ReadFile: { calls: 1, failed: 0 } },
      ],
      ['7b1e0d2a-0002', 'write a changelog entry', 'kimi-k2', 3, {}],
      ['7b1e0d2a-0003', 'explain this repository', 'kimi-k2', 2, {}],
    ]);
  });

  it('each step is billed once with its cached parts apart, and a step of only a total counts it as output', async () => {
    home.write(
      wire(home, 's1'),
      [
        JSON.stringify({ type: 'metadata', protocol_version: '1.3' }),
        line(T, 'TurnBegin', { user_input: 'hello' }),
        usage(T + 1, 'm1', { input_other: 100, output: 50, input_cache_read: 400, input_cache_creation: 20 }),
        // The same line written again (a copied folder): one step.
        usage(T + 1, 'm1', { input_other: 100, output: 50, input_cache_read: 400, input_cache_creation: 20 }),
        usage(T + 2, 'm2', { total: 432 }),
        // No tokens at all: not a request.
        usage(T + 3, 'm3', { input_other: 0, output: 0, input_cache_read: 0, input_cache_creation: 0 }),
        '',
      ].join('\n'),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({ input: 100, output: 482, cacheRead: 400, cacheWrite: 20, reasoning: null });
    // The context is the newest prompt whose parts are known: the bare total does not say one.
    expect(s.context.used).toBe(520);
  });

  it("the model is the config's, and Kimi's own default when the config names none (which has no price)", async () => {
    const lines = [
      line(T, 'TurnBegin', { user_input: 'x' }),
      usage(T + 1, 'm1', { input_other: 10, output: 5 }),
      '',
    ];
    home.write(wire(home, 's1'), lines.join('\n'));
    const bare = (await snap(home)).document.sessions[0]!;
    expect([bare.model, bare.cost.usd, bare.cost.unpriced]).toEqual([
      'kimi-for-coding',
      null,
      ['kimi-for-coding'],
    ]);
    home.write(join(home.dir, '.kimi', 'config.json'), '{"model":"kimi-k2.5"}');
    home.write(wire(home, 's2'), lines.join('\n'));
    const named = (await snap(home)).document.sessions.find((s) => s.id === 's2')!;
    expect(named.model).toBe('kimi-k2.5');
    expect(named.cost.usd).toBeGreaterThan(0);
  });

  it('$KIMI_DATA_DIR names the roots, comma-separated, instead of ~/.kimi', async () => {
    const elsewhere = join(home.dir, 'other');
    home.write(join(elsewhere, 'sessions', 'g', 's9', 'wire.jsonl'), `${usage(T, 'm', { output: 7 })}\n`);
    home.write(wire(home, 'ignored'), `${usage(T, 'm', { output: 3 })}\n`);
    const doc = (await snap(home, { KIMI_DATA_DIR: `${elsewhere}, ${join(home.dir, 'none')}` })).document;
    expect(doc.sessions.map((s) => [s.id, s.tokens.output])).toEqual([['s9', 7]]);
  });

  it("Kimi's own $KIMI_SHARE_DIR moves the root, and $KIMI_DATA_DIR, when set, wins over it", async () => {
    const moved = join(home.dir, 'moved');
    home.write(join(moved, 'sessions', 'g', 's8', 'wire.jsonl'), `${usage(T, 'm', { output: 11 })}\n`);
    home.write(wire(home, 'ignored'), `${usage(T, 'm', { output: 3 })}\n`);
    const shared = (await snap(home, { KIMI_SHARE_DIR: moved })).document;
    expect(shared.sessions.map((s) => [s.id, s.tokens.output])).toEqual([['s8', 11]]);
    const both = (await snap(home, { KIMI_SHARE_DIR: moved, KIMI_DATA_DIR: join(home.dir, '.kimi') }))
      .document;
    expect(both.sessions.map((s) => [s.id, s.tokens.output])).toEqual([['ignored', 3]]);
  });

  it('Kimi Code’s agent wires under ~/.kimi-code: one session, every request of every agent, compactions included, each by the model it names', async () => {
    // The records as Kimi Code 0.38 writes them (its agent-core `records/types.ts`): camelCase usage,
    // the model on each request, times in milliseconds.
    const ms = Date.parse('2026-11-20T10:00:00Z');
    const rec = (type: string, time: number, fields: object) => JSON.stringify({ type, ...fields, time });
    const use = (time: number, model: string, u: number[], scope?: string) =>
      rec('usage.record', time, {
        model,
        usage: { inputOther: u[0], output: u[1], inputCacheRead: u[2], inputCacheCreation: u[3] },
        ...(scope ? { usageScope: scope } : {}),
      });
    const agents = join(home.dir, '.kimi-code', 'sessions', 'wd1', 'session_7c1f', 'agents');
    home.write(
      join(agents, 'main', 'wire.jsonl'),
      [
        JSON.stringify({ type: 'metadata', protocol_version: '1.4', created_at: ms }),
        rec('turn.prompt', ms, {
          input: [{ type: 'text', text: 'add a retry to the uploader' }],
          origin: {},
        }),
        use(ms + 1000, 'kimi-code/kimi-k2.5', [1200, 150, 0, 800], 'turn'),
        use(ms + 2000, 'kimi-code/kimi-k2.5', [300, 90, 2000, 0], 'turn'),
        // A compaction's request, recorded without a turn: paid for all the same.
        use(ms + 3000, 'kimi-code/kimi-k2.5', [2500, 400, 0, 0]),
        // No tokens: not a request.
        use(ms + 3500, 'kimi-code/kimi-k2.5', [0, 0, 0, 0], 'turn'),
        '',
      ].join('\n'),
    );
    home.write(
      join(agents, 'agent-1', 'wire.jsonl'),
      [
        JSON.stringify({ type: 'metadata', protocol_version: '1.4', created_at: ms }),
        use(ms + 1500, '__kimi_env_model__', [500, 60, 0, 0], 'turn'),
        '',
      ].join('\n'),
    );
    const doc = (await snap(home)).document;
    expect(
      doc.sessions.map((s) => [s.id, s.title, s.requests, s.tokens, [...s.models].sort(), s.subagentFiles]),
    ).toEqual([
      [
        'session_7c1f',
        'add a retry to the uploader',
        4,
        { input: 4500, output: 700, cacheRead: 2000, cacheWrite: 800, reasoning: null },
        ['kimi-for-coding', 'kimi-k2.5'],
        1,
      ],
    ]);
    const main = doc.sessions[0]!;
    expect(kimi.conversation!(main.file, { before: null, agent: null }).note).toBe(
      "cctop reads Kimi Code's usage and prompts, not its conversation yet",
    );

    // $KIMI_CODE_HOME moves Kimi Code's home.
    const moved = (await snap(home, { KIMI_CODE_HOME: join(home.dir, 'elsewhere') })).document;
    expect(moved.sessions).toEqual([]);
  });

  it('an interrupted step counts as an abort and leaves the session idle', async () => {
    home.write(
      wire(home, 's1'),
      [line(T, 'TurnBegin', { user_input: 'go' }), line(T + 1, 'StepInterrupted', {}), ''].join('\n'),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.aborts).toBe(1);
  });
  it('the conversation of the recorded home: the prompt, each step a reply, each call with its result', () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'kimi', 'home'), home.dir, { recursive: true });
    const path = join(home.dir, '.kimi', 'sessions', '3f2a9c', '7b1e0d2a-0001', 'wire.jsonl');
    const c = kimi.conversation!(path, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.result, u.failed])])).toEqual([
      ['user', 'list the failing tests and fix the first one', []],
      // The failed call's output is empty: its message says what happened.
      ['assistant', 'Looking at the tests.', [['Shell', 'exit 1', true]]],
      ['assistant', '', [['ReadFile', 'x', false]]],
      ['assistant', 'Fixed.', []],
    ]);
  });

  it('thinking, words typed mid-turn, an image, an edit’s diff, a compaction and an interruption read as turns', () => {
    const path = home.write(
      wire(home, 's1'),
      [
        JSON.stringify({ type: 'metadata', protocol_version: '1.3' }),
        line(T, 'TurnBegin', {
          user_input: [
            { type: 'text', text: 'rename foo to bar' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        }),
        line(T + 1, 'StepBegin', { n: 1 }),
        line(T + 2, 'ContentPart', { type: 'think', think: 'An edit of one file.' }),
        line(T + 3, 'ContentPart', { type: 'text', text: 'Renaming.' }),
        line(T + 4, 'ToolCall', {
          type: 'function',
          id: 'tool_e',
          function: { name: 'StrReplaceFile', arguments: '{"path":"a.ts","edit":{"old":"foo","new":"bar"}}' },
        }),
        line(T + 5, 'ToolResult', {
          tool_call_id: 'tool_e',
          return_value: {
            is_error: false,
            output: '',
            message: 'File successfully edited.',
            display: [{ type: 'diff', path: 'a.ts', old_text: 'foo\n', new_text: 'bar\nbaz\n' }],
          },
        }),
        line(T + 6, 'SteerInput', { user_input: 'and the tests too' }),
        line(T + 7, 'StepBegin', { n: 2 }),
        line(T + 8, 'StepInterrupted', {}),
        line(T + 9, 'CompactionBegin', {}),
        '',
      ].join('\n'),
    );
    const c = kimi.conversation!(path, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'rename foo to bar\n\n[image]'],
      ['assistant', 'reasoning', 'An edit of one file.'],
      ['assistant', 'message', 'Renaming.'],
      ['user', 'message', 'and the tests too'],
      ['system', 'message', 'interrupted'],
      ['system', 'compaction', 'compacted'],
    ]);
    const edit = c.turns[2]!.tools[0]!;
    expect([edit.name, edit.result, edit.failed, edit.added, edit.removed]).toEqual([
      'StrReplaceFile',
      'File successfully edited.',
      false,
      2,
      1,
    ]);
    expect(c.turns[0]!.ts).toBe(new Date(Math.trunc(T * 1000)).toISOString());
  });
});
