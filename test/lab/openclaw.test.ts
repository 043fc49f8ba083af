/**
 * OpenClaw, the real CLI (pinned in lab/agents.json, on the Node 24 it needs, which `npm run agents`
 * installs beside it), run one-shot and headless against the stand-in model server: `openclaw agent
 * exec` with a config of its own pointing a provider `lab` at the server over Chat Completions, and
 * its state in the run's home. What it wrote (its per-agent SQLite store) is read back with cctop and
 * checked against the server's ledger by the conformance suite every agent runs (`conformance.ts`).
 *
 * Only the `fail` case runs here (a call, its non-zero exit, the answer after it), and the suite's
 * held answer (about ten seconds of OpenClaw booting each); `npm run lab:record` runs every case, a
 * resumed session included, and one long prompt, and keeps each run in `lab/fixtures/openclaw/` (see
 * its README), which `openclaw-fixtures.test.ts` and `fixtures.test.ts` replay on a clone without
 * OpenClaw.
 */
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import {
  agentNodeDir,
  idInOutput,
  LAB_RUN_TIMEOUT_MS,
  type Recipe,
} from '../../src/test-support/lab/agents.js';
import { type Expect, FIXTURES, RECORDING } from '../../src/test-support/lab/check.js';
import { unless } from '../../src/test-support/skips.js';
import { conformance, promptFor } from './conformance.js';

const nodeDir = agentNodeDir('openclaw');

/** Where OpenClaw keeps its state and config under the run's home (its default, `~/.openclaw`). */
const STATE = '.openclaw';
const STORE = join(STATE, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');

/**
 * OpenClaw writes `usage.reasoningTokens` (the server's reasoning count, inside `output`) and a
 * `cacheWrite` of 0 where Chat Completions has none.
 */
const RECORDS: Expect['records'] = { cacheWrite: true, reasoning: 'server' };

/**
 * The recipe for one home: `agent exec` needs its config and state folder named on the command line
 * (without them it runs in a temporary state it deletes). A resumed run is `agent --local` on the
 * session id, which finds both at their defaults under the same home.
 */
function openclawRecipe(home: string): Recipe {
  const state = join(home, STATE);
  return {
    id: 'openclaw',
    model: 'lab-model',
    setup(home, serverUrl) {
      mkdirSync(join(home, STATE), { recursive: true });
      const config = {
        agents: { defaults: { model: { primary: 'lab/lab-model' } } },
        models: {
          mode: 'merge',
          providers: {
            lab: {
              baseUrl: `${serverUrl}/v1`,
              apiKey: 'lab-key',
              api: 'openai-completions',
              models: [
                {
                  id: 'lab-model',
                  name: 'Lab Model',
                  reasoning: false,
                  input: ['text'],
                  contextWindow: 128_000,
                },
              ],
            },
          },
        },
      };
      writeFileSync(join(home, STATE, 'openclaw.json'), `${JSON.stringify(config, null, 2)}\n`);
    },
    // Node 24 first on the PATH (`openclaw.mjs` runs on `env node`); its temporary files (state
    // locks) inside the run's home rather than /tmp.
    env: (home) => ({
      PATH: [nodeDir ?? '', '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      TMPDIR: join(home, '.tmp'),
    }),
    args: (p) =>
      p.resume
        ? ['agent', '--local', '--session-id', p.resume, '--json', '--timeout', '60', '-m', p.prompt]
        : [
            'agent',
            'exec',
            '--config',
            join(state, 'openclaw.json'),
            '--state-dir',
            state,
            '--json',
            '--timeout',
            '60',
            p.prompt,
          ],
    // `agent exec --json` ends with one envelope whose `sessionId` names the session.
    sessionId: (stdout) => idInOutput(stdout, 'sessionId'),
  };
}

/**
 * The store as a fixture keeps it: the one table cctop reads (`transcript_events`, its schema as
 * OpenClaw wrote it, every row) in a database of its own, out of the write-ahead log. The other
 * fifty tables (memory index, boards, full-text search) are empty or OpenClaw's own bookkeeping, and
 * three quarters of a megabyte per run.
 */
function trimStore(home: string): void {
  const path = join(home, STORE);
  const from = new Database(path, { readonly: true });
  const ddl = from
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'transcript_events'")
    .pluck()
    .get();
  const rows = from.prepare('SELECT * FROM transcript_events ORDER BY session_id, seq').all();
  from.close();
  const trimmed = `${path}.trimmed`;
  const to = new Database(trimmed);
  // The schema names `session_windows`, which is not kept.
  to.pragma('foreign_keys = OFF');
  to.exec(String(ddl));
  const insert = to.prepare(
    'INSERT INTO transcript_events VALUES (@session_id, @seq, @event_json, @created_at, @event_zstd, @event_utf8_bytes, @navigation_json)',
  );
  for (const r of rows) insert.run(r);
  to.close();
  for (const side of ['-wal', '-shm']) rmSync(`${path}${side}`, { force: true });
  renameSync(trimmed, path);
}

/** The long prompt: the `text` script past the 1 KiB from which OpenClaw stores an event compressed. */
const LONG_PROMPT = `${promptFor('text')} ${Array(24).fill('The long prompt repeats this sentence so it is stored compressed.').join(' ')}`;

conformance(
  { id: 'openclaw', inHome: openclawRecipe },
  {
    records: RECORDS,
    keep: [STORE],
    // A session is titled by its first prompt.
    titled: true,
    // `agent --local --session-id` adds the second prompt to the same session.
    resumes: true,
    // The prompt is a row of the store before the model is asked.
    whileHeld: 'working',
    settle: trimStore,
    slow: true,
    // Each run boots OpenClaw: only the `fail` case runs live, every case when recording.
    cases: RECORDING ? undefined : ['fail'],
    // What cctop adds from OpenClaw's own records: its thinking level, and no price for a model
    // OpenClaw priced at zero and the catalogue does not know.
    alsoReads: (s) =>
      expect([s.state, s.reasoningEffort, s.cost.usd, s.cost.unpriced]).toEqual([
        'idle',
        'off',
        null,
        ['lab-model'],
      ]),
    more: (lab) => {
      it.runIf(RECORDING)(
        `a prompt past 1 KiB is stored compressed, and kept as a fixture${unless(RECORDING, 'it only records a fixture; npm run lab:record')}`,
        { timeout: 2 * LAB_RUN_TIMEOUT_MS },
        async () => {
          const { home, ledger } = await lab.run('long', [LONG_PROMPT]);
          const db = new Database(join(home, STORE), { readonly: true });
          const compressed = db
            .prepare(
              'SELECT count(*) FROM transcript_events WHERE event_json IS NULL AND event_zstd IS NOT NULL',
            )
            .pluck()
            .get();
          db.close();
          expect(compressed).toBe(1);
          trimStore(home);
          // Not a replayed fixture (no meta.json): what it reads as depends on the Node reading it.
          const dir = join(FIXTURES, 'openclaw', 'long');
          rmSync(dir, { recursive: true, force: true });
          cpSync(join(home, STORE), join(dir, 'home', STORE));
          writeFileSync(join(dir, 'ledger.json'), `${JSON.stringify(ledger, null, 2)}\n`);
          writeFileSync(join(dir, 'prompts.json'), `${JSON.stringify([LONG_PROMPT], null, 2)}\n`);
        },
      );
    },
  },
);
