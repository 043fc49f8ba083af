/**
 * OpenClaw, the real CLI (pinned in lab/agents.json, on the Node 24 it needs, which `npm run agents`
 * installs beside it), run one-shot and headless against the stand-in model server: `openclaw agent
 * exec` with a config of its own pointing a provider `lab` at the server over Chat Completions, and
 * its state in the run's home. What it wrote (its per-agent SQLite store) is read back with cctop and
 * checked against the server's ledger, as `conformance.ts` checks the others.
 *
 * Only the `fail` script runs here (a call, its non-zero exit, the answer after it), and one held
 * answer (about ten seconds of OpenClaw booting each); `npm run lab:record` runs every script, a resumed session and one long prompt,
 * and keeps each run in `lab/fixtures/openclaw/` (see its README), which `openclaw-fixtures.test.ts`
 * and `fixtures.test.ts` replay on a clone without OpenClaw.
 */
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionReport } from '../../src/report/types.js';
import {
  agentBin,
  agentNodeDir,
  idInOutput,
  LAB_RUN_TIMEOUT_MS,
  makeHome,
  PINS,
  type Recipe,
  removeLabTree,
  runAgent,
} from '../../src/test-support/lab/agents.js';
import {
  cctopJson,
  cctopRead,
  chatMismatches,
  type Expect,
  entriesOf,
  FIXTURES,
  type FixtureMeta,
  mismatches,
  RECORDING,
  recordFixture,
  reportMismatches,
} from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { CASES, type LabCase, promptFor } from './conformance.js';

const pin = PINS.openclaw;
const bin = agentBin('openclaw');
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

/** How long the held test waits for the prompt's row to be read, once the model holds the answer. */
const HELD_WRITTEN_MS = 10_000;

/** The long prompt: the `text` script past the 1 KiB from which OpenClaw stores an event compressed. */
const LONG_PROMPT = `${promptFor('text')} ${Array(24).fill('The long prompt repeats this sentence so it is stored compressed.').join(' ')}`;

describe.skipIf(!bin)(
  `${pin.package}@${pin.version} on Node ${pin.node} in the lab${unless(bin !== null, WHY.agent(`${pin.package}@${pin.version} with Node ${pin.node}`))}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-openclaw-'));
    });
    afterAll(async () => {
      await server?.close();
      if (root) removeLabTree(root);
      const hosts = [...new Set(server?.refused.map((r) => `${r.method} ${r.target}`) ?? [])];
      if (hosts.length) console.info(`lab: openclaw was refused ${hosts.join(', ')}`);
    });

    /** Run a case's scripts in a fresh home: the home and the server's entries for it. */
    async function run(name: string, prompts: string[]) {
      const where = makeHome(join(root, name));
      const recipe = openclawRecipe(where.home);
      recipe.setup(where.home, server.url);
      const from = server.ledger.length;
      let session: string | null = null;
      for (const prompt of prompts) {
        const r = await runAgent(recipe, where, server.url, { prompt, resume: session, permission: 'allow' });
        expect(r.code, `openclaw exited ${r.code}: ${r.stderr.slice(-2000)}`).toBe(0);
        session ??= recipe.sessionId(r.stdout);
      }
      return { home: where.home, ledger: server.ledger.slice(from) };
    }

    const cases: LabCase[] = RECORDING ? CASES : CASES.filter((c) => c.name === 'fail');
    for (const c of cases) {
      // Each run boots OpenClaw (8–20 s of CPU on a loaded machine); a resumed one twice.
      it(`a ${c.name} run reads back as the server said it`, {
        timeout: (c.scripts.length + 1) * LAB_RUN_TIMEOUT_MS,
      }, async () => {
        const prompts = c.scripts.map(promptFor);
        const { home, ledger } = await run(c.name, prompts);
        const mine = cctopJson(home).sessions.filter((s) => s.provider === 'openclaw');
        expect(mine).toHaveLength(1);
        const s = mine[0]!;
        const x: Expect = {
          entries: entriesOf(ledger, c.scripts),
          model: 'lab-model',
          title: `Follow the lab script ${c.scripts[0]}`,
          failed: c.failed,
          records: RECORDS,
        };
        expect(x.entries.length, 'OpenClaw made no scripted request').toBeGreaterThan(0);
        const wrong = mismatches(s, x);
        wrong.push(...chatMismatches(cctopRead<Conversation>(home, ['chat', s.id]), x, prompts));
        wrong.push(...reportMismatches(cctopRead<SessionReport>(home, ['report', s.id]), x));
        expect(wrong.join('\n')).toBe('');
        // What cctop adds from OpenClaw's own records: its thinking level, and no price for a model
        // OpenClaw priced at zero and the catalogue does not know.
        expect([s.state, s.reasoningEffort, s.cost.usd, s.cost.unpriced]).toEqual([
          'idle',
          'off',
          null,
          ['lab-model'],
        ]);
        if (RECORDING) {
          const meta: FixtureMeta = {
            agent: 'openclaw',
            package: pin.package,
            version: pin.version,
            scripts: c.scripts,
            prompts,
            recordedAt: new Date().toISOString(),
            expect: { model: x.model, title: x.title, failed: x.failed, records: x.records },
          };
          trimStore(home);
          recordFixture(c.name, meta, home, [STORE], ledger);
        }
      });
    }

    it('reads as working while the model holds its answer (the prompt is a row already), and idle once the turn ends', {
      timeout: 2 * LAB_RUN_TIMEOUT_MS,
    }, async () => {
      const where = makeHome(join(root, 'hold'));
      const recipe = openclawRecipe(where.home);
      recipe.setup(where.home, server.url);
      server.hold();
      const running = runAgent(recipe, where, server.url, {
        prompt: promptFor('hold'),
        resume: null,
        permission: 'allow',
      });
      try {
        await server.whenHeld();
        // The request reaching the server does not prove the prompt's row committed; the answer is
        // held for as long as this waits, so the session cannot have moved on meanwhile.
        const until = Date.now() + HELD_WRITTEN_MS;
        let during = cctopJson(where.home).sessions.filter((s) => s.provider === 'openclaw');
        while (during.length === 0 && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 100));
          during = cctopJson(where.home).sessions.filter((s) => s.provider === 'openclaw');
        }
        expect(during.map((s) => s.state)).toEqual(['working']);
      } finally {
        server.release();
      }
      const r = await running;
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const after = cctopJson(where.home).sessions.filter((s) => s.provider === 'openclaw');
      expect(after.map((s) => s.state)).toEqual(['idle']);
    });

    it.runIf(RECORDING)(
      `a prompt past 1 KiB is stored compressed, and kept as a fixture${unless(RECORDING, 'it only records a fixture; npm run lab:record')}`,
      { timeout: 2 * LAB_RUN_TIMEOUT_MS },
      async () => {
        const { home, ledger } = await run('long', [LONG_PROMPT]);
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
);
