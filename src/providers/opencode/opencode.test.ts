import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemLog } from '../../model/problems.js';
import { corpus, FakeHome, HAVE_CORPUS } from '../../test-support/corpus.js';
import { LAB_CASES, labHome } from '../../test-support/lines.js';
import { writeOpenCodeStorage } from '../../test-support/opencode-storage.js';
import { snapshotIn } from '../../test-support/snapshot.js';
import { toolsOf } from '../../test-support/tools.js';
import { closeAll } from '../sqlite.js';
import { opencode } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const T0 = Date.parse('2026-11-29T10:00:00Z');

const snap = (home: FakeHome, useIndex = false, env: Record<string, string> = {}) =>
  snapshotIn({ ...home.env, ...env }, { providers: ['opencode'], useIndex, nowMs: NOW, threads: 1 });

const dataDir = (home: FakeHome) => join(home.dir, '.local', 'share', 'opencode');

/**
 * What OpenCode 1.18.33 wrote in each recorded lab case (`lab/fixtures/opencode/<case>/`, its
 * `opencode.db`), worked out apart from cctop: the sums of the figures the lab server answered with
 * (its `ledger.json`, less the one side request that titles the session, which OpenCode does not keep
 * on a message), the calls it scripted, the one failure of the `fail` script, and the prompt of its
 * newest request as the context.
 */
const LAB: Record<
  (typeof LAB_CASES)[number],
  {
    input: number;
    cacheRead: number;
    output: number;
    reasoning: number;
    requests: number;
    calls: number;
    failed: number;
    context: number;
  }
> = {
  text: {
    input: 3_844,
    cacheRead: 3_843,
    output: 17,
    reasoning: 5,
    requests: 1,
    calls: 0,
    failed: 0,
    context: 7_687,
  },
  call: {
    input: 7_719,
    cacheRead: 7_718,
    output: 44,
    reasoning: 15,
    requests: 2,
    calls: 1,
    failed: 0,
    context: 7_748,
  },
  fail: {
    input: 7_723,
    cacheRead: 7_723,
    output: 56,
    reasoning: 21,
    requests: 2,
    calls: 1,
    failed: 1,
    context: 7_754,
  },
  parallel: {
    input: 7_751,
    cacheRead: 7_750,
    output: 68,
    reasoning: 27,
    requests: 2,
    calls: 2,
    failed: 0,
    context: 7_803,
  },
  resume: {
    input: 11_626,
    cacheRead: 11_624,
    output: 123,
    reasoning: 51,
    requests: 3,
    calls: 1,
    failed: 0,
    context: 7_793,
  },
};

describe('OpenCode 1.18.33 databases recorded in the conformance lab', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  for (const name of LAB_CASES) {
    it(`${name}: tokens, requests, tool calls, failures and context are what the server answered`, async () => {
      const want = LAB[name];
      cpSync(labHome('opencode', name), home.dir, { recursive: true });
      const sessions = (await snap(home)).document.sessions;
      expect(sessions).toHaveLength(1);
      const s = sessions[0]!;
      expect(s.tokens).toEqual({
        input: want.input,
        cacheRead: want.cacheRead,
        output: want.output,
        reasoning: want.reasoning,
        cacheWrite: 0,
      });
      expect(s.requests).toBe(want.requests);
      expect(s.tools).toMatchObject({ calls: want.calls, failed: want.failed });
      expect(s.context.used).toBe(want.context);
      expect(s.models).toEqual(['lab-model']);
    });
  }
});

