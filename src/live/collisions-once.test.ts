/**
 * The collisions of a one-shot answer (`cctop --json`): read from the transcripts of the sessions a
 * process runs, within bounds, and printed in the document. Over Claude Code 2.1.80 transcripts
 * (trimmed) in a temporary home whose project is a real repository (a `.git` directory).
 */
import { mkdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Annotator, SessionDocument, SessionLiveFields } from '../model/document.js';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { snapshotIn } from '../test-support/snapshot.js';
import type { Io } from '../views/cli/main.js';
import { main } from '../views/cli/main.js';
import {
  collisionsFor,
  collisionsOnce,
  type LiveSession,
  noteRunning,
  ONCE_MAX_BYTES,
} from './collisions-once.js';

const homes: FakeHome[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

/** A home with a repository at `~/src/app` and, per entry, a Claude session that wrote `file` there. */
function home(sessions: { id: string; title: string; file: string; minutes: number }[]) {
  const h = new FakeHome();
  homes.push(h);
  const app = join(h.dir, 'src', 'app');
  mkdirSync(join(app, '.git'), { recursive: true });
  const paths = sessions.map((s) => {
    const base = { cwd: app, sessionId: s.id, version: '2.1.80', gitBranch: 'main', userType: 'external' };
    return h.write(
      h.claudeFile('-src-app', `${s.id}.jsonl`),
      jsonl(
        { type: 'custom-title', customTitle: s.title, sessionId: s.id },
        {
          ...base,
          type: 'user',
          uuid: `u-${s.id}`,
          timestamp: ago(s.minutes + 1),
          message: { role: 'user', content: 'go' },
        },
        {
          ...base,
          type: 'assistant',
          uuid: `a-${s.id}`,
          timestamp: ago(s.minutes),
          requestId: `req_${s.id}`,
          message: {
            model: 'claude-opus-4-6',
            id: `msg_${s.id}`,
            type: 'message',
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: `toolu_${s.id}`,
                name: 'Edit',
                input: { file_path: s.file, old_string: 'a', new_string: 'b' },
              },
            ],
            usage: {
              input_tokens: 3,
              cache_creation_input_tokens: 10,
              cache_read_input_tokens: 100,
              output_tokens: 9,
            },
          },
        },
      ),
    );
  });
  return { h, app, paths };
}

const A = '0a7d2f0e-1b3a-4c5d-8e9f-0a1b2c3d4e01';
const B = '0b7d2f0e-1b3a-4c5d-8e9f-0a1b2c3d4e02';

/** What the annotator would have seen, with `running` as a process table would have said. */
const live = (path: string, id: string, app: string, minutes: number, running = true): LiveSession => ({
  provider: 'claude',
  id,
  file: path,
  project: app,
  lastActiveAt: ago(minutes),
  deleted: false,
  running,
});

describe('collisions for a one-shot answer', () => {
  it('two running sessions that edited one file collide on it; one alone collides with nobody', async () => {
    const { app, paths } = home([
      { id: A, title: 'fix the parser', file: 'src/parse.ts', minutes: 6 },
      { id: B, title: 'speed up the parser', file: 'src/parse.ts', minutes: 2 },
    ]);
    const both = [live(paths[0]!, A, app, 6), live(paths[1]!, B, app, 2)];
    const found = await collisionsOnce(both, { nowMs: NOW });
    expect(found.map((c) => [c.level, c.path, c.sessions.map((s) => s.id)])).toEqual([
      ['file', join(app, 'src', 'parse.ts'), [B, A]],
    ]);
    expect(await collisionsOnce([both[0]!], { nowMs: NOW })).toEqual([]);
    expect(await collisionsOnce([both[0]!, live(paths[1]!, B, app, 2, false)], { nowMs: NOW })).toEqual([]);
  });

  it(`a transcript past ${ONCE_MAX_BYTES / 1024 / 1024} MB is not read for a one-shot answer`, async () => {
    const { app, paths } = home([
      { id: A, title: 'a', file: 'src/parse.ts', minutes: 6 },
      { id: B, title: 'b', file: 'src/parse.ts', minutes: 2 },
    ]);
    truncateSync(paths[1]!, ONCE_MAX_BYTES + 1);
    expect(
      await collisionsOnce([live(paths[0]!, A, app, 6), live(paths[1]!, B, app, 2)], { nowMs: NOW }),
    ).toEqual([]);
  });

  it('cctop --json carries the collisions, each session named by its title', async () => {
    const { h, app } = home([
      { id: A, title: 'fix the parser', file: 'src/parse.ts', minutes: 6 },
      { id: B, title: 'speed up the parser', file: 'src/parse.ts', minutes: 2 },
    ]);
    // No agent process runs in a test: an annotator says both sessions run, as the process table would.
    const running: Annotator = (d) => {
      for (const s of d.sessions) s.running = true;
      return true;
    };
    const seen: LiveSession[] = [];
    const s = await snapshotIn(h.env, { useIndex: false, annotate: noteRunning(running, seen) });
    expect(seen.map((x) => x.id).sort()).toEqual([A, B]);
    const collisions = await collisionsFor(seen, () => s.document.sessions, { nowMs: NOW });
    const doc = JSON.parse(s.json({ collisions }).toString()) as SessionDocument;
    expect(doc.collisions).toHaveLength(1);
    expect(doc.collisions![0]).toMatchObject({
      level: 'file',
      path: join(app, 'src', 'parse.ts'),
      repoRoot: app,
    });
    expect(doc.collisions![0]!.sessions.map((w) => w.title)).toEqual([
      'speed up the parser',
      'fix the parser',
    ]);
    expect(doc.sessions).toHaveLength(2);
  });

  it('cctop --json says there are no collisions when no session runs', async () => {
    const { h } = home([{ id: A, title: 'fix the parser', file: 'src/parse.ts', minutes: 6 }]);
    const out: (string | Uint8Array)[] = [];
    const io: Io = {
      out: (t) => out.push(t),
      err: () => {},
      write: (chunks) => {
        out.push(...chunks);
      },
      isTty: false,
      columns: 100,
      env: { ...h.env, PATH: process.env.PATH ?? '' },
    };
    expect(await main(['--json', '--no-cache'], io)).toBe(0);
    const doc = JSON.parse(
      Buffer.concat(out.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))).toString(),
    );
    expect(doc.collisions).toEqual([]);
    expect(doc.sessions).toHaveLength(1);
  });

  it('the annotator it wraps still decides, and only the running sessions are noted', () => {
    const seen: LiveSession[] = [];
    const inner: Annotator = (d) => {
      d.sessions[0]!.running = true;
      return false;
    };
    const fields = (id: string) =>
      ({ provider: 'claude', id, running: null, deleted: false }) as SessionLiveFields;
    expect(noteRunning(inner, seen)({ sessions: [fields('x'), fields('y')] })).toBe(false);
    expect(seen.map((s) => s.id)).toEqual(['x']);
  });
});
