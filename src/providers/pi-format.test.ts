import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { readCold } from '../test-support/snapshot.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

/** One session in Pi's format, as both harnesses write it (lines written for this test from the format). */
function session(): string {
  const at = (s: number) => new Date(NOW - 60_000 + s * 1000);
  let n = 0;
  const message = (s: number, m: Record<string, unknown>) => ({
    type: 'message',
    id: `e${++n}`,
    parentId: null,
    timestamp: at(s).toISOString(),
    message: { timestamp: at(s).getTime(), ...m },
  });
  const answer = (s: number, calls: string[], stop: string) =>
    message(s, {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: calls.map((name, i) => ({ type: 'toolCall', id: `t${s}-${i}`, name, arguments: {} })),
      usage: { input: 100, output: 20, cacheRead: 1000, cacheWrite: 50, cost: { total: 0.01 } },
      stopReason: stop,
    });
  return jsonl(
    { type: 'session', version: 3, id: 'shared', timestamp: at(0).toISOString(), cwd: '/work/app' },
    message(1, {
      role: 'user',
      content: [
        { type: 'text', text: 'fix the ' },
        { type: 'text', text: 'build' },
      ],
    }),
    answer(2, ['bash', 'read'], 'toolUse'),
    message(3, { role: 'toolResult', toolCallId: 't2-0', toolName: 'bash', isError: true, content: [] }),
    message(4, { role: 'toolResult', toolCallId: 't2-1', toolName: 'read', isError: false, content: [] }),
    { type: 'compaction', id: 'c1', parentId: null, timestamp: at(5).toISOString(), summary: 'so far' },
    answer(6, [], 'aborted'),
  );
}

describe('Pi’s session format, read by both harnesses that write it', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('the same lines give Pi and OpenClaw the same title, project, calls, failures, compactions, tokens, cost and state', async () => {
    home.write(join(home.dir, '.pi', 'agent', 'sessions', '--work-app--', 'a.jsonl'), session());
    home.write(join(home.dir, '.openclaw', 'agents', 'main', 'sessions', 'a.jsonl'), session());
    const doc = (await readCold(home.env, { providers: ['pi', 'openclaw'], nowMs: NOW })).document;
    const rows = doc.sessions
      .map((s) => [
        s.provider,
        s.title,
        s.project,
        s.models,
        s.tools.byTool,
        s.compactions,
        s.requests,
        s.tokens,
        s.cost.usd,
        s.state,
        s.stateDetail,
        s.aborts,
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const alike = [
      'fix the build',
      '/work/app',
      ['claude-sonnet-4-5'],
      { bash: { calls: 1, failed: 1 }, read: { calls: 1, failed: 0 } },
      1,
      2,
      { input: 200, output: 40, cacheRead: 2000, cacheWrite: 100, reasoning: null },
      0.02,
      'idle',
      'aborted',
      1,
    ];
    expect(rows).toEqual([
      ['openclaw', ...alike],
      ['pi', ...alike],
    ]);
  });
});