describe('an OpenCode `storage/` tree (the layout before 1.2, written for these tests)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
    writeOpenCodeStorage(join(dataDir(home), 'storage'));
  });
  afterEach(() => home.cleanup());

  it('each session file is a session, with its title and directory', async () => {
    const doc = (await snap(home)).document;
    expect(doc.sessions.map((s) => [s.id, s.title, s.project]).sort()).toEqual([
      ['ses_check', 'Run the failing check', '/work/api'],
      ['ses_hello', 'Say hello', '/work/web'],
    ]);
  });

  it('one step billed, a bash call that exited 2, an aborted response, a compaction', async () => {
    const s = (await snap(home)).document.sessions.find((x) => x.id === 'ses_check')!;
    // The step-finish part carries the request (300 in, 40 out); the message repeats it and is not
    // counted again. Neither writes a cost as a number, so the catalogue prices gpt-4o-mini.
    expect(s.tokens).toEqual({ input: 300, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(s.requests).toBe(1);
    expect(s.cost.source).toBe('estimated');
    // OpenCode recorded the bash call `completed`, with `metadata.exit` 2: the command failed.
    expect(s.tools).toMatchObject({ calls: 1, failed: 1 });
    expect(s.aborts).toBe(1);
    expect(s.compactions).toBe(1);
  });

  it('a session with a tool call but no tokens: absent, not zero', async () => {
    const s = (await snap(home)).document.sessions.find((x) => x.id === 'ses_hello')!;
    expect(s.tokens.input).toBeNull();
    expect(s.cost.usd).toBeNull();
    expect(s.tools).toMatchObject({ calls: 1, failed: 0 });
    expect(s.model).toBe('gpt-4o-mini');
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus`, registered only where it is present.
  describe('an OpenCode storage tree from ../shared/corpus', () => {
    let home: FakeHome;
    beforeEach(() => {
      home = new FakeHome();
      // A synthetic tree modelled on OpenCode's `storage/` layout (its session files say 1.3.17).
      cpSync(corpus('opencode', 'storage'), join(dataDir(home), 'storage'), { recursive: true });
    });
    afterEach(() => home.cleanup());

    it('each session file is a session, with its title and directory', async () => {
      const doc = (await snap(home)).document;
      expect(doc.sessions.map((s) => [s.id, s.title, s.project]).sort()).toEqual([
        ['s_stage0_large', 'OpenCode Large', '/tmp/large'],
        ['s_stage0_small', 'OpenCode Small', '/tmp/repo'],
      ]);
    });

    it('the large session: one step billed, a bash call that exited 1, an aborted response, a compaction', async () => {
      const s = (await snap(home)).document.sessions.find((x) => x.id === 's_stage0_large')!;
      // The step-finish part carries the request (120 in, 16 out); the message repeats it and is not
      // counted again. Neither writes a cost as a number, so the catalogue prices gpt-4o-mini.
      expect(s.tokens).toEqual({ input: 120, output: 16, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
      expect(s.requests).toBe(1);
      expect(s.cost.source).toBe('estimated');
      // OpenCode recorded the bash call `completed`, with `metadata.exit` 1: the command failed.
      expect(s.tools).toMatchObject({ calls: 1, failed: 1 });
      expect(s.aborts).toBe(1);
      expect(s.compactions).toBe(1);
    });

    it('the small session has a tool call but no tokens: absent, not zero', async () => {
      const s = (await snap(home)).document.sessions.find((x) => x.id === 's_stage0_small')!;
      expect(s.tokens.input).toBeNull();
      expect(s.cost.usd).toBeNull();
      expect(s.tools).toMatchObject({ calls: 1, failed: 0 });
      expect(s.model).toBe('gpt-4o-mini');
    });
  });
}

/**
 * An `opencode.db` written for these tests with the tables of OpenCode 1.2+ (`session.sql.ts`): the
 * JSON in `data` is shaped as OpenCode's `MessageV2` messages and parts.
 */
function createDb(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
      directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, cost REAL NOT NULL DEFAULT 0,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_message_id_id_idx ON part (message_id, id);
    CREATE INDEX part_session_idx ON part (session_id);`);
  return db;
}

class OpenCodeDb {
  readonly db: Database.Database;
  private n = 0;
  constructor(path: string) {
    this.db = createDb(path);
  }
  session(id: string, o: { parent?: string; title?: string; dir?: string; at?: number } = {}): void {
    this.db
      .prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)')
      .run(
        id,
        'proj',
        o.parent ?? null,
        id,
        o.dir ?? '/work/app',
        o.title ?? 'A title',
        '1.2.0',
        o.at ?? T0,
        o.at ?? T0,
      );
  }
  message(session: string, data: Record<string, unknown>, at = T0 + ++this.n * 1000): string {
    const id = `msg_${String(++this.n).padStart(4, '0')}`;
    this.db
      .prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)')
      .run(id, session, at, at, JSON.stringify({ time: { created: at }, ...data }));
    return id;
  }
  part(session: string, message: string, data: Record<string, unknown>, at = T0): string {
    const id = `prt_${String(++this.n).padStart(4, '0')}`;
    this.db
      .prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, message, session, at, at, JSON.stringify(data));
    return id;
  }
}

