import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { goose } from './index.js';
import { gooseMs } from './place.js';

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['goose'], nowMs: Date.parse('2026-02-01T12:00:00Z') });

/** A `sessions.db` with the columns of Goose's schema that cctop reads, and one session. */
function sessionsDb(dir: string, sums: boolean): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'sessions.db');
  const db = new Database(path);
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, working_dir TEXT, created_at TIMESTAMP, updated_at TIMESTAMP,
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, provider_name TEXT, model_config_json TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER);`);
  db.prepare('INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)').run(
    '20260115_1',
    'Fix CI',
    '/home/dev/ci',
    '2026-01-15 09:00:00',
    '2026-01-15 09:06:00',
    1200,
    1000,
    100,
    sums ? 5000 : null,
    sums ? 4000 : null,
    sums ? 600 : null,
    'anthropic',
    JSON.stringify({ model_name: 'claude-sonnet-4-5' }),
  );
  const m = db.prepare(
    'INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)',
  );
  const at = (iso: string) => Date.parse(iso) / 1000;
  m.run('20260115_1', 'user', JSON.stringify([{ type: 'text', text: 'fix CI' }]), at('2026-01-15T09:00:05Z'));
  m.run(
    '20260115_1',
    'assistant',
    JSON.stringify([
      { type: 'text', text: 'Linting.' },
      {
        type: 'toolRequest',
        id: 't1',
        toolCall: {
          status: 'success',
          value: { name: 'developer__shell', arguments: { command: 'npm run lint' } },
        },
      },
    ]),
    at('2026-01-15T09:00:30Z'),
  );
  m.run(
    '20260115_1',
    'user',
    JSON.stringify([{ type: 'toolResponse', id: 't1', toolResult: { status: 'error', error: 'exit 1' } }]),
    at('2026-01-15T09:01:00Z'),
  );
  db.close();
  return path;
}

describe('Goose sessions', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it("Goose's times: SQLite's UTC text, ISO, epoch seconds or milliseconds", () => {
    const t = Date.parse('2026-01-15T09:00:00Z');
    expect([
      gooseMs('2026-01-15 09:00:00'),
      gooseMs('2026-01-15T09:00:00Z'),
      gooseMs(t / 1000),
      gooseMs(t),
    ]).toEqual([t, t, t, t]);
    expect(gooseMs('yesterday')).toBeNull();
  });

  it("the session's sums are one request; the newest request's prompt is the context; calls and failures from the messages", async () => {
    sessionsDb(join(home.dir, '.local', 'share', 'goose', 'sessions'), true);
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.id, s.title, s.project, s.requests, s.context.used]).toEqual([
      '20260115_1',
      'Fix CI',
      '/home/dev/ci',
      1,
      1000,
    ]);
    // 5,000 in all, 4,600 named: the rest is counted as output. No cache split is kept: unknown.
    expect(s.tokens).toEqual({
      input: 4000,
      output: 1000,
      cacheRead: null,
      cacheWrite: null,
      reasoning: null,
    });
    expect(s.tools.byTool).toEqual({ developer__shell: { calls: 1, failed: 1 } });
    expect([s.startedAt, s.lastActiveAt]).toEqual(['2026-01-15T09:00:00.000Z', '2026-01-15T09:06:00.000Z']);
  });

  it('an older build without sums counts its newest figures; GOOSE_PATH_ROOT names the data folder', async () => {
    const root = join(home.dir, 'goose-root');
    sessionsDb(join(root, 'data', 'sessions'), false);
    const s = (await snap(home, { GOOSE_PATH_ROOT: root })).document.sessions[0]!;
    expect([s.tokens.input, s.tokens.output]).toEqual([1000, 200]);
  });

  it('the conversation: prompts, replies with their calls, and each call with its outcome', () => {
    const db = sessionsDb(join(home.dir, 'g'), true);
    const c = goose.conversation!(`${db}#20260115_1`, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.result, u.failed])])).toEqual([
      ['user', 'fix CI', []],
      ['assistant', 'Linting.', [['developer__shell', 'exit 1', true]]],
    ]);
  });
});
