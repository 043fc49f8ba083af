import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemLog } from '../../model/problems.js';
import { FakeHome } from '../../test-support/corpus.js';
import { snapshotIn } from '../../test-support/snapshot.js';
import { toolsOf } from '../../test-support/tools.js';
import { closeAll } from '../sqlite.js';
import { devin, transcriptOf } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const T0 = Date.parse('2026-11-29T10:00:00Z') / 1000;

const snap = (home: FakeHome, useIndex = false, env: Record<string, string> = {}) =>
  snapshotIn({ ...home.env, ...env }, { providers: ['devin'], useIndex, nowMs: NOW, threads: 1 });

/**
 * The corpus has no Devin data (no ATIF trajectory could be obtained): everything here is written
 * for these tests from the documented layout (the `sessions` and `tool_call_state` tables of
 * `sessions.db`) and the ATIF v1.7 trajectory format.
 */
class DevinHome {
  readonly dir: string;
  readonly db: Database.Database;
  constructor(
    home: FakeHome,
    readonly dbName = 'sessions.db',
    dir = join(home.dir, '.local', 'share', 'devin', 'cli'),
  ) {
    this.dir = dir;
    mkdirSync(join(dir, 'transcripts'), { recursive: true });
    this.db = new Database(join(dir, dbName));
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE sessions (id TEXT PRIMARY KEY, working_directory TEXT, model TEXT, created_at INTEGER,
        last_activity_at INTEGER, title TEXT, hidden INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE tool_call_state (session_id TEXT, tool_call_id TEXT, tool_call_update_json TEXT,
        PRIMARY KEY (session_id, tool_call_id));`);
  }
  session(id: string, o: { title?: string; model?: string; hidden?: boolean; last?: number } = {}): void {
    this.db
      .prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(
        id,
        '/work/app',
        o.model ?? 'SWE-1.5',
        T0,
        o.last ?? T0 + 60,
        o.title ?? 'Fix the parser',
        o.hidden ? 1 : 0,
      );
  }
  status(session: string, call: string, status: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO tool_call_state VALUES (?, ?, ?)')
      .run(session, call, JSON.stringify({ status }));
  }
  trajectory(id: string, steps: unknown[], extra: Record<string, unknown> = {}): void {
    const doc = {
      schema_version: 'ATIF-v1.7',
      session_id: id,
      agent: { name: 'devin', version: '1.0', model_name: 'SWE-1.5' },
      steps,
      ...extra,
    };
    writeFileSync(join(this.dir, 'transcripts', `${id}.json`), JSON.stringify(doc));
  }
}

let stepId = 0;
const userStep = (message: string, at = '2026-11-29T10:00:10Z') => ({
  step_id: ++stepId,
  source: 'user',
  timestamp: at,
  message,
});
const agentStep = (
  o: {
    prompt?: number;
    completion?: number;
    cached?: number;
    model?: string;
    calls?: [string, string][];
  } = {},
  at = '2026-11-29T10:00:20Z',
) => ({
  step_id: ++stepId,
  source: 'agent',
  timestamp: at,
  model_name: o.model ?? 'SWE-1.5',
  message: 'working on it',
  tool_calls: (o.calls ?? []).map(([id, name]) => ({ tool_call_id: id, function_name: name, arguments: {} })),
  metrics: {
    prompt_tokens: o.prompt ?? 1000,
    completion_tokens: o.completion ?? 100,
    cached_tokens: o.cached ?? 0,
  },
});

describe('Devin sessions (written for these tests from the documented format)', () => {
  let home: FakeHome;
  let d: DevinHome;
  beforeEach(() => {
    home = new FakeHome();
    // A database read while closed is read from a copy in cctop's cache: this home's, not the user's.
    vi.stubEnv('CCTOP_CACHE_DIR', home.env.CCTOP_CACHE_DIR);
    d = new DevinHome(home);
  });
  afterEach(() => {
    d.db.close();
    closeAll();
    vi.unstubAllEnvs();
    home.cleanup();
  });

  it('each agent step is a billed response; cached tokens are part of the prompt', async () => {
    d.session('dv1');
    d.trajectory('dv1', [
      userStep('make the tests pass'),
      agentStep({ prompt: 1000, cached: 800, completion: 50 }),
      agentStep({ prompt: 1200, cached: 1000, completion: 70 }),
    ]);
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('dv1');
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({ input: 400, cacheRead: 1800, output: 120, cacheWrite: null, reasoning: null });
    expect(s.context.used).toBe(1200);
    expect(s.project).toBe('/work/app');
    expect(s.title).toBe('Fix the parser');
    expect(s.startedAt).toBe('2026-11-29T10:00:00.000Z');
  });

  it('Devin’s own models have no price (its spellings folded into one); known models are priced', async () => {
    d.session('dv1');
    d.trajectory('dv1', [agentStep({ model: 'SWE-1.5' }), agentStep({ model: 'swe-1.5' })]);
    d.session('dv2');
    d.trajectory('dv2', [agentStep({ model: 'claude-sonnet-4-5' })]);
    const doc = (await snap(home)).document;
    const own = doc.sessions.find((s) => s.id === 'dv1')!;
    expect(own.models).toEqual(['swe-1.5']);
    expect(own.cost.usd).toBeNull();
    expect(doc.sessions.find((s) => s.id === 'dv2')!.cost.usd).not.toBeNull();
  });

  it('how a call ended comes from the database: anything but `completed` is a failure, no row is not', async () => {
    d.session('dv1');
    d.trajectory('dv1', [
      agentStep({
        calls: [
          ['c1', 'exec'],
          ['c2', 'edit'],
          ['c3', 'read'],
        ],
      }),
    ]);
    d.status('dv1', 'c1', 'completed');
    d.status('dv1', 'c2', 'failed');
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools.byTool).toEqual({
      exec: { calls: 1, failed: 0 },
      edit: { calls: 1, failed: 1 },
      read: { calls: 1, failed: 0 },
    });
  });

  it('a trajectory with totals only is one record for the session', async () => {
    d.session('dv1');
    d.trajectory('dv1', [userStep('hi')], {
      final_metrics: { total_prompt_tokens: 5000, total_completion_tokens: 400, total_cached_tokens: 3000 },
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tokens).toMatchObject({ input: 2000, cacheRead: 3000, output: 400 });
    expect(s.requests).toBe(1);
  });

  it('a step calls its own tool_calls, a step without any none; totals for the session say nothing', () => {
    d.session('dv1');
    d.trajectory('dv1', [
      agentStep({
        calls: [
          ['c1', 'exec'],
          ['c2', 'edit'],
        ],
      }),
      agentStep(),
    ]);
    d.session('dv2');
    d.trajectory('dv2', [userStep('hi')], {
      final_metrics: { total_prompt_tokens: 5000, total_completion_tokens: 400, total_cached_tokens: 3000 },
    });
    const files = devin.discover(devin.roots(home.env), new ProblemLog());
    const tools = Object.fromEntries(files.map((f) => [f.sessionHint, toolsOf(devin.parse(f, null).ledger)]));
    expect(tools).toEqual({ dv1: [['edit', 'exec'], []], dv2: [null] });
  });

  it('a session Devin deleted (hidden) is not shown; one with no trajectory yet shows its row', async () => {
    d.session('gone', { hidden: true });
    d.session('fresh', { title: 'Just started' });
    const doc = (await snap(home)).document;
    expect(doc.sessions.map((s) => [s.id, s.title])).toEqual([['fresh', 'Just started']]);
    expect(doc.sessions[0]!.tokens.input).toBeNull();
  });

  it('a changed call state or trajectory makes the session read again; nothing else does', async () => {
    d.session('dv1');
    d.session('dv2');
    d.trajectory('dv1', [agentStep({ calls: [['c1', 'exec']] })]);
    d.trajectory('dv2', [agentStep()]);
    expect((await snap(home, true)).stats.read).toBe(2);
    expect((await snap(home, true)).stats).toMatchObject({ read: 0, reused: 2 });
    d.status('dv1', 'c1', 'errored');
    const third = await snap(home, true);
    expect(third.stats).toMatchObject({ read: 1, reused: 1 });
    expect(third.document.sessions.find((s) => s.id === 'dv1')!.tools.failed).toBe(1);
  });

  it('the session’s name says where its trajectory is; reading leaves the database as it was', async () => {
    d.session('dv1');
    d.trajectory('dv1', [agentStep()]);
    d.db.pragma('wal_checkpoint(TRUNCATE)');
    const before = readFileSync(join(d.dir, 'sessions.db'));
    const s = (await snap(home, true)).document.sessions[0]!;
    expect(s.file).toBe(`${join(d.dir, 'sessions.db')}#dv1`);
    expect(transcriptOf(s.file)).toBe(join(d.dir, 'transcripts', 'dv1.json'));
    expect(readFileSync(join(d.dir, 'sessions.db')).equals(before)).toBe(true);
  });

