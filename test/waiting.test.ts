/**
 * The waiting rule seen from every view. One history holds questions of every age, from a harness
 * cctop matches to processes (Claude Code) and one it does not (Factory Droid); `--list`, `--json`, the
 * live table's header and what `serve` serves must all count the same two sessions as waiting: the
 * Claude question asked five minutes ago (no process, within the working lapse) and the Droid one
 * asked two hours ago (no process in sight, within the day). The built `dist/cli.js` runs each view.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { CLI } from '../src/test-support/cli-run.js';
import { FakeHome, jsonl } from '../src/test-support/corpus.js';
import { DEMO_HOME } from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How long a view may take to show its first picture on a busy two-core machine. */
const PATIENCE_MS = 30_000;

/** The sessions of the history, by how long ago each asked its question. */
const CLAUDE_AGES = {
  'c0000000-0000-4000-8000-00000000070d': 70 * DAY,
  'c0000000-0000-4000-8000-0000000002b0': 2 * 60 * MINUTE,
  'c0000000-0000-4000-8000-000000000005': 5 * MINUTE,
};
const DROID_AGES = {
  'a0000000-0000-4000-8000-0000000002b0': 2 * 60 * MINUTE,
  'a0000000-0000-4000-8000-00000000003d': 3 * DAY,
  'a0000000-0000-4000-8000-00000000070d': 70 * DAY,
};
const WAITING = ['a0000000-0000-4000-8000-0000000002b0', 'c0000000-0000-4000-8000-000000000005'];

/**
 * The history: each Claude session is the demo's AskUserQuestion line (Claude Code 2.1's shape, from
 * `demo/home`) under its own id and time; each Droid session is a start, a prompt and a reply that
 * calls `AskUser`, beside its settings file, in the session format of `lab/fixtures/sources/droid` (Factory's files as
 * documented; no recording holds a Droid session that asks).
 */
function writeHistory(home: FakeHome): void {
  const asked = readFileSync(
    join(
      DEMO_HOME,
      '.claude',
      'projects',
      '-home-sam-src-billing',
      '764f8035-34f4-4dde-aea5-48b7af15c48f.jsonl',
    ),
    'utf8',
  )
    .split('\n')
    .find((l) => l.includes('"name":"AskUserQuestion"'));
  const line = JSON.parse(asked!) as Record<string, unknown>;
  const now = Date.now();
  for (const [id, ago] of Object.entries(CLAUDE_AGES)) {
    const at = now - ago;
    const record = { ...line, sessionId: id, cwd: '/work/ask', timestamp: new Date(at).toISOString() };
    home.write(home.claudeFile('-work-ask', `${id}.jsonl`), jsonl(record), at);
  }
  for (const [id, ago] of Object.entries(DROID_AGES)) {
    const at = now - ago;
    const timestamp = new Date(at).toISOString();
    home.write(
      join(home.dir, '.factory', 'sessions', '-work-ask', `${id}.jsonl`),
      jsonl(
        { type: 'session_start', id, title: 'Which database?', cwd: '/work/ask', version: 2 },
        {
          type: 'message',
          id: 'm1',
          timestamp,
          message: { role: 'user', content: [{ type: 'text', text: 'Set up the database' }] },
        },
        {
          type: 'message',
          id: 'm2',
          timestamp,
          message: {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'q', name: 'AskUser', input: { question: 'Which one?' } }],
          },
        },
      ),
      at,
    );
    // A Droid session is found by its settings file, which holds its model and its token totals.
    home.write(
      join(home.dir, '.factory', 'sessions', '-work-ask', `${id}.settings.json`),
      JSON.stringify({
        providerLock: 'anthropic',
        tokenUsage: { inputTokens: 10, outputTokens: 5, cacheCreationTokens: 0, cacheReadTokens: 0 },
      }),
      at,
    );
  }
}

function cctop(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('every view counts the same sessions as waiting', () => {
  let home: FakeHome;
  beforeAll(() => {
    home = new FakeHome();
    writeHistory(home);
  });
  afterAll(() => home.cleanup());

  it('--json: only the questions something can still answer are waiting', () => {
    const doc = JSON.parse(cctop(['--json'], home.env).out) as SessionDocument;
    expect(doc.sessions).toHaveLength(6);
    const waiting = doc.sessions.filter((s) => s.state === 'waiting').map((s) => s.id);
    expect(waiting.sort()).toEqual(WAITING);
  });

  it('--list marks the same two sessions waiting', () => {
    const r = cctop(['--list'], home.env);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l.startsWith('  ▲ '))).toHaveLength(WAITING.length);
  });

  it('serve serves the same two as waiting (the dashboard’s "Needs you" and its counts read these)', async () => {
    const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--no-token'], {
      env: { PATH: process.env.PATH ?? '', ...home.env },
    });
    try {
      const link = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (m) resolve(m[0]);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const deadline = Date.now() + PATIENCE_MS;
      let doc: SessionDocument | null = null;
      while (Date.now() < deadline) {
        const res = await fetch(`${link}/api/sessions`);
        if (res.ok) {
          doc = (await res.json()) as SessionDocument;
          if (doc.sessions.length === 6) break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const waiting = doc?.sessions.filter((s) => s.state === 'waiting').map((s) => s.id) ?? [];
      expect(waiting.sort()).toEqual(WAITING);
    } finally {
      // Waited for, so the home is not removed while serve is still keeping its state as it exits.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill();
        await exited;
      }
    }
  });

  it.skipIf(!HAVE_TMUX)(
    `the live table’s header counts the same two as waiting${unless(HAVE_TMUX, WHY.tmux)}`,
    async () => {
      const term = new Terminal(`cctop-waiting-${process.pid}`, 'live', PATIENCE_MS);
      term.cctop(
        home.dir,
        { ...home.env, PATH: process.env.PATH ?? '', TERM: 'xterm-256color' },
        '',
        200,
        30,
      );
      try {
        const deadline = Date.now() + PATIENCE_MS;
        let header = '';
        // The first picture may come before every row is read: wait for all six.
        while (Date.now() < deadline) {
          const lines = term.screen();
          header = lines[0] ?? '';
          if (lines.filter((l) => l.includes(' ask')).length >= 6 && /waiting/.test(header)) break;
          await new Promise((r) => setTimeout(r, 150));
        }
        expect(header).toMatch(new RegExp(`▲ ${WAITING.length} waiting`));
      } finally {
        term.stop();
      }
    },
  );
});