const tokens = (input: number, output: number, reasoning = 0, read = 0, write = 0) => ({
  input,
  output,
  reasoning,
  cache: { read, write },
});

const assistant = (extra: Record<string, unknown> = {}) => ({
  role: 'assistant',
  modelID: 'claude-sonnet-4-5',
  providerID: 'anthropic',
  finish: 'stop',
  ...extra,
});

describe('OpenCode database (written for these tests in the schema of OpenCode 1.2+)', () => {
  let home: FakeHome;
  let oc: OpenCodeDb;
  let path: string;
  beforeEach(() => {
    home = new FakeHome();
    // A database read while closed is read from a copy in cctop's cache: this home's, not the user's.
    vi.stubEnv('CCTOP_CACHE_DIR', home.env.CCTOP_CACHE_DIR);
    path = join(dataDir(home), 'opencode.db');
    home.write(join(dataDir(home), '.keep'), '');
    oc = new OpenCodeDb(path);
  });
  afterEach(() => {
    oc.db.close();
    closeAll();
    vi.unstubAllEnvs();
    home.cleanup();
  });

  it('every step is a billed request; the message’s own tokens (only the newest step) are not counted again', async () => {
    oc.session('ses_a');
    const u = oc.message('ses_a', { role: 'user' });
    oc.part('ses_a', u, { type: 'text', text: 'refactor the parser' });
    const m = oc.message(
      'ses_a',
      assistant({ tokens: tokens(300, 30), cost: 0.05, time: { created: T0, completed: T0 + 5000 } }),
    );
    oc.part('ses_a', m, {
      type: 'step-finish',
      reason: 'tool-calls',
      tokens: tokens(100, 10, 4, 1000, 200),
      cost: 0.02,
    });
    oc.part('ses_a', m, {
      type: 'step-finish',
      reason: 'stop',
      tokens: tokens(300, 30, 0, 2000, 0),
      cost: 0.03,
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.id).toBe('ses_a');
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({ input: 400, output: 44, reasoning: 4, cacheRead: 3000, cacheWrite: 200 });
    // OpenCode priced both steps itself: the session's cost is what it reported.
    expect(s.cost.usd).toBeCloseTo(0.05, 9);
    expect(s.cost.source).toBe('reported');
    expect(s.context.used).toBe(2300);
    expect(s.title).toBe('A title');
    expect(s.project).toBe('/work/app');
  });

  it('a cost of zero is priced from the catalogue instead; a placeholder title gives way to the first prompt', async () => {
    oc.session('ses_b', { title: 'New session - 2026-11-29T10:00:00.000Z' });
    const u = oc.message('ses_b', { role: 'user' });
    oc.part('ses_b', u, { type: 'text', text: 'why is CI red?' });
    oc.message('ses_b', assistant({ tokens: tokens(1000, 100), cost: 0 }));
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.cost.source).toBe('estimated');
    expect(s.cost.usd).not.toBeNull();
    expect(s.title).toBe('why is CI red?');
  });

  it('tool parts are calls; an `error` status is a failure', async () => {
    oc.session('ses_c');
    const m = oc.message(
      'ses_c',
      assistant({ tokens: tokens(10, 1), time: { created: T0, completed: T0 + 1 } }),
    );
    oc.part('ses_c', m, {
      type: 'tool',
      tool: 'bash',
      callID: 'c1',
      state: { status: 'completed', output: 'x'.repeat(100_000) },
    });
    oc.part('ses_c', m, {
      type: 'tool',
      tool: 'edit',
      callID: 'c2',
      state: { status: 'error', error: 'no match' },
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools.byTool).toEqual({ bash: { calls: 1, failed: 0 }, edit: { calls: 1, failed: 1 } });
  });

  it('a step calls the tools between the step before it and its step-finish; a text-only step none', () => {
    oc.session('ses_t');
    const m = oc.message(
      'ses_t',
      assistant({ tokens: tokens(300, 30), time: { created: T0, completed: T0 + 5 } }),
    );
    oc.part('ses_t', m, { type: 'step-start' });
    oc.part('ses_t', m, { type: 'tool', tool: 'bash', callID: 'c1', state: { status: 'completed' } });
    oc.part('ses_t', m, { type: 'tool', tool: 'edit', callID: 'c2', state: { status: 'completed' } });
    oc.part('ses_t', m, { type: 'step-finish', reason: 'tool-calls', tokens: tokens(100, 10), cost: 0.02 });
    oc.part('ses_t', m, { type: 'step-start' });
    oc.part('ses_t', m, { type: 'text', text: 'Both done.' });
    oc.part('ses_t', m, { type: 'step-finish', reason: 'stop', tokens: tokens(300, 30), cost: 0.03 });
    // An older build's message with no step parts is one request: it called every tool it holds.
    const old = oc.message(
      'ses_t',
      assistant({ tokens: tokens(50, 5), time: { created: T0, completed: T0 + 9 } }),
    );
    oc.part('ses_t', old, { type: 'tool', tool: 'read', callID: 'c3', state: { status: 'completed' } });
    const files = opencode.discover(opencode.roots(home.env), new ProblemLog());
    expect(files.map((f) => toolsOf(opencode.parse(f, null).ledger))).toEqual([
      [['bash', 'edit'], [], ['read']],
    ]);
  });

  it('a shell call that exited non-zero has failed, though OpenCode 1.18.33 records it completed', async () => {
    // The tool parts of the lab's `fail` and `call` runs as OpenCode 1.18.33 wrote them (trimmed).
    oc.session('ses_f');
    const m = oc.message(
      'ses_f',
      assistant({ finish: 'tool-calls', time: { created: T0, completed: T0 + 2000 } }),
    );
    oc.part('ses_f', m, {
      type: 'tool',
      tool: 'bash',
      callID: 'call_lab_2',
      state: {
        status: 'completed',
        input: { command: 'echo lab-fail-out; exit 3' },
        output: 'lab-fail-out\n',
        metadata: { output: 'lab-fail-out\n', exit: 3, truncated: false },
        title: 'echo lab-fail-out; exit 3',
      },
    });
    oc.part('ses_f', m, {
      type: 'tool',
      tool: 'bash',
      callID: 'call_lab_1',
      state: {
        status: 'completed',
        input: { command: 'echo lab-call-ok' },
        output: 'lab-call-ok\n',
        metadata: { output: 'lab-call-ok\n', exit: 0, truncated: false },
        title: 'echo lab-call-ok',
      },
    });
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.tools.byTool).toEqual({ bash: { calls: 2, failed: 1 } });
  });

  it('a child session (a task) counts toward the session at the top of its chain', async () => {
    oc.session('ses_main');
    oc.session('ses_child', { parent: 'ses_main' });
    oc.session('ses_grandchild', { parent: 'ses_child' });
    oc.message('ses_main', assistant({ tokens: tokens(100, 10) }));
    oc.message('ses_child', assistant({ tokens: tokens(50, 5) }));
    oc.message('ses_grandchild', assistant({ tokens: tokens(20, 2) }));
    const doc = (await snap(home)).document;
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.id).toBe('ses_main');
    expect(doc.sessions[0]!.subagentFiles).toBe(2);
    expect(doc.sessions[0]!.tokens.input).toBe(170);
  });

  it('a session in both the database and the old storage tree is counted once, from the database', async () => {
    oc.session('ses_dup');
    oc.message('ses_dup', assistant({ tokens: tokens(100, 10) }));
    const storage = join(dataDir(home), 'storage');
    home.write(
      join(storage, 'session', 'proj', 'ses_dup.json'),
      JSON.stringify({
        id: 'ses_dup',
        directory: '/old',
        title: 'old copy',
        time: { created: T0, updated: T0 },
      }),
    );
    home.write(
      join(storage, 'message', 'ses_dup', 'msg_0001.json'),
      JSON.stringify({ id: 'msg_0001', sessionID: 'ses_dup', ...assistant({ tokens: tokens(100, 10) }) }),
    );
    const doc = (await snap(home)).document;
    expect(doc.sessions).toHaveLength(1);
    expect(doc.sessions[0]!.requests).toBe(1);
    expect(doc.sessions[0]!.file).toBe(`${path}#ses_dup`);
  });

  it('only the sessions whose rows changed are read again', async () => {
    oc.session('ses_1');
    oc.session('ses_2');
    oc.message('ses_1', assistant({ tokens: tokens(100, 10) }));
    oc.message('ses_2', assistant({ tokens: tokens(100, 10) }));
    expect((await snap(home, true)).stats).toMatchObject({ read: 2 });
    expect((await snap(home, true)).stats).toMatchObject({ read: 0, reused: 2 });
    oc.message('ses_2', assistant({ tokens: tokens(200, 20) }), T0 + 60_000);
    const third = await snap(home, true);
    expect(third.stats).toMatchObject({ read: 1, reused: 1 });
    expect(third.document.sessions.find((s) => s.id === 'ses_2')!.tokens.input).toBe(300);
  });

  it('states: an error, a running tool, a question waiting on the user, a finished reply', async () => {
    const at = NOW - 30_000;
    oc.session('ses_err');
    oc.message(
      'ses_err',
      assistant({
        error: { name: 'APIError', data: { message: 'overloaded' } },
        time: { created: at, completed: at },
      }),
      at,
    );
    oc.session('ses_run');
    const r = oc.message('ses_run', assistant({ finish: undefined, time: { created: at } }), at);
    oc.part('ses_run', r, { type: 'tool', tool: 'bash', callID: 'c', state: { status: 'running' } });
    oc.session('ses_ask');
    const q = oc.message('ses_ask', assistant({ finish: undefined, time: { created: at } }), at);
    oc.part('ses_ask', q, { type: 'tool', tool: 'question', callID: 'c', state: { status: 'running' } });
    oc.session('ses_done');
    oc.message('ses_done', assistant({ time: { created: at, completed: at } }), at);
    const doc = (await snap(home)).document;
    const by = (id: string) => doc.sessions.find((s) => s.id === id)!;
    expect([by('ses_err').state, by('ses_err').stateDetail]).toEqual(['error', 'overloaded']);
    expect(by('ses_run').state).toBe('working');
    expect([by('ses_ask').state, by('ses_ask').stateDetail]).toEqual(['waiting', 'question']);
    expect([by('ses_done').state, by('ses_done').stateDetail]).toEqual(['idle', 'stop']);
  });

  it('reading never writes to the database and never locks OpenCode out of it', async () => {
    oc.session('ses_a');
    oc.message('ses_a', assistant({ tokens: tokens(100, 10) }));
    oc.db.pragma('wal_checkpoint(TRUNCATE)');
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    await snap(home, true);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime);
    // cctop's connection stays open (pooled) between scans: OpenCode must still be able to write.
    oc.db.exec('BEGIN IMMEDIATE');
    oc.message('ses_a', assistant({ tokens: tokens(1, 1) }));
    oc.db.exec('COMMIT');
    expect((await snap(home, true)).document.sessions[0]!.requests).toBe(2);
  });

  it('a database that cannot be read is reported, and the rest of the scan goes on', async () => {
    home.write(join(dataDir(home), 'opencode-broken.db'), 'this is not a database');
    oc.session('ses_ok');
    const snapshot = await snap(home);
    expect(snapshot.document.sessions.map((s) => s.id)).toEqual(['ses_ok']);
    expect(snapshot.document.problems.some((p) => p.path.endsWith('opencode-broken.db'))).toBe(true);
  });

  it('$OPENCODE_DATA_DIR, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode', async () => {
    expect(opencode.roots({ HOME: '/h' })).toEqual([{ path: '/h/.local/share/opencode', origin: 'default' }]);
    expect(opencode.roots({ HOME: '/h', XDG_DATA_HOME: '/x' })).toEqual([
      { path: '/x/opencode', origin: '$XDG_DATA_HOME' },
    ]);
    expect(opencode.roots({ HOME: '/h', OPENCODE_DATA_DIR: '/o' })).toEqual([
      { path: '/o', origin: '$OPENCODE_DATA_DIR' },
    ]);
    mkdirSync(join(home.dir, 'oc'));
    const other = new OpenCodeDb(join(home.dir, 'oc', 'opencode.db'));
    other.session('ses_elsewhere');
    other.db.close();
    const doc = (await snap(home, false, { OPENCODE_DATA_DIR: join(home.dir, 'oc') })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['ses_elsewhere']);
    expect(existsSync(path)).toBe(true);
  });
});
