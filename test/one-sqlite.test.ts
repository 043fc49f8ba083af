/**
 * One better-sqlite3 in a process: the session index, the search index and a harness's own database
 * (OpenCode's) are all opened through `src/sqlite-module.ts`. Two copies of the package in one run
 * would share its one compiled addon, and with it the error class of whichever copy opened a
 * database first. Checked on the build `npm test` makes first, in child processes, so that nothing
 * is loaded already.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { addLabRuns } from '../src/test-support/owned.js';

const DIST = join(CLI, '..');

/**
 * Loaded before the program, in every thread it starts: at the thread's end, the files of
 * better-sqlite3 (its JavaScript, `bindings`, the addon) that thread loaded, as a `SQLITE <json>` line
 * on stderr. `require.cache` is node's one table of CommonJS modules, whoever required them.
 */
const PROBE = `import { createRequire } from 'node:module';
const cache = createRequire(${JSON.stringify(CLI)}).cache;
process.on('exit', () => {
  const files = Object.keys(cache).filter((f) => /better-sqlite3|better_sqlite3|[\\\\/]bindings[\\\\/]/.test(f));
  if (files.length > 0) process._rawDebug('SQLITE ' + JSON.stringify(files));
});`;

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

describe('better-sqlite3 in a run that opens several databases', () => {
  it("loads it once, as the build's one file of it and its addon, for the session index, the search index and OpenCode's database", () => {
    // Claude Code's lab runs, and OpenCode's, whose conversation is in its own SQLite database.
    addLabRuns(home.dir, ['claude']);
    const r = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, CLI, 'search', 'lab'],
      { env: { PATH: process.env.PATH ?? '', ...home.env }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    // The search read both harnesses' conversations: OpenCode's out of its database.
    expect(r.stdout).toMatch(/^Lab session {2}opencode /m);
    expect(r.stdout).toMatch(/ {2}claude {2}/);
    const threads = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('SQLITE '))
      .map((l) => JSON.parse(l.slice('SQLITE '.length)) as string[]);
    expect(threads.length).toBeGreaterThan(0);
    for (const files of threads) {
      expect(files.map((f) => f.replace(/.*[\\/]/, ''))).toEqual([
        expect.stringMatching(/^better-sqlite3-\d+\.\d+\.\d+\.cjs$/),
        'better_sqlite3.node',
      ]);
      expect(files[0]).toBe(join(DIST, 'cli-bundle', files[0]!.replace(/.*[\\/]/, '')));
    }
  });

  it('makes an error from the search index, opened first, an instance of the SqliteError every database opened after it throws', () => {
    const script = `
      const { SearchDb } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'search', 'store.js')).href)});
      const { sqliteModule } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'sqlite-module.js')).href)});
      const opened = SearchDb.open(${JSON.stringify(join(home.dir, 'search'))});
      if (opened.kind !== 'open') throw new Error(opened.why);
      const caught = (f) => { try { f(); } catch (err) { return err; } throw new Error('no error'); };
      const filters = { providers: null, project: null, sinceMs: null, untilMs: null, role: null };
      // An unclosed quote is a syntax error to FTS5.
      const search = caught(() => opened.db.query('"unclosed', filters, 10, 8));
      const { Database, options } = sqliteModule();
      const later = caught(() => new Database(':memory:', options).prepare('SELEC 1'));
      console.log(JSON.stringify({
        search: [search.code, search instanceof Database.SqliteError],
        later: [later.code, later instanceof Database.SqliteError],
        same: search.constructor === later.constructor,
      }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...home.env },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      search: ['SQLITE_ERROR', true],
      later: ['SQLITE_ERROR', true],
      same: true,
    });
  });
});
