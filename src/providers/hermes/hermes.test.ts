import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { hermes } from './index.js';

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['hermes'], nowMs: Date.parse('2026-02-01T12:00:00Z') });

/** A `state.db` with the columns of Hermes's schema that cctop reads. */
function stateDb(dir: string): Database.Database {
  const db = new Database(join(dir, 'state.db'));
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, started_at REAL, ended_at REAL,
    message_count INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER,
    cache_write_tokens INTEGER, reasoning_tokens INTEGER, cwd TEXT, billing_provider TEXT,
    estimated_cost_usd REAL, actual_cost_usd REAL, title TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_call_id TEXT,
    tool_calls TEXT, tool_name TEXT, timestamp REAL);`);
  return db;
}

const at = (iso: string) => Date.parse(iso) / 1000;

describe('Hermes sessions', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  function oneSession(cost: { est: number | null; act: number | null }): void {
    home.write(join(home.dir, '.hermes', '.keep'), '');
    const db = stateDb(join(home.dir, '.hermes'));
    db.prepare(
      `INSERT INTO sessions VALUES ('s1', 'cli', 'gpt-5', ?, ?, 3, 100, 50, 400, 0, 20, '/home/dev/x', 'openai', ?, ?, 'Plan it')`,
    ).run(at('2026-01-14T10:10:00Z'), at('2026-01-14T10:12:00Z'), cost.est, cost.act);
    const m = db.prepare(
      'INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
    );
    m.run('s1', 'user', 'plan the API', null, null, at('2026-01-14T10:10:05Z'));
    m.run(
      's1',
      'assistant',
      'reading',
      null,
      JSON.stringify([{ id: 'c1', function: { name: 'read_file', arguments: '{"path":"a"}' } }]),
      at('2026-01-14T10:10:20Z'),
    );
    m.run('s1', 'tool', 'contents', 'c1', null, at('2026-01-14T10:10:21Z'));
    m.run('s1', 'assistant', 'Version in the path.', null, null, at('2026-01-14T10:12:00Z'));
    db.close();
  }

  it('a session row is one request with its totals; reasoning stays inside output; the messages name the rest', async () => {
    oneSession({ est: null, act: null });
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.id, s.file]).toEqual(['s1', `${join(home.dir, '.hermes', 'state.db')}#s1`]);
    expect([s.title, s.project, s.requests, s.startedAt, s.lastActiveAt]).toEqual([
      'Plan it',
      '/home/dev/x',
      1,
      '2026-01-14T10:10:00.000Z',
      '2026-01-14T10:12:00.000Z',
    ]);
    expect(s.tokens).toEqual({ input: 100, output: 50, cacheRead: 400, cacheWrite: 0, reasoning: 20 });
    // Hermes records no outcome of a call.
    expect([s.tools.calls, s.tools.failed]).toEqual([1, null]);
    expect(s.cost.source).toBe('estimated');
  });

  it("the cost Hermes recorded is the session's, the provider's figure before its own estimate", async () => {
    oneSession({ est: 0.5, act: 0.25 });
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.cost.usd, s.cost.source]).toEqual([0.25, 'reported']);
  });

  it('a Hermes home without a database is no problem', async () => {
    home.write(join(home.dir, '.hermes', 'config.yaml'), 'model: gpt-5\n');
    const d = (await snap(home)).document;
    expect([d.sessions, d.problems]).toEqual([[], []]);
  });

  it('the conversation: prompts, replies with their calls, and each call with its result', async () => {
    oneSession({ est: null, act: null });
    const c = hermes.conversation!(`${join(home.dir, '.hermes', 'state.db')}#s1`, {
      before: null,
      agent: null,
    });
    expect(c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.result])])).toEqual([
      ['user', 'plan the API', []],
      ['assistant', 'reading', [['read_file', 'contents']]],
      ['assistant', 'Version in the path.', []],
    ]);
  });
});
