import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { readCold } from '../test-support/snapshot.js';
import { listSessions, readSession } from './opencode/db.js';
import {
  ABANDONED_COPY_MS,
  closeAll,
  columnsOf,
  DB_READ_BUDGET_MS,
  IN_BUDGET,
  MAX_COPY_BYTES,
  readOnly,
  tablesOnly,
  toRemove,
  withinBudget,
} from './sqlite.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const T0 = Date.parse('2026-11-29T10:00:00Z');

/**
 * Everything in a folder, down to the bytes: name, size, mtime (ns) and a digest of the content. Two
 * equal listings mean nothing was created, removed, written or even touched.
 *
 * Two kinds of file are listed by name and size alone. A `-shm` beside a running agent's database is
 * the wal-index, shared memory in which every reader (the agent's own included) takes its read mark:
 * reading in place writes it, as any concurrent reader does. And a file past `DIGEST_BYTES` (the
 * sparse database of the bound test) is not read whole to be compared.
 */
function listing(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name), { bigint: true });
      if (name.endsWith('-shm')) return `${name} ${st.size}`;
      const sum =
        st.size > DIGEST_BYTES
          ? 'not read'
          : createHash('sha256')
              .update(readFileSync(join(dir, name)))
              .digest('hex');
      return `${name} ${st.size} ${st.mtimeNs} ${sum}`;
    });
}

/** Files up to this size are compared by content. */
const DIGEST_BYTES = 64 * 1024 ** 2;

/**
 * An `opencode.db` in the tables of OpenCode 1.2+ (`session.sql.ts`), in WAL mode as OpenCode keeps
 * it. The returned connection is the running agent; closing it is the agent exiting, which
 * checkpoints and removes `-wal` and `-shm`.
 */
