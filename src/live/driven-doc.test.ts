import { describe, expect, it } from 'vitest';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import type { RunSnapshot } from '../model/driven-run.js';
import { drivenChanges, withDriven } from './driven-doc.js';

const disk = (provider: SessionDoc['provider'], id: string): SessionDoc =>
  ({
    provider,
    id,
    file: `/h/${id}.jsonl`,
    deleted: false,
    state: 'idle',
    stateDetail: null,
    stateSource: 'inferred',
    inferred: 'probably-waiting',
    tokens: { input: 5, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
  }) as SessionDoc;

const doc = (sessions: SessionDoc[]): SessionDocument =>
  ({ sessions, problems: [] }) as unknown as SessionDocument;

const run = (over: Partial<RunSnapshot>): RunSnapshot => ({
  id: 'r1',
  agent: 'claude',
  harness: 'claude',
  program: 'bot',
  pid: 1,
  cwd: '/w',
  model: null,
  session: 's1',
  startedAtMs: 0,
  phase: 'working',
  tool: 'Read',
  toolCalls: 1,
  toolFailures: 0,
  tokens: null,
  costUsd: null,
  pending: [],
  answered: null,
  remote: false,
  end: null,
  ...over,
});

describe('driven runs in the session document', () => {
  it("marks the run's own session with the driver's word on its state, and leaves the rest alone", () => {
    const other = disk('claude', 's2');
    const out = withDriven(doc([disk('claude', 's1'), other]), [
      run({ phase: 'waiting', pending: [{ id: 'q', tool: 'Bash', input: '{"command":"ls"}' }] }),
    ]);
    expect(out.sessions[0]).toMatchObject({
      id: 's1',
      state: 'waiting',
      stateDetail: 'Bash: {"command":"ls"}',
      stateSource: 'driven',
      inferred: null,
      driven: { id: 'r1', program: 'bot' },
    });
    expect(out.sessions[1]).toBe(other);
    expect(out.driven?.map((r) => r.id)).toEqual(['r1']);
  });

  it('a run whose session is not on disk yet gets a row of its own; an ended one does not', () => {
    const out = withDriven(doc([]), [
      run({ id: 'a', session: null }),
      run({ id: 'b', session: 'gone', phase: 'ended', end: 'completed' }),
    ]);
    expect(out.sessions.map((s) => [s.id, s.file, s.stateSource, s.title])).toEqual([
      ['driven:a', '', 'driven', 'driven by bot'],
    ]);
    expect(out.sessions[0]!.tokens.input, 'absent is not zero').toBeNull();
  });

  it('an ACP run is matched through the harness its command starts; one cctop cannot read shows in the list only', () => {
    const out = withDriven(doc([disk('gemini', 'g1')]), [
      run({ id: 'acp', agent: 'gemini-acp', harness: 'gemini', session: 'g1' }),
      // An ACP agent whose files no provider reads (Goose is read now, so an invented one).
      run({ id: 'zed-agent', agent: 'zed-agent', harness: 'zed-agent', session: 'x' }),
    ]);
    expect(out.sessions.map((s) => [s.id, s.driven?.agent])).toEqual([['g1', 'gemini-acp']]);
    expect(out.driven?.map((r) => r.agent)).toEqual(['gemini-acp', 'zed-agent']);
  });

  it('with no runs, the document is the same object', () => {
    const d = doc([disk('claude', 's1')]);
    expect(withDriven(d, [])).toBe(d);
  });

  it("the index's changes are told as marked rows: a rebuilt session keeps its run, a dropped one its run's own row", () => {
    const waiting = run({ phase: 'waiting', pending: [{ id: 'q', tool: 'Bash', input: 'ls' }] });
    const gone = run({ id: 'r2', session: 's3' });
    const other = disk('claude', 's2');
    // The index rebuilt s1 and s2, and dropped s3, whose run still writes it.
    const out = withDriven(doc([disk('claude', 's1'), other]), [waiting, gone]);
    const told = drivenChanges(
      { kind: 'some', changed: [disk('claude', 's1'), other], removed: [{ provider: 'claude', id: 's3' }] },
      out,
    );
    expect(told.kind === 'some' && told.changed.map((s) => [s.id, s.driven?.id ?? null, s.state])).toEqual([
      ['s1', 'r1', 'waiting'],
      ['s2', null, 'idle'],
      ['s3', 'r2', 'working'],
    ]);
    expect(told.kind === 'some' && told.removed).toEqual([]);
    // With no run followed, or everything changed, they go out as the index said.
    const some = {
      kind: 'some' as const,
      changed: [other],
      removed: [{ provider: 'claude' as const, id: 's9' }],
    };
    expect(drivenChanges(some, doc([other]))).toBe(some);
    expect(drivenChanges({ kind: 'all' }, out)).toEqual({ kind: 'all' });
    // A session the index dropped with no run on it is still removed.
    expect(drivenChanges(some, withDriven(doc([other]), [waiting]))).toEqual({
      kind: 'some',
      changed: [other],
      removed: [{ provider: 'claude', id: 's9' }],
    });
  });
});
