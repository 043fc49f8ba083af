import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { droid } from './index.js';
import { modelName } from './record.js';

const NOW = Date.parse('2026-02-01T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['droid'], nowMs: NOW });

const sessions = (home: FakeHome, ...parts: string[]) => join(home.dir, '.factory', 'sessions', ...parts);

const tokenUsage = (i: number, o: number, cw: number, cr: number, th: number) => ({
  inputTokens: i,
  outputTokens: o,
  cacheCreationTokens: cw,
  cacheReadTokens: cr,
  thinkingTokens: th,
});

const message = (ts: string, role: string, content: unknown) => ({
  type: 'message',
  timestamp: ts,
  message: { role, content },
});

describe('Droid sessions', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it("Droid's spelling of a model is the catalogue's", () => {
    expect(modelName('custom:Claude-Opus-4.5-[Anthropic]')).toBe('claude-opus-4-5');
    expect(modelName('Claude Haiku 4.5 [Anthropic]')).toBe('claude-haiku-4-5');
    expect(modelName('gpt-5-codex')).toBe('gpt-5-codex');
  });

  it('the settings hold the totals, thinking counted as output; the conversation names, places and calls', async () => {
    home.write(
      sessions(home, '-home-dev-api', 's1.settings.json'),
      JSON.stringify({
        model: 'claude-sonnet-4-5-20250929',
        reasoningEffort: 'high',
        providerLock: 'anthropic',
        providerLockTimestamp: '2026-01-12T08:00:00.000Z',
        tokenUsage: tokenUsage(100, 50, 20, 400, 5),
      }),
    );
    home.write(
      sessions(home, '-home-dev-api', 's1.jsonl'),
      jsonl(
        {
          type: 'session_start',
          id: 's1',
          title: 'New session',
          sessionTitle: 'Rate limits',
          cwd: '/home/dev/api',
        },
        message('2026-01-12T08:00:05Z', 'user', [{ type: 'text', text: 'add rate limits' }]),
        message('2026-01-12T08:00:20Z', 'assistant', [
          { type: 'tool_use', id: 't1', name: 'Execute', input: {} },
        ]),
        message('2026-01-12T08:00:30Z', 'user', [
          { type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'x' },
        ]),
        message('2026-01-12T08:01:00Z', 'assistant', [{ type: 'text', text: 'done' }]),
      ),
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.id, s.title, s.project, s.reasoningEffort]).toEqual([
      's1',
      'Rate limits',
      '/home/dev/api',
      'high',
    ]);
    expect(s.tokens).toEqual({ input: 100, output: 55, cacheRead: 400, cacheWrite: 20, reasoning: 5 });
    expect(s.requests).toBe(1);
    expect(s.tools.byTool).toEqual({ Execute: { calls: 1, failed: 1 } });
    expect([s.startedAt, s.lastActiveAt]).toEqual(['2026-01-12T08:00:00.000Z', '2026-01-12T08:01:00.000Z']);
    expect([s.state, s.stateDetail]).toEqual(['idle', 'reply']);
  });

  it('a model the settings do not name is the one the conversation states', async () => {
    home.write(
      sessions(home, 'p', 's2.settings.json'),
      JSON.stringify({
        providerLockTimestamp: '2026-01-12T08:00:00Z',
        tokenUsage: tokenUsage(10, 20, 0, 0, 0),
      }),
    );
    home.write(
      sessions(home, 'p', 's2.jsonl'),
      jsonl(message('2026-01-12T08:00:01Z', 'user', 'Model: Claude Haiku 4.5 [Anthropic]')),
    );
    expect((await snap(home)).document.sessions[0]!.models).toEqual(['claude-haiku-4-5']);
  });

  it('a copy of a session in a second sessions directory counts once, as the first directory has it', async () => {
    const a = join(home.dir, 'a');
    const b = join(home.dir, 'b');
    const settings = (ts: string, n: number) =>
      JSON.stringify({ model: 'gpt-5', providerLockTimestamp: ts, tokenUsage: tokenUsage(n, n, 0, 0, 0) });
    home.write(join(a, 'p', 's3.settings.json'), settings('2026-01-10T00:00:00Z', 10));
    home.write(join(b, 'p', 's3.settings.json'), settings('2026-01-11T00:00:00Z', 1000));
    const ab = (await snap(home, { DROID_SESSIONS_DIR: `${a},${b}` })).document;
    expect(ab.sessions.map((s) => [s.id, s.tokens.input, s.tokens.output])).toEqual([['s3', 10, 10]]);
    const ba = (await snap(home, { DROID_SESSIONS_DIR: `${b},${a}` })).document;
    expect(ba.sessions.map((s) => [s.id, s.tokens.input, s.tokens.output])).toEqual([['s3', 1000, 1000]]);
  });

  it('an archived copy, damaged and however large, neither takes nor changes the session it copies', async () => {
    const settings = (n: number) =>
      JSON.stringify({
        model: 'gpt-5',
        providerLockTimestamp: '2026-01-10T00:00:00Z',
        tokenUsage: tokenUsage(n, n, 0, 0, 0),
      });
    const live = home.write(sessions(home, 'p', 's5.settings.json'), settings(10));
    const archived = home.write(sessions(home, 'archive', 's5.settings.json'), settings(7));
    const sound = (await snap(home)).document;
    expect(sound.sessions.map((s) => [s.id, s.file, s.tokens.input])).toEqual([['s5', live, 10]]);

    // Cut short and padded past the sound copy's size: unreadable, and named.
    home.write(archived, settings(7).slice(0, 20).padEnd(4096, ' '));
    const broken = (await snap(home)).document;
    expect(broken.sessions).toEqual(sound.sessions);
    expect(broken.problems.some((p) => p.path === archived)).toBe(true);

    // Readable, larger, with other totals: still a copy, and not the one that speaks.
    home.write(archived, settings(99999).padEnd(4096, ' '));
    expect((await snap(home)).document.sessions).toEqual(sound.sessions);
  });

  it('the conversation: prompts, replies, and each call with its result', () => {
    const path = home.write(sessions(home, 'p', 's4.settings.json'), '{}');
    home.write(
      sessions(home, 'p', 's4.jsonl'),
      jsonl(
        { type: 'session_start', id: 's4' },
        message('2026-01-12T08:00:05Z', 'user', [{ type: 'text', text: 'run the tests' }]),
        message('2026-01-12T08:00:20Z', 'assistant', [
          { type: 'text', text: 'Running.' },
          { type: 'tool_use', id: 't1', name: 'Execute', input: { command: 'npm test' } },
        ]),
        message('2026-01-12T08:00:30Z', 'user', [
          { type: 'tool_result', tool_use_id: 't1', is_error: true, content: '1 failing' },
        ]),
      ),
    );
    const c = droid.conversation!(path, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.result, u.failed])])).toEqual([
      ['user', 'run the tests', []],
      ['assistant', 'Running.', [['Execute', '1 failing', true]]],
    ]);
  });
});