function opencodeDb(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
      directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, cost REAL NOT NULL DEFAULT 0,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_session_idx ON part (session_id);`);
  return db;
}

/** A session with one user message, as OpenCode writes them (`MessageV2` JSON in `data`). */
function addSession(db: Database.Database, id: string, title: string, at = T0): void {
  db.prepare('INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, 0, ?, ?)').run(
    id,
    'proj',
    id,
    '/work/app',
    title,
    '1.2.0',
    at,
    at,
  );
  db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(
    `msg_${id}`,
    id,
    at,
    at,
    JSON.stringify({ role: 'user', time: { created: at } }),
  );
}

const titles = (path: string): (string | null)[] =>
  listSessions(path)
    .map((s) => readSession(path, s.id)?.session.title ?? null)
    .sort();

describe('reading an agent’s SQLite database leaves its folder as it was', () => {
  let t: { dir: string; cleanup: () => void };
  let agent: string;
  let copies: string;
  const copyNames = (): string[] => (existsSync(copies) ? readdirSync(copies).sort() : []);

  beforeEach(() => {
    t = tempDir('cctop-sqlite-');
    agent = join(t.dir, 'agent');
    mkdirSync(agent);
    vi.stubEnv('CCTOP_CACHE_DIR', join(t.dir, 'cache'));
    copies = join(t.dir, 'cache', 'sqlite-copies');
  });
  afterEach(() => {
    closeAll();
    vi.unstubAllEnvs();
    t.cleanup();
  });

  it('a stopped OpenCode’s WAL database is read from a private copy: no -wal or -shm appears beside it', () => {
    const path = join(agent, 'opencode.db');
    const oc = opencodeDb(path);
    addSession(oc, 'ses_a', 'Refactor the parser');
    addSession(oc, 'ses_b', 'Why is CI red?');
    oc.close();
    const before = listing(agent);
    expect(before.map((l) => l.split(' ')[0])).toEqual(['opencode.db']);

    expect(titles(path)).toEqual(['Refactor the parser', 'Why is CI red?']);
    closeAll();

    expect(listing(agent)).toEqual(before);
    expect(copyNames()).toHaveLength(1);
    expect(statSync(copies).mode & 0o777).toBe(0o700);
  });

  it('the whole scan (discovery, then each session read) goes through the copy too', async () => {
    const dataDir = join(agent, 'opencode');
    mkdirSync(dataDir);
    const oc = opencodeDb(join(dataDir, 'opencode.db'));
    addSession(oc, 'ses_a', 'Refactor the parser');
    oc.close();
    const before = listing(dataDir);

    const doc = (
      await readCold(
        { HOME: t.dir, OPENCODE_DATA_DIR: dataDir, CCTOP_CACHE_DIR: join(t.dir, 'cache'), TZ: 'UTC' },
        { providers: ['opencode'], nowMs: NOW },
      )
    ).document;
    closeAll();

    expect(doc.sessions.map((s) => [s.id, s.title])).toEqual([['ses_a', 'Refactor the parser']]);
    expect(listing(dataDir)).toEqual(before);
  });

  it('an unchanged database is copied once: the next reader, with connections of its own, reuses it', () => {
    const path = join(agent, 'opencode.db');
    const oc = opencodeDb(path);
    addSession(oc, 'ses_a', 'Refactor the parser');
    oc.close();

    const first = readOnly(path);
    expect(readOnly(path)).toBe(first);
    const [copy] = copyNames();
    const ino = statSync(join(copies, copy!)).ino;
    closeAll();

    expect(titles(path)).toEqual(['Refactor the parser']);
    expect(copyNames()).toEqual([copy]);
    expect(statSync(join(copies, copy!)).ino).toBe(ino);
  });

  it('a database changed while its agent was away is copied again and read again; the old copy goes', () => {
    const path = join(agent, 'opencode.db');
    let oc = opencodeDb(path);
    addSession(oc, 'ses_a', 'Refactor the parser');
    oc.close();
    expect(titles(path)).toEqual(['Refactor the parser']);
    const old = copyNames();

    // The agent runs again, adds a session, and exits (its last connection checkpoints the WAL).
    oc = new Database(path);
    for (let i = 0; i < 20; i++) addSession(oc, `ses_new_${i}`, `Later task ${i}`, T0 + 60_000 + i);
    oc.close();
    const before = listing(agent);

    expect(titles(path)).toHaveLength(21);
    expect(titles(path)).toContain('Later task 19');
    expect(copyNames()).toHaveLength(1);
    expect(copyNames()).not.toEqual(old);
    closeAll();
    expect(listing(agent)).toEqual(before);
  });

  it('a running agent’s database (its -wal and -shm exist) is read in place: nothing copied, nothing added, and its newest rows are seen', () => {
    const path = join(agent, 'opencode.db');
    const oc = opencodeDb(path); // held open: the agent is running
    addSession(oc, 'ses_a', 'Refactor the parser');
    const before = listing(agent);
    expect(before.map((l) => l.split(' ')[0])).toEqual(['opencode.db', 'opencode.db-shm', 'opencode.db-wal']);

    const db = readOnly(path);
    expect(titles(path)).toEqual(['Refactor the parser']);
    expect(listing(agent)).toEqual(before);

    // Rows the agent has only in its WAL are read through the same connection.
    addSession(oc, 'ses_b', 'Why is CI red?');
    expect(titles(path)).toEqual(['Refactor the parser', 'Why is CI red?']);
    expect(readOnly(path)).toBe(db);
    expect(copyNames()).toEqual([]);
    closeAll();
    oc.close();
  });

  it('when the agent starts, a reader on the copy moves to the live database', () => {
    const path = join(agent, 'opencode.db');
    let oc = opencodeDb(path);
    addSession(oc, 'ses_a', 'Refactor the parser');
    oc.close();
    const fromCopy = readOnly(path);
    expect(titles(path)).toEqual(['Refactor the parser']);

    oc = new Database(path);
    addSession(oc, 'ses_b', 'Why is CI red?');
    const before = listing(agent);
    expect(titles(path)).toEqual(['Refactor the parser', 'Why is CI red?']);
    expect(readOnly(path)).not.toBe(fromCopy);
    expect(listing(agent)).toEqual(before);
    closeAll();
    oc.close();
  });

  it('a crashed Devin’s leftover -wal is read from the copy, rows that are only in the log included', async () => {
    // Devin's `sessions.db` (documented layout); the writer works in a scratch folder, and the agent's
    // folder receives what a crash leaves: the database and its `-wal`, no `-shm`.
    const scratch = join(t.dir, 'scratch');
    mkdirSync(scratch);
    const w = new Database(join(scratch, 'sessions.db'));
    w.pragma('journal_mode = WAL');
    w.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, working_directory TEXT, model TEXT, created_at INTEGER,
      last_activity_at INTEGER, title TEXT, hidden INTEGER NOT NULL DEFAULT 0)`);
    const add = w.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, 0)');
    add.run('dv_checkpointed', '/work/app', 'SWE-1.5', T0 / 1000, T0 / 1000 + 60, 'In the database file');
    w.pragma('wal_checkpoint(TRUNCATE)');
    add.run('dv_in_log', '/work/app', 'SWE-1.5', T0 / 1000, T0 / 1000 + 120, 'Only in the WAL');
    copyFileSync(join(scratch, 'sessions.db'), join(agent, 'sessions.db'));
    copyFileSync(join(scratch, 'sessions.db-wal'), join(agent, 'sessions.db-wal'));
    w.close();
    const before = listing(agent);

    const doc = (
      await readCold(
        { HOME: t.dir, CHISEL_SESSION_DB: join(agent, 'sessions.db'), TZ: 'UTC' },
        { providers: ['devin'], nowMs: NOW },
      )
    ).document;
    closeAll();

    expect(doc.sessions.map((s) => s.title).sort()).toEqual(['In the database file', 'Only in the WAL']);
    expect(listing(agent)).toEqual(before);
    // The copy is one self-contained file: no companions of it linger in cctop's folder either.
    expect(copyNames()).toHaveLength(1);
  });

  it('a rollback-journal database (Windsurf’s state.vscdb) is read in place, and nothing is created', () => {
    const path = join(agent, 'state.vscdb');
    const w = new Database(path);
    w.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    w.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('cascade.chatdata', '{"tabs":[]}');
    w.close();
    const before = listing(agent);

    const row = readOnly(path).prepare('SELECT value FROM ItemTable WHERE key = ?').get('cascade.chatdata');
    closeAll();

    expect(row).toEqual({ value: '{"tabs":[]}' });
    expect(listing(agent)).toEqual(before);
    expect(copyNames()).toEqual([]);
  });

  it('a database another program copies over in place is read anew, even with its old modification time put back', () => {
    // Two databases made by the same steps: the same size, pages and header change counter, so
    // SQLite alone could not tell the new bytes from the pages it cached of the old.
    const made = (path: string, title: string): void => {
      const w = new Database(path);
      w.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
      w.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('title', title);
      w.close();
    };
    const path = join(agent, 'state.vscdb');
    const other = join(t.dir, 'restored.vscdb');
    made(path, 'before the restore');
    made(other, 'after the restore!');
    const title = () =>
      readOnly(path).prepare('SELECT value FROM ItemTable WHERE key = ?').pluck().get('title');
    expect(title()).toBe('before the restore');

    const { atime, mtime, ino } = statSync(path);
    writeFileSync(path, readFileSync(other));
    utimesSync(path, atime, mtime);
    expect(statSync(path).ino).toBe(ino);

    expect(title()).toBe('after the restore!');
  });

  it('a stopped agent’s database larger than the bound is not copied, and the error says why and when it is read', () => {
    const path = join(agent, 'opencode.db');
    const oc = opencodeDb(path);
    addSession(oc, 'ses_a', 'Refactor the parser');
    oc.close();
    // Sparse: past the bound in size, a few kilobytes on disk.
    truncateSync(path, MAX_COPY_BYTES + 1);
    const before = listing(agent);

    expect(() => readOnly(path)).toThrow(/its agent is not running.*read again once the agent runs/);
    expect(listing(agent)).toEqual(before);
    expect(copyNames()).toEqual([]);
  });
});

