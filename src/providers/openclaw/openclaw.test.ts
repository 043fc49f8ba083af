import { cpSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { closeAll } from '../sqlite.js';
import { openclaw } from './index.js';
import { sessionOf } from './place.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['openclaw'], nowMs: NOW });

const assistant = (model: string | null, input: number, output: number) =>
  JSON.stringify({
    type: 'message',
    id: `m${input}`,
    timestamp: '2026-01-30T06:00:00.000Z',
    message: { role: 'assistant', content: [], ...(model ? { model } : {}), usage: { input, output } },
  });

describe('OpenClaw session files', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  it('the recorded home: four sessions over two agents, a reset session still counted, its failed call named', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'openclaw', 'home'), home.dir, { recursive: true });
    const rows = (await snap(home)).document.sessions
      .map((s) => [s.id, s.title, s.models, s.project, s.tools.byTool])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ['4f1c2a7e', 'summarise my inbox', ['gpt-5.2'], '/home/dev/site', { read: { calls: 1, failed: 0 } }],
      ['5e8a0c44', 'now run the tests', ['claude-sonnet-4-5'], '/home/dev/site', {}],
      [
        '9b3e51d0',
        'fix the failing build',
        ['claude-sonnet-4-5'],
        '/home/dev/site',
        { bash: { calls: 1, failed: 1 } },
      ],
      ['c07d9e12', 'find three papers on caching', ['gpt-5.2', 'claude-sonnet-4-5'], '/home/dev/notes', {}],
    ]);
  });

  it('a model snapshot names the model of the responses that do not name their own', async () => {
    home.write(
      join(home.dir, '.openclaw', 'agents', 'main', 'sessions', 's.jsonl'),
      [
        JSON.stringify({
          type: 'custom',
          customType: 'model-snapshot',
          data: { provider: 'openai', modelId: 'gpt-5.2' },
        }),
        assistant(null, 10, 5),
        '',
      ].join('\n'),
    );
    expect((await snap(home)).document.sessions[0]!.models).toEqual(['gpt-5.2']);
  });

  it('$OPENCLAW_DIR names the roots, comma-separated, instead of ~/.openclaw and its older names', async () => {
    const other = join(home.dir, 'elsewhere');
    home.write(join(other, 'agents', 'a', 'sessions', 'kept.jsonl'), `${assistant('gpt-5.2', 7, 1)}\n`);
    home.write(
      join(home.dir, '.clawdbot', 'agents', 'a', 'sessions', 'old.jsonl'),
      `${assistant('gpt-5.2', 7, 1)}\n`,
    );
    expect((await snap(home)).document.sessions.map((s) => s.id)).toEqual(['old']);
    const set = (await snap(home, { OPENCLAW_DIR: `${other}, ${join(home.dir, 'none')}` })).document;
    expect(set.sessions.map((s) => s.id)).toEqual(['kept']);
  });

  it('since 2026.8 sessions are rows of the agent’s store: a migrated session counts once beside its archived file, and its conversation reads', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'openclaw', 'home'), home.dir, { recursive: true });
    const sessions = join(home.dir, '.openclaw', 'agents', 'main', 'sessions');
    const before = (await snap(home)).document.sessions;

    // What `openclaw doctor --session-sqlite import` does: each line a row, the file archived.
    const agent = join(home.dir, '.openclaw', 'agents', 'main', 'agent');
    mkdirSync(agent, { recursive: true });
    const db = new Database(join(agent, 'openclaw-agent.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
      event_json TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) STRICT`);
    const insert = db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, ?)');
    const lines = readFileSync(join(sessions, '5e8a0c44.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    for (const [i, l] of lines.entries())
      insert.run('5e8a0c44', i + 1, l, Date.parse('2026-01-31T07:00:00Z') + i);
    mkdirSync(join(sessions, 'session-sqlite-import-archive'));
    renameSync(
      join(sessions, '5e8a0c44.jsonl'),
      join(sessions, 'session-sqlite-import-archive', '5e8a0c44.jsonl.deleted.1790000000000'),
    );
    // A session only the store holds, and a row that is not JSON.
    insert.run(
      '77aa01ff',
      1,
      JSON.stringify({ type: 'session', version: 3, id: '77aa01ff', cwd: '/home/dev/api' }),
      1,
    );
    insert.run('77aa01ff', 2, assistant('gpt-5.2', 40, 9), 2);
    insert.run('77aa01ff', 3, '{"type":', 3);
    db.close();

    const doc = (await snap(home)).document;
    const pick = (id: string, d = doc) => {
      const s = d.sessions.find((x) => x.id === id)!;
      return [s.tokens, s.cost.usd, s.requests, s.title];
    };
    expect(pick('5e8a0c44')).toEqual(pick('5e8a0c44', { ...doc, sessions: before }));
    expect(doc.sessions.filter((s) => s.id === '5e8a0c44')).toHaveLength(1);
    const only = doc.sessions.find((s) => s.id === '77aa01ff')!;
    expect([only.tokens.input, only.tokens.output, only.project, only.file]).toEqual([
      40,
      9,
      '/home/dev/api',
      `${join(agent, 'openclaw-agent.sqlite')}#77aa01ff`,
    ]);
    expect(doc.problems.map((p) => [p.path, p.kind])).toContainEqual([only.file, 'bad-lines']);

    const stored = `${join(agent, 'openclaw-agent.sqlite')}#5e8a0c44`;
    const fromStore = openclaw.conversation!(stored, { before: null, agent: null });
    const fromFile = openclaw.conversation!(
      join(sessions, 'session-sqlite-import-archive', '5e8a0c44.jsonl.deleted.1790000000000'),
      { before: null, agent: null },
    );
    expect(fromStore.turns.length).toBeGreaterThan(0);
    expect(fromStore).toEqual(fromFile);
    expect(openclaw.calls!(stored)).toEqual(
      openclaw.calls!(
        join(sessions, 'session-sqlite-import-archive', '5e8a0c44.jsonl.deleted.1790000000000'),
      ),
    );
  });

  it('reasoning is `reasoningTokens`, inside output unless the total counts it apart', async () => {
    const usage = (reasoningTokens: number, totalTokens: number) =>
      JSON.stringify({
        type: 'message',
        id: `r${totalTokens}`,
        timestamp: '2026-01-30T06:00:00.000Z',
        message: {
          role: 'assistant',
          model: 'lab-model',
          content: [],
          usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoningTokens, totalTokens },
        },
      });
    // 100 + 20 = 120: the 5 are inside the 20. 100 + 20 + 7 = 127: the 7 come on top.
    home.write(
      join(home.dir, '.openclaw', 'agents', 'main', 'sessions', 'r.jsonl'),
      `${usage(5, 120)}\n${usage(7, 127)}\n`,
    );
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.tokens.output, s.tokens.reasoning]).toEqual([20 + 27, 12]);
  });

  it('a compressed row that is not zstd is a line not read, never a crash', async () => {
    const agent = join(home.dir, '.openclaw', 'agents', 'main', 'agent');
    mkdirSync(agent, { recursive: true });
    const db = new Database(join(agent, 'openclaw-agent.sqlite'));
    db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
      created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
      PRIMARY KEY (session_id, seq)) STRICT`);
    const insert = db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, NULL)');
    insert.run('s1', 0, assistant('gpt-5.2', 40, 9), 1, null, null);
    insert.run('s1', 1, null, 2, Buffer.from('not zstd at all'), 1500);
    db.close();
    const doc = (await snap(home)).document;
    expect([doc.sessions[0]!.tokens.input, doc.sessions[0]!.tokens.output]).toEqual([40, 9]);
    expect(doc.problems.filter((p) => p.kind === 'bad-lines').map((p) => p.detail)).toEqual([
      '1 of 2 lines could not be read; the first, line 2, is compressed with zstd, but its bytes are damaged or cut short',
    ]);
  });

  it('a session file is `.jsonl`, or one archived by a reset or a delete, named by what precedes `.jsonl`', () => {
    expect(
      [
        'a.jsonl',
        'a.jsonl.reset.2026-03-20T06-34-44.520Z',
        'a.jsonl.deleted.1700000000000',
        'a.json',
        'a.jsonl.tmp',
        '.jsonl',
      ].map(sessionOf),
    ).toEqual(['a', 'a', 'a', null, null, null]);
  });
});
