import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, FakeHome, HAVE_CORPUS, jsonl } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { cursor } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['cursor'], nowMs: NOW });

const transcripts = (home: FakeHome, ...parts: string[]) =>
  join(home.dir, '.cursor', 'projects', 'home-me-app', 'agent-transcripts', ...parts);

describe('Cursor transcript lines (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const user = (q: string) => ({
    role: 'user',
    message: { content: [{ type: 'text', text: `<user_query>\n${q}\n</user_query>` }] },
  });
  const call = (name: string) => ({
    role: 'assistant',
    message: { content: [{ type: 'tool_use', name, input: {} }] },
  });

  it('tool calls only: tokens and cost absent, failures unknown (─), the first query as title', async () => {
    // cursor-agent writes no timestamps, tokens or results: a session of two prompts with a Shell call
    // each, and a subagent that made one more.
    const said = (text: string, tool?: string) => ({
      role: 'assistant',
      message: {
        content: [
          { type: 'text', text },
          ...(tool
            ? [{ type: 'tool_use', name: 'Shell', input: { command: tool, description: 'Run it' } }]
            : []),
        ],
      },
    });
    const at = Date.parse('2026-11-29T11:59:00Z');
    home.write(
      transcripts(home, 's1', 's1.jsonl'),
      jsonl(
        user('show the disk usage'),
        said('Checking it.', 'df -h'),
        said('The disk is 40% full.'),
        user('and the largest folder?'),
        said('Looking.', 'du -sh *'),
        said('node_modules, at 1.2G.'),
      ),
      at,
    );
    home.write(
      transcripts(home, 's1', 'subagents', 'a1.jsonl'),
      jsonl(user('list the folders'), call('Shell'), said('Done.')),
      at,
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('s1');
    expect(s.subagentFiles).toBe(1);
    expect(s.tools.calls).toBe(3);
    expect(s.tools.failed).toBeNull();
    expect(s.tools.byTool).toEqual({ Shell: { calls: 3, failed: null } });
    expect(s.tokens).toEqual({
      input: null,
      output: null,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
    expect(s.requests).toBe(0);
    expect(s.cost.usd).toBeNull();
    expect(s.context).toEqual({ used: null, window: null, compactAt: null });
    expect(s.title).toBe('show the disk usage');
    expect(s.model).toBeNull();
    // No timestamps in the lines: the file says when it was last written.
    expect(s.lastActiveAt).toBe('2026-11-29T11:59:00.000Z');
  });

  it('a transcript last written moments ago and ending on a tool call reads as working', async () => {
    home.write(transcripts(home, 's2.jsonl'), jsonl(user('build it'), call('Shell')), NOW - 20_000);
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('s2');
    expect(s.state).toBe('working');
  });

  it('a question to the user waits on the user', async () => {
    home.write(
      transcripts(home, 's3', 's3.jsonl'),
      jsonl(user('plan it'), call('AskQuestion'), call('ask_user')),
      NOW - 20_000,
    );
    expect((await snap(home)).document.sessions[0]!.state).toBe('waiting');
  });

  it('$CURSOR_HOME, else ~/.cursor', async () => {
    expect(cursor.roots({ HOME: '/h' })).toEqual([{ path: '/h/.cursor', origin: 'default' }]);
    expect(cursor.roots({ HOME: '/h', CURSOR_HOME: '/c' })).toEqual([{ path: '/c', origin: '$CURSOR_HOME' }]);
    home.write(join(home.dir, 'cur', 'projects', 'p', 'agent-transcripts', 'x.jsonl'), jsonl(user('hi')));
    const doc = (await snap(home, { CURSOR_HOME: join(home.dir, 'cur') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['x']);
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('Cursor transcripts from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
    });
    afterEach(() => home.cleanup());

    // Synthetic fixtures modelled on cursor-agent transcripts; read by hand: two Shell calls in the
    // session, one more in its subagent.
    it('tool calls only: tokens and cost absent, failures unknown (─), the first query as title', async () => {
      const at = Date.parse('2026-11-29T11:59:00Z');
      home.copy(
        corpus('cursor', 'agent-transcripts', 'agent-sessions__test-session.synthetic.jsonl'),
        transcripts(home, 's1', 's1.jsonl'),
        at,
      );
      home.copy(
        corpus('cursor', 'agent-transcripts', 'agent-sessions__subagent-session.synthetic.jsonl'),
        transcripts(home, 's1', 'subagents', 'a1.jsonl'),
        at,
      );
      const s = (await snap(home)).document.sessions[0]!;
      expect(s.id).toBe('s1');
      expect(s.subagentFiles).toBe(1);
      expect(s.tools.calls).toBe(3);
      expect(s.tools.failed).toBeNull();
      expect(s.tools.byTool).toEqual({ Shell: { calls: 3, failed: null } });
      expect(s.tokens).toEqual({
        input: null,
        output: null,
        cacheRead: null,
        cacheWrite: null,
        reasoning: null,
      });
      expect(s.requests).toBe(0);
      expect(s.cost.usd).toBeNull();
      expect(s.context).toEqual({ used: null, window: null, compactAt: null });
      expect(s.title).toBe('run ls command');
      expect(s.model).toBeNull();
      // No timestamps in the lines: the file says when it was last written.
      expect(s.lastActiveAt).toBe('2026-11-29T11:59:00.000Z');
    });
  });
}