describe('the copies folder stays within its bound', () => {
  const MB = 1024 ** 2;
  const name = (source: string, version: string) => `${source.repeat(16)}-${version.repeat(16)}.db`;

  it('past the bound, the least recently opened copies of other databases are removed first', () => {
    const entries = [
      { name: name('a', '1'), bytes: 600 * MB, mtimeMs: NOW - 3000 },
      { name: name('b', '1'), bytes: 600 * MB, mtimeMs: NOW - 1000 },
      { name: name('c', '1'), bytes: 600 * MB, mtimeMs: NOW - 2000 },
    ];
    expect(toRemove(entries, name('d', '1'), 500 * MB, NOW, 2048 * MB)).toEqual([name('a', '1')]);
    expect(toRemove(entries, name('d', '1'), 100 * MB, NOW, 2048 * MB)).toEqual([]);
  });

  it('an older copy of the same database goes; another cctop’s copy in progress stays, one left by a dead cctop goes', () => {
    const entries = [
      { name: name('a', '1'), bytes: MB, mtimeMs: NOW },
      { name: `${name('a', '2')}.123-abc.tmp`, bytes: MB, mtimeMs: NOW - 1000 },
      { name: `${name('b', '1')}.99-def.tmp-wal`, bytes: MB, mtimeMs: NOW - ABANDONED_COPY_MS - 1 },
      { name: 'notes.txt', bytes: MB, mtimeMs: 0 },
    ];
    expect(toRemove(entries, name('a', '2'), MB, NOW).sort()).toEqual(
      [name('a', '1'), `${name('b', '1')}.99-def.tmp-wal`].sort(),
    );
  });
});