  it('the conversation is the trajectory’s steps, with each call’s outcome from the database', async () => {
    d.session('dv1');
    d.trajectory('dv1', [
      userStep('fix the parser'),
      {
        ...agentStep({ calls: [['c1', 'exec']] }),
        observation: { results: [{ source_call_id: 'c1', content: 'exit 2' }] },
      },
    ]);
    d.status('dv1', 'c1', 'failed');
    const s = (await snap(home)).document.sessions[0]!;
    const c = devin.conversation!(s.file, { before: null, agent: null });
    expect(c.supported).toBe(true);
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'fix the parser'],
      ['assistant', 'working on it'],
    ]);
    expect(c.turns[1]!.tools[0]).toMatchObject({ name: 'exec', failed: true });
    expect(
      devin.conversation!(`${join(d.dir, 'sessions.db')}#nope`, { before: null, agent: null }).supported,
    ).toBe(false);
  });

  it('$CHISEL_SESSION_DB names the database, whatever it is called', async () => {
    expect(devin.roots({ HOME: '/h' })).toEqual([{ path: '/h/.local/share/devin/cli', origin: 'default' }]);
    expect(devin.roots({ HOME: '/h', CHISEL_SESSION_DB: '/x/y/test.db' })).toEqual([
      { path: '/x/y', origin: '$CHISEL_SESSION_DB' },
    ]);
    const other = new DevinHome(home, 'custom.db', join(home.dir, 'chisel'));
    other.session('elsewhere');
    other.db.close();
    const doc = (await snap(home, false, { CHISEL_SESSION_DB: join(home.dir, 'chisel', 'custom.db') }))
      .document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['elsewhere']);
  });
});
