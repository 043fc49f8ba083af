/**
 * What cctop does when its own files or an agent's are not what they should be: a damaged index, a
 * cache directory it cannot use, a database built to hang a reader, a token file that is a pipe. The
 * built `dist/cli.js` in a child process against fake homes (a hang must fail the test, not stall it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FILE } from '../src/index/store.js';
import type { SessionDocument } from '../src/model/document.js';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';
import { damagePages } from '../src/test-support/damage.js';
import { addClaude, DEMO_WITH_SUBAGENT, labTranscript } from '../src/test-support/owned.js';

const CLI = join(REPO, 'dist', 'cli.js');

/** Longer than any of these runs takes, shorter than the test timeout: a hang shows as a failure. */
const HANG_MS = 20_000;

function cctop(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const sessionsOf = (json: string) => (JSON.parse(json) as SessionDocument).sessions;

/** Remove the warm snapshots (`warm-*.snap`) beside the index, so the next answer comes from it. */
const dropWarm = (cache: string) => {
  for (const n of readdirSync(cache)) if (n.startsWith('warm-')) rmSync(join(cache, n), { force: true });
};

/** The lines a run wrote to stderr. */
const lines = (err: string) => err.split('\n').filter((l) => l.length > 0);

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

describe('a damaged index', () => {
  it('is moved aside and rebuilt once: the answer is the --no-cache answer, stderr says so in one line, doctor names it', () => {
    const grown = addClaude(home.dir, DEMO_WITH_SUBAGENT);
    addClaude(home.dir, labTranscript('claude', 'parallel'));
    expect(cctop(['--json'], home.env).code).toBe(0);
    const cache = home.env.CCTOP_CACHE_DIR!;
    damagePages(join(cache, INDEX_FILE), 'files');
    appendFileSync(grown, claudeResponse('late', 3, '2025-10-01T00:00:00Z'));
    // An append to a transcript quiet for over an hour may be answered from the warm snapshot for up
    // to a minute (docs/limits.md); this test is about the index, so the snapshot goes.
    dropWarm(cache);

    const r = cctop(['--json'], home.env);
    expect(r.code).toBe(0);
    expect(lines(r.err)).toHaveLength(1);
    expect(r.err).toMatch(
      /^cctop: the index at .*index\.sqlite was damaged \(database disk image is malformed\); moved it to index\.sqlite\.corrupt-\S+ and rebuilt it from the transcripts\n$/,
    );
    expect(sessionsOf(r.out)).toEqual(sessionsOf(cctop(['--json', '--no-cache'], home.env).out));
    expect(readdirSync(cache).filter((n) => n.startsWith(`${INDEX_FILE}.corrupt-`)).length).toBeGreaterThan(
      0,
    );
    // Healed: the next run is quiet.
    expect(cctop(['--json'], home.env).err).toBe('');

    damagePages(join(cache, INDEX_FILE), 'files');
    appendFileSync(grown, claudeResponse('later', 4, '2025-10-01T00:00:01Z'));
    dropWarm(cache);
    const doctor = cctop(['doctor'], home.env);
    expect(doctor.code).toBe(0);
    expect(doctor.out).toMatch(
      /Index \(1\)\n\s+.*the index at .* was damaged \(database disk image is malformed\)/,
    );
  });
});

describe('a cache directory cctop cannot use', () => {
  /** Resolves with what `cctop serve` printed once it listens, and the child to stop. */
  function serving(
    env: Record<string, string>,
  ): Promise<{ child: ChildProcess; base: string; err: () => string }> {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--no-token'], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /cctop serve: (http:\/\/\S+?)\/\n/.exec(out);
        if (m) resolve({ child, base: m[1]!, err: () => err });
      });
      child.on('close', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  }

  for (const [what, at] of [
    ['is a file', (file: string) => file],
    ['is under a file', (file: string) => join(file, 'cctop')],
  ] as const) {
    it(`that ${what}: every command answers without the index, with one notice, and doctor says so`, async () => {
      home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
      const env = { ...home.env, CCTOP_CACHE_DIR: at(home.write(join(home.dir, 'a-file'), 'x')) };
      for (const args of [['--list'], ['--json'], ['report'], ['chat'], ['doctor']]) {
        const r = cctop(args, env);
        expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
        expect(lines(r.err), args.join(' ')).toHaveLength(1);
        expect(r.err).toMatch(
          /^cctop: the cache directory .* cannot be used \(.*\); reading without the index/,
        );
        if (args[0] === 'doctor') expect(r.out).toMatch(/Index \(1\)\n\s+.*cannot be used/);
        if (args[0] === '--json') expect(sessionsOf(r.out)).toHaveLength(1);
      }
      const s = await serving(env);
      try {
        const res = await fetch(`${s.base}/api/sessions`);
        expect(res.status).toBe(200);
        const doc = (await res.json()) as SessionDocument;
        expect(doc.sessions).toHaveLength(1);
        expect(doc.problems.map((p) => p.kind)).toEqual(['cache']);
        expect(s.err()).toMatch(/cctop serve: the cache directory .* cannot be used/);
      } finally {
        s.child.kill();
      }
    });
  }
});

describe('an agent database built to hang a reader', () => {
  /** An endless query: every row of it is one more row. */
  const ENDLESS = 'WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)';

  it('an OpenCode database whose `message` is a view is a problem doctor names, not a hang', () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    const dir = join(home.dir, '.local', 'share', 'opencode');
    mkdirSync(dir, { recursive: true });
    // OpenCode 1.2's `session` table, and a view where its `message` table belongs.
    const db = new Database(join(dir, 'opencode.db'));
    db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
        slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
        time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
      INSERT INTO session VALUES ('ses_1', 'p', NULL, 's', '/w', 'A title', '1.2.0', 1, 1);
      CREATE VIEW message AS ${ENDLESS}
        SELECT 'msg_' || x AS id, 'ses_1' AS session_id, x AS time_updated, '{}' AS data FROM r;`);
    db.close();
    const list = cctop(['--list'], home.env);
    expect(list.code).toBe(0);
    expect(list.out).toContain('Claude Code');
    const doctor = cctop(['doctor'], home.env);
    expect(doctor.out).toMatch(/opencode\.db: .*its `message` is a view, not a table/);
  });

  it('a Devin database whose `sessions` is a view is a problem doctor names, not a hang', () => {
    const dir = join(home.dir, '.local', 'share', 'devin', 'cli');
    mkdirSync(dir, { recursive: true });
    const db = new Database(join(dir, 'sessions.db'));
    db.exec(`CREATE VIEW sessions AS ${ENDLESS}
      SELECT 's' || x AS id, '/w' AS working_directory, x AS last_activity_at, 0 AS hidden FROM r;`);
    db.close();
    const doctor = cctop(['doctor'], home.env);
    expect(doctor.code).not.toBeNull();
    expect(doctor.out).toMatch(/sessions\.db: .*its `sessions` is a view, not a table/);
  });
});

describe('cctop serve --token-file', () => {
  it('a named pipe is refused at once, not waited on', () => {
    const fifo = join(home.dir, 'token');
    expect(spawnSync('mkfifo', ['-m', '600', fifo]).status).toBe(0);
    const r = cctop(['serve', '--token-file', fifo, '--port', '0'], home.env);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${fifo} is not a plain file (a named pipe)`);
  });
});
