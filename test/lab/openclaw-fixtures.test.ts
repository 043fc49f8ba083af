/**
 * What the real OpenClaw 2026.9.6 wrote in the lab (`lab/fixtures/openclaw/<case>/`, recorded by
 * `openclaw.test.ts` under `npm run lab:record`), read as a user sees it on any clone: the exact
 * figures of each session against what the stand-in server served, the conversation with its failed
 * command, and a prompt OpenClaw stored compressed. `fixtures.test.ts` checks the same recordings
 * against their ledgers the way it checks every agent's; this file pins what OpenClaw's differ in.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TITLE_CHARS } from '../../src/model/facts.js';
import { openclaw } from '../../src/providers/openclaw/index.js';
import { STORE_FILE } from '../../src/providers/openclaw/store.js';
import { inflateEvent, nodeHasZstd } from '../../src/providers/openclaw/zstd.js';
import { closeAll } from '../../src/providers/sqlite.js';
import { runCli } from '../../src/test-support/cli-run.js';
import { FakeHome, REPO } from '../../src/test-support/corpus.js';
import { agentNodeDir, PINS } from '../../src/test-support/lab/agents.js';
import type { LedgerEntry } from '../../src/test-support/lab/server.js';
import { readCold } from '../../src/test-support/snapshot.js';

const FIXTURES = join(REPO, 'lab', 'fixtures', 'openclaw');
const NOW = Date.parse('2026-12-08T00:00:00Z');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => {
  closeAll();
  home.cleanup();
});

/** The one session a recorded case holds, as `cctop --json` reads it, and the document's problems. */
async function recorded(name: string) {
  cpSync(join(FIXTURES, name, 'home'), home.dir, { recursive: true });
  const doc = (await readCold(home.env, { providers: ['openclaw'], nowMs: NOW })).document;
  expect(doc.sessions).toHaveLength(1);
  return { session: doc.sessions[0]!, problems: doc.problems };
}

const ledger = (name: string): LedgerEntry[] =>
  JSON.parse(readFileSync(join(FIXTURES, name, 'ledger.json'), 'utf8'));

