import { describe, expect, it } from 'vitest';
import type { SessionDoc } from '../model/document.js';
import type { SessionState } from '../model/state.js';
import type { SessionReport } from '../report/types.js';
import { listSessions, waitForSession } from './sessions.js';
import type { Picture, Source } from './source.js';

/** A session document with only what the tools read filled in. */
function session(
  id: string,
  state: SessionState,
  running: boolean | null,
  project = '/work/app',
): SessionDoc {
  return {
    provider: 'claude',
    id,
    file: `/home/u/.claude/projects/-work-app/${id}.jsonl`,
    deleted: false,
    project,
    title: `title of ${id}`,
    branch: 'main',
    model: 'claude-sonnet-4-5',
    state,
    stateDetail: null,
    stateSource: 'inferred',
    running,
    process: running ? { pids: [42], cpu: null, memory: 0, command: 'claude' } : null,
    pendingTool: null,
    startedAt: null,
    lastActiveAt: null,
    context: { used: 50_000, window: 200_000, compactAt: 160_000 },
    cost: { usd: null },
  } as unknown as SessionDoc;
}

/** A source whose pictures are `frames`, one per look, the last repeated. */
function source(frames: SessionDoc[][]): Source & { looks: number } {
  const s = {
    looks: 0,
    async picture(): Promise<Picture> {
      const sessions = frames[Math.min(s.looks, frames.length - 1)]!;
      s.looks++;
      return { sessions, report: async () => ({}) as SessionReport };
    },
  };
  return s;
}

const ctx = (signal = new AbortController().signal) => ({
  signal,
  progress: async () => {},
  sleep: async () => {},
});

describe('list_sessions', () => {
  it('lists running sessions only, and by directory, a path beside the directory not counting as in it', async () => {
    const p = await source([
      [
        session('a', 'working', true),
        session('b', 'idle', false),
        session('c', 'idle', true, '/work/app-two'),
        session('d', 'waiting', true, '/work/app/sub'),
      ],
    ]).picture();
    const all = listSessions(p, null, 20).structuredContent!;
    expect((all.sessions as { id: string }[]).map((s) => s.id)).toEqual(['a', 'c', 'd']);
    const here = listSessions(p, '/work/app', 20).structuredContent!;
    expect((here.sessions as { id: string }[]).map((s) => s.id)).toEqual(['a', 'd']);
    expect(here).toMatchObject({ running: 3, inDirectory: 2, omitted: 0 });
    expect((all.sessions as { contextPercent: number }[])[0]!.contextPercent).toBe(31);
  });
});

describe('wait_for_session', () => {
  it('looks again until the session stops working, and says how', async () => {
    const s = source([
      [session('a', 'working', true)],
      [session('a', 'working', true)],
      [session('a', 'waiting', true)],
    ]);
    const r = await waitForSession(s, 'a', 60, ctx());
    expect(r.structuredContent).toMatchObject({ outcome: 'waiting', session: { id: 'a', state: 'waiting' } });
    expect(s.looks).toBe(3);
  });

  it('answers at once for a session that is not working', async () => {
    const s = source([[session('a', 'idle', false)]]);
    expect((await waitForSession(s, 'a', 60, ctx())).structuredContent).toMatchObject({ outcome: 'idle' });
    expect(s.looks).toBe(1);
  });

  it('stops when the caller cancels, and when the session is gone', async () => {
    const abort = new AbortController();
    abort.abort();
    const working = source([[session('a', 'working', true)]]);
    expect((await waitForSession(working, 'a', 60, ctx(abort.signal))).structuredContent).toMatchObject({
      outcome: 'timeout',
    });
    const gone = source([[session('a', 'working', true)], []]);
    expect((await waitForSession(gone, 'a', 60, ctx())).structuredContent).toMatchObject({ outcome: 'gone' });
  });

  it('an id that names no session, or several, is an error that says so', async () => {
    const s = source([[session('ab1', 'working', true), session('ab2', 'working', true)]]);
    const many = await waitForSession(s, 'ab', 60, ctx());
    expect(many.isError).toBe(true);
    expect(many.content[0]!.text).toContain('matches 2 sessions');
    expect((await waitForSession(s, 'zz', 60, ctx())).content[0]!.text).toContain('no session matches');
  });
});
