import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { amp } from './index.js';

const NOW = Date.parse('2026-02-01T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['amp'], nowMs: NOW });

const thread = (home: FakeHome, id: string, body: object, dir = join(home.dir, '.local', 'share', 'amp')) =>
  home.write(join(dir, 'threads', `${id}.json`), JSON.stringify({ id, ...body }));

const usage = (model: string, ts: string, i: number, o: number, cw = 0, cr = 0) => ({
  model,
  timestamp: ts,
  inputTokens: i,
  outputTokens: o,
  cacheCreationInputTokens: cw,
  cacheReadInputTokens: cr,
});

const SONNET = 'claude-sonnet-4-5-20250929';

describe('Amp threads', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('each assistant usage is a request; the title, folder, calls and failed calls come from the thread', async () => {
    thread(home, 'T-1', {
      created: Date.parse('2026-01-08T09:50:00Z'),
      title: 'Fix the test',
      env: { initial: { trees: [{ uri: 'file:///home/dev/app' }] } },
      messages: [
        { role: 'user', messageId: 0, content: [{ type: 'text', text: 'fix it' }] },
        {
          role: 'assistant',
          messageId: 1,
          content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { cmd: 'npm test' } }],
          usage: usage(SONNET, '2026-01-08T09:50:10Z', 10, 100, 2000, 0),
        },
        {
          role: 'user',
          messageId: 2,
          content: [{ type: 'tool_result', toolUseID: 'c1', run: { status: 'error' } }],
        },
        {
          role: 'assistant',
          messageId: 3,
          content: [{ type: 'text', text: 'done' }],
          state: { type: 'complete', stopReason: 'end_turn' },
          usage: usage(SONNET, '2026-01-08T09:51:00Z', 5, 20, 30, 2000),
        },
      ],
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('T-1');
    expect(s.title).toBe('Fix the test');
    expect(s.project).toBe('/home/dev/app');
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({ input: 15, output: 120, cacheRead: 2000, cacheWrite: 2030, reasoning: null });
    expect(s.tools.byTool).toEqual({ Bash: { calls: 1, failed: 1 } });
    expect(s.context.used).toBe(5 + 30 + 2000);
    expect([s.state, s.stateDetail]).toEqual(['idle', 'reply']);
  });

  it("an older thread's usage ledger counts, its cache tokens from the message each event names", async () => {
    thread(home, 'T-2', {
      messages: [
        {
          role: 'assistant',
          messageId: 1,
          usage: { model: SONNET, cacheCreationInputTokens: 64, cacheReadInputTokens: 512 },
        },
      ],
      usageLedger: {
        events: [
          {
            id: 'e1',
            timestamp: '2025-12-01T12:00:00Z',
            model: SONNET,
            tokens: { input: 7, output: 9 },
            toMessageId: 1,
          },
          { id: 'e2', timestamp: '2025-12-01T12:01:00Z', model: SONNET, tokens: { total: 40 } },
        ],
      },
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(2);
    // The event that names only a total counts it as output.
    expect(s.tokens).toEqual({ input: 7, output: 49, cacheRead: 512, cacheWrite: 64, reasoning: null });
  });

  it('AMP_DATA_DIR names the data directories, comma-separated', async () => {
    const a = join(home.dir, 'a');
    const b = join(home.dir, 'b');
    const m = (ts: string) => ({
      messages: [{ role: 'assistant', messageId: 1, usage: usage(SONNET, ts, 1, 1) }],
    });
    thread(home, 'T-a', m('2026-01-01T00:00:00Z'), a);
    thread(home, 'T-b', m('2026-01-02T00:00:00Z'), b);
    thread(home, 'T-default', m('2026-01-03T00:00:00Z'));
    const ids = (await snap(home, { AMP_DATA_DIR: `${a}, ${b}` })).document.sessions.map((s) => s.id).sort();
    expect(ids).toEqual(['T-a', 'T-b']);
  });

  it('a thread that is not JSON is a bad file for doctor, not a crash', async () => {
    const path = home.write(
      join(home.dir, '.local', 'share', 'amp', 'threads', 'T-bad.json'),
      '{"id": "T-bad", "messages": [',
      Date.parse('2026-01-01T00:00:00Z'),
    );
    const d = (await snap(home)).document;
    expect(d.sessions.map((s) => [s.id, s.requests])).toEqual([['T-bad', 0]]);
    expect(d.problems.map((p) => [p.kind, p.path])).toEqual([['bad-lines', path]]);
  });

  it('the conversation: prompts, replies with their calls, and each call with its result', () => {
    const path = thread(home, 'T-3', {
      messages: [
        { role: 'user', messageId: 0, content: [{ type: 'text', text: 'list the files' }] },
        {
          role: 'assistant',
          messageId: 1,
          content: [
            { type: 'thinking', thinking: 'use ls' },
            { type: 'text', text: 'Listing.' },
            { type: 'tool_use', id: 'c1', name: 'Bash', input: { cmd: 'ls' } },
          ],
          usage: usage(SONNET, '2026-01-08T09:50:10.000Z', 1, 1),
        },
        {
          role: 'user',
          messageId: 2,
          content: [{ type: 'tool_result', toolUseID: 'c1', run: { status: 'done', result: 'a.txt' } }],
        },
        { role: 'assistant', messageId: 3, content: [{ type: 'text', text: 'One file: a.txt' }] },
      ],
    });
    const c = amp.conversation!(path, { before: null, agent: null });
    expect(
      c.turns.map((t) => [t.role, t.kind, t.text, t.tools.map((u) => [u.name, u.result, u.failed])]),
    ).toEqual([
      ['user', 'message', 'list the files', []],
      ['assistant', 'reasoning', 'use ls', []],
      ['assistant', 'message', 'Listing.', [['Bash', 'a.txt', false]]],
      ['assistant', 'message', 'One file: a.txt', []],
    ]);
    expect(c.turns[1]!.ts).toBe('2026-01-08T09:50:10.000Z');
  });
});