describe('OpenClaw 2026.9.6 as recorded in the lab', () => {
  it('each run shows the tokens, requests, context, calls and failures the server served, reasoning included, and no price', async () => {
    const rows = [];
    for (const name of ['text', 'call', 'fail', 'parallel', 'resume']) {
      const { session: s } = await recorded(name);
      rows.push([
        name,
        s.title,
        [s.tokens.input, s.tokens.output, s.tokens.cacheRead, s.tokens.cacheWrite, s.tokens.reasoning],
        s.requests,
        s.context.used,
        [s.tools.calls, s.tools.failed],
        [s.model, s.reasoningEffort, s.state, s.cost.usd, s.cost.unpriced],
      ]);
      closeAll();
      home.cleanup();
      home = new FakeHome();
    }
    const lab = ['lab-model', 'off', 'idle', null, ['lab-model']];
    expect(rows).toEqual([
      ['text', '[lab:text] Follow the lab script text.', [4609, 15, 4608, 0, 4], 1, 9217, [0, 0], lab],
      ['call', '[lab:call] Follow the lab script call.', [9248, 36, 9247, 0, 11], 2, 9277, [1, 0], lab],
      ['fail', '[lab:fail] Follow the lab script fail.', [9255, 44, 9254, 0, 15], 2, 9289, [1, 1], lab],
      [
        'parallel',
        '[lab:parallel] Follow the lab script parallel.',
        [9283, 52, 9282, 0, 19],
        2,
        9334,
        [2, 0],
        lab,
      ],
      ['resume', '[lab:call] Follow the lab script call.', [16799, 93, 16799, 0, 36], 3, 15084, [1, 0], lab],
    ]);
    // The figures are the server's: the fail run's two responses, summed.
    const fail = ledger('fail');
    expect([
      fail.reduce((a, e) => a + e.figures.input, 0),
      fail.reduce((a, e) => a + e.figures.output, 0),
      fail.reduce((a, e) => a + (e.figures.reasoning ?? 0), 0),
    ]).toEqual([9255, 44, 15]);
  });

  it('a command that exited 3 is a failed call, though OpenClaw wrote `isError: false`, in the conversation and the calls alike', async () => {
    const { session } = await recorded('fail');
    const c = openclaw.conversation!(session.file, { before: null, agent: null });
    expect(
      c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.detail, u.failed, u.result])]),
    ).toEqual([
      ['user', '[lab:fail] Follow the lab script fail.', []],
      [
        'assistant',
        '',
        [['exec', 'echo lab-fail-out; exit 3', true, 'lab-fail-out\n\n(Command exited with code 3)']],
      ],
      ['assistant', 'The command failed with exit code 3.', []],
    ]);
    expect(openclaw.calls!(session.file).calls.map((k) => [k.name, k.failed])).toEqual([['exec', true]]);
  });

  it('a session resumed with `openclaw agent --local --session-id` is one session holding both prompts', async () => {
    const { session } = await recorded('resume');
    const c = openclaw.conversation!(session.file, { before: null, agent: null });
    expect(c.turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual([
      '[lab:call] Follow the lab script call.',
      '[lab:resume] Follow the lab script resume.',
    ]);
    expect(c.turns.at(-1)?.text).toBe('Resumed: the second turn is answered.');
  });

  // OpenClaw stores an event of 1 KiB or more compressed with zstd: Node reads it from 22.15 on, and
  // fzstd on older Node, so every Node reads the same.
  const prompts: unknown = JSON.parse(readFileSync(join(FIXTURES, 'long', 'prompts.json'), 'utf8'));
  const prompt = Array.isArray(prompts) && typeof prompts[0] === 'string' ? prompts[0] : '';
  it(`a prompt OpenClaw stored compressed reads as the prompt on Node ${process.versions.node}: the title and the conversation have it`, async () => {
    const { session, problems } = await recorded('long');
    // A title is the prompt's head, one line of at most `MAX_TITLE_CHARS`.
    const title = session.title ?? '';
    expect([prompt.startsWith(title.slice(0, 60)), title.length <= MAX_TITLE_CHARS]).toEqual([true, true]);
    expect([title.slice(0, 38), session.tokens.input, session.requests, problems.map((p) => p.kind)]).toEqual(
      ['[lab:text] Follow the lab script text.', 4812, 1, ['unpriced-model']],
    );
    const c = openclaw.conversation!(session.file, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', prompt],
      ['assistant', 'pong: the lab answers with text only.'],
    ]);
  });

  it(`the built cctop reads it too on Node ${process.versions.node}, loading ${nodeHasZstd ? 'no fzstd (Node reads zstd itself)' : 'fzstd for the cold read'}, and a warm answer loads none`, async () => {
    cpSync(join(FIXTURES, 'long', 'home'), home.dir, { recursive: true });
    // NODE_DEBUG=module names each CommonJS module loaded, on stderr.
    const env = { ...home.env, PATH: process.env.PATH ?? '', NODE_DEBUG: 'module' };
    const runs = [];
    for (const _ of ['cold', 'warm']) {
      const r = await runCli(['--json'], env);
      expect(r.code, r.err.slice(-2000)).toBe(0);
      const doc = JSON.parse(r.out) as { sessions: { title: string | null }[] };
      runs.push([doc.sessions.map((s) => s.title?.slice(0, 38)), /load "[^"]*[\\/]fzstd[\\/]/.test(r.err)]);
    }
    expect(runs).toEqual([
      [['[lab:text] Follow the lab script text.'], !nodeHasZstd],
      [['[lab:text] Follow the lab script text.'], false],
    ]);
  });

  // Node's own zstd: this one's, else the Node the lab installs for OpenClaw (`npm run agents`).
  const otherNode = nodeHasZstd ? null : agentNodeDir('openclaw');
  const nodeZstd = nodeHasZstd
    ? 'this Node'
    : otherNode !== null
      ? `Node ${PINS.openclaw.node} (the lab's)`
      : null;
  (nodeZstd === null ? it.skip : it)(
    `fzstd reads every compressed row of the recordings to the bytes ${nodeZstd ?? "Node's zstd"} reads${nodeZstd === null ? ` (skipped: Node ${process.versions.node} has no zstd and the lab's Node ${PINS.openclaw.node} is not installed; npm run agents -- openclaw)` : ''}`,
    () => {
      const rows: { name: string; zstd: Buffer; size: number }[] = [];
      for (const name of readdirSync(FIXTURES).sort()) {
        const db = new Database(
          join(FIXTURES, name, 'home', '.openclaw', 'agents', 'main', 'agent', STORE_FILE),
          {
            readonly: true,
          },
        );
        const stored = db
          .prepare(
            'SELECT event_zstd AS zstd, event_utf8_bytes AS size FROM transcript_events WHERE event_zstd IS NOT NULL ORDER BY session_id, seq',
          )
          .all() as { zstd: Buffer; size: number }[];
        db.close();
        rows.push(...stored.map((r) => ({ name, ...r })));
      }
      expect(rows.map((r) => [r.name, r.size])).toEqual([['long', 1935]]);
      const byFzstd = rows.map((r) => inflateEvent(r.zstd, r.size, { decoder: 'fzstd' }));
      const byNode =
        otherNode === null
          ? rows.map((r) => inflateEvent(r.zstd, r.size, { decoder: 'node' }))
          : inflatedBy(join(otherNode, 'node'), rows);
      expect(byFzstd).toEqual(byNode);
      expect(byFzstd.map((e) => (e.kind === 'json' ? JSON.parse(e.json).message.content : e))).toEqual([
        prompt,
      ]);
    },
  );
});

/** `rows` decompressed by Node's zstd in the Node at `node`, as `inflateEvent` reports a row it reads. */
function inflatedBy(node: string, rows: { zstd: Buffer; size: number }[]) {
  const script = `const zlib = require('node:zlib');
    const rows = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(rows.map((r) => zlib.zstdDecompressSync(Buffer.from(r.zstd, 'base64')).toString('utf8'))));`;
  const r = spawnSync(node, ['-e', script], {
    input: JSON.stringify(rows.map((row) => ({ zstd: row.zstd.toString('base64') }))),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as string[]).map((json) => ({ kind: 'json', json }));
}