describe('a database built to hang its reader', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir('cctop-hostile-'));
  });
  afterEach(() => {
    closeAll();
    cleanup();
  });

  /** An endless query: every row of it is one more row. */
  const ENDLESS = 'WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)';

  /**
   * A rollback-journal database (read in place) with a `session` table and a `message` view. What a
   * whole run does with one is in `test/resilience.test.ts`, in a child process: a regression there
   * must fail a test, not stall the run.
   */
  function hostile(): string {
    const path = join(dir, 'opencode.db');
    const db = new Database(path);
    db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY);
      CREATE VIEW message AS ${ENDLESS} SELECT x AS id, 's' AS session_id FROM r;`);
    db.close();
    return path;
  }

  it('a view where a table belongs is refused before any query, and a missing table is named', () => {
    const db = readOnly(hostile());
    expect(() => tablesOnly(db, ['session', 'message'])).toThrow(
      'its `message` is a view, not a table; cctop reads only the tables an agent writes',
    );
    expect(() => tablesOnly(db, ['session'], ['part'])).not.toThrow();
    expect(() => tablesOnly(db, ['session', 'part'])).toThrow('it has no `part` table');
    // Asked for its columns, a view is no table at all: callers that check first never query it.
    expect(columnsOf(db, 'message')).toEqual(new Set());
    expect(columnsOf(db, 'session')).toEqual(new Set(['id']));
  });

  it('a read past its budget is stopped inside SQLite and says what the budget was', () => {
    const db = readOnly(hostile());
    // The endless query run by hand, checking the budget on each row it makes.
    const endless = db.prepare(`${ENDLESS} SELECT count(*) FROM r WHERE ${IN_BUDGET}`);
    const started = performance.now();
    expect(() => withinBudget(() => endless.get(), 50)).toThrow(
      "reading it took longer than 0.05 s, the budget for one read of an agent's database; it is skipped this time",
    );
    expect(performance.now() - started).toBeLessThan(DB_READ_BUDGET_MS);
    // Outside a budgeted read the check always passes.
    expect(db.prepare(`SELECT ${IN_BUDGET} AS ok`).get()).toEqual({ ok: 1 });
  });
});
