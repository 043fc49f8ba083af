/**
 * The conformance suite for one real agent CLI: it runs each lab script through the pinned CLI
 * against the stand-in model server, reads the home it wrote with `cctop --json`, and checks every
 * session against the server's ledger (see `src/test-support/lab/check.ts`). With
 * `CCTOP_LAB_RECORD=1` (`npm run lab:record`) each run is also kept as a fixture, which
 * `fixtures.test.ts` replays on a clone without the agents.
 *
 * Each agent runs every case in `CASES` unless its rules name the ones it runs (`cases`), and may add
 * checks of its own to each case (`alsoReads`) and tests of its own beside them (`more`), so that a
 * case is written once for every agent. An agent that is not installed skips with the command that
 * installs it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionDocument } from '../../src/model/document.js';
import type { SessionReport } from '../../src/report/types.js';
import {
  agentBin,
  LAB_RUN_TIMEOUT_MS,
  type LabCliId,
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
  type FixtureMeta,
  KEEP_HOMES,
  keepHome,
  mismatches,
  RECORDING,
  recordFixture,
  reportMismatches,
} from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { unless, WHY } from '../../src/test-support/skips.js';

export interface AgentRules {
  /** Which token fields the harness writes down. */
  records: Expect['records'];
  /** Folders under the agent's home that hold its sessions (kept in fixtures). */
  keep: string[];
  /** Whether the harness keeps the first prompt as the title. */
  titled: boolean;
  /** Whether a resumed run continues the same session (same id, same file or files). */
  resumes: boolean;
  /**
   * What cctop can tell while the model's response is held open: `working` when the harness writes
   * the prompt down before the response comes, `absent` when it writes the session only at the end.
   */
  whileHeld: 'working' | 'absent';
  /**
   * Put what the agent left into the form a fixture keeps, once cctop has read it as it was left
   * (OpenCode: its database checkpointed out of the write-ahead log that holds every row).
   */
  settle?: (home: string) => void;
  /**
   * Whether each run may take as long as the runner allows it (`LAB_RUN_TIMEOUT_MS`) rather than fit,
   * with its reads, in the suite's default per test: OpenCode boots a server inside itself and takes
   * 15–45 s a run on a loaded machine, OpenClaw 8–20 s of CPU to boot.
   */
  slow?: boolean;
  /**
   * The cases this agent runs, by name; every one of `CASES` when not given. A name that is no case
   * fails the file before any agent runs (`casesNamed`), so a typo cannot quietly run nothing.
   */
  cases?: readonly CaseName[];
  /**
   * Checks of the agent's own on the session each case leaves, beyond what the server's ledger says
   * (OpenClaw: its thinking level, and no price for the model it priced at zero).
   */
  alsoReads?: (session: LabSession) => void;
  /** Tests of the agent's own, registered inside its suite, running the agent as its cases do (`Lab`). */
  more?: (lab: Lab) => void;
}

/** A session as `cctop --json` lists it. */
export type LabSession = SessionDocument['sessions'][number];

/** What a suite offers the tests an agent adds (`AgentRules.more`), once its `beforeAll` has run. */
export interface Lab {
  /**
   * Run `prompts` in a fresh home named `name` under the suite's folder, each after the first
   * resuming the session the first began; every run must exit 0. The home, and the server's entries
   * made meanwhile.
   */
  run(name: string, prompts: string[]): Promise<{ home: string; ledger: LabServer['ledger'] }>;
}

/**
 * A recipe whose command line names files in the run's home (OpenClaw's config and state folder),
 * made anew for each home.
 */
export interface HomeRecipe {
  id: LabCliId;
  inHome(home: string): Recipe;
}

/**
 * How long a harness may take, once the model holds its request, to write the session down. The
 * request reaching the server does not mean the prompt is on disk: Copilot CLI 1.0.102 creates its
 * `events.jsonl` after it sent the request, and a cctop that started and read within those
 * milliseconds found no session (about one run in two once one-shots got faster). The response is
 * held for as long as the test waits, so the session cannot have moved on from working meanwhile.
 */
const HELD_WRITTEN_MS = 10_000;

/** The harness's sessions as `cctop --json` reads them, once there is one (or as they are at the budget). */
async function untilWritten(home: string, provider: string) {
  const until = Date.now() + HELD_WRITTEN_MS;
  for (;;) {
    const seen = cctopJson(home).sessions.filter((s) => s.provider === provider);
    if (seen.length > 0 || Date.now() > until) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The cases every agent can run, by name. */
export type CaseName = 'text' | 'call' | 'fail' | 'parallel' | 'resume';

/** A scripted run: one prompt, or a prompt and a resumed second prompt in the same session. */
export interface LabCase {
  name: CaseName;
  scripts: string[];
  failed: number;
}

export const CASES: LabCase[] = [
  { name: 'text', scripts: ['text'], failed: 0 },
  { name: 'call', scripts: ['call'], failed: 0 },
  { name: 'fail', scripts: ['fail'], failed: 1 },
  { name: 'parallel', scripts: ['parallel'], failed: 0 },
  { name: 'resume', scripts: ['call', 'resume'], failed: 0 },
];

export const promptFor = (script: string): string => `[lab:${script}] Follow the lab script ${script}.`;

/** The cases `names` names, in `CASES`' order; throws for a name that is no case. */
export function casesNamed(names: readonly string[] | undefined): LabCase[] {
  if (names === undefined) return CASES;
  const unknown = names.filter((n) => !CASES.some((c) => c.name === n));
  if (unknown.length > 0)
    throw new Error(
      `no lab case is named ${unknown.join(', ')}; the cases are ${CASES.map((c) => c.name).join(', ')}`,
    );
  return CASES.filter((c) => names.includes(c.name));
}

/**
 * Register the suite for one agent: its cases (all, or those its rules name), the held answer, and
 * the tests its rules add. Throws, so the file fails, for a case name that is no case.
 */
export function conformance(agent: Recipe | HomeRecipe, rules: AgentRules): void {
  const cases = casesNamed(rules.cases);
  const recipeIn = (home: string): Recipe => ('inHome' in agent ? agent.inHome(home) : agent);
  const pin = PINS[agent.id];
  const bin = agentBin(agent.id);
  const what = `${pin.package}@${pin.version}${pin.node === undefined ? '' : ` with Node ${pin.node}`}`;
  if (!bin) console.warn(`lab: ${agent.id} conformance skipped: ${WHY.agent(what)}`);
  // A slow agent's test allows every run its whole time, and one run's time more to read it back.
  const budget = (runs: number): { timeout?: number } =>
    rules.slow ? { timeout: (runs + 1) * LAB_RUN_TIMEOUT_MS } : {};
  const on = pin.node === undefined ? '' : ` on Node ${pin.node}`;

  describe.skipIf(!bin)(
    `${pin.package}@${pin.version}${on} in the lab${unless(bin !== null, WHY.agent(what))}`,
    () => {
      let server: LabServer;
      let root: string;
      beforeAll(async () => {
        server = await startLabServer();
        root = mkdtempSync(join(tmpdir(), `cctop-lab-${agent.id}-`));
      });
      afterAll(async () => {
        await server?.close();
        if (root) removeLabTree(root);
      });

      const lab: Lab = {
        async run(name, prompts) {
          const where = makeHome(join(root, name));
          const recipe = recipeIn(where.home);
          recipe.setup(where.home, server.url);
          const from = server.ledger.length;
          let session: string | null = null;
          for (const prompt of prompts) {
            const r = await runAgent(recipe, where, server.url, {
              prompt,
              resume: session,
              permission: 'allow',
            });
            expect(r.code, `${agent.id} exited ${r.code}: ${r.stderr.slice(-2000)}`).toBe(0);
            session ??= recipe.sessionId(r.stdout);
          }
          return { home: where.home, ledger: server.ledger.slice(from) };
        },
      };

      for (const c of cases) {
        if (c.scripts.length > 1 && !rules.resumes) continue;
        it(`a ${c.name} run reads back as the server said it`, budget(c.scripts.length), async () => {
          const prompts = c.scripts.map(promptFor);
          const { home, ledger } = await lab.run(c.name, prompts);
          const recipe = recipeIn(home);
          const doc = cctopJson(home);
          const mine = doc.sessions.filter((s) => s.provider === agent.id);
          expect(mine.map((s) => s.id)).toHaveLength(1);
          const x: Expect = {
            entries: entriesOf(ledger, c.scripts),
            model: recipe.model,
            title: rules.titled ? `Follow the lab script ${c.scripts[0]}` : null,
            failed: c.failed,
            records: rules.records,
          };
          expect(x.entries.length, 'the agent made no scripted request').toBeGreaterThan(0);
          const wrong = mismatches(mine[0]!, x);
          wrong.push(...chatMismatches(cctopRead<Conversation>(home, ['chat', mine[0]!.id]), x, prompts));
          wrong.push(...reportMismatches(cctopRead<SessionReport>(home, ['report', mine[0]!.id]), x));
          if (KEEP_HOMES !== null) {
            // The drift run reads what a newer agent wrote whether or not it conforms.
            rules.settle?.(home);
            keepHome(agent.id, c.name, home, rules.keep);
          }
          expect(wrong.join('\n')).toBe('');
          rules.alsoReads?.(mine[0]!);
          if (RECORDING) {
            const meta: FixtureMeta = {
              agent: agent.id,
              package: pin.package,
              version: pin.version,
              scripts: c.scripts,
              prompts,
              recordedAt: new Date().toISOString(),
              expect: { model: x.model, title: x.title, failed: x.failed, records: x.records },
            };
            rules.settle?.(home);
            recordFixture(
              c.name,
              meta,
              home,
              rules.keep.filter((k) => existsSync(join(home, k))),
              ledger,
            );
          }
        });
      }

      const held = `reads as ${rules.whileHeld === 'working' ? 'working' : 'not yet written'} while the model holds its answer, and idle once the turn ends`;
      it(held, budget(1), async () => {
        const where = makeHome(join(root, 'hold'));
        const recipe = recipeIn(where.home);
        recipe.setup(where.home, server.url);
        server.hold();
        const running = runAgent(recipe, where, server.url, {
          prompt: promptFor('hold'),
          resume: null,
          permission: 'allow',
        });
        try {
          await server.whenHeld();
          const during =
            rules.whileHeld === 'working'
              ? await untilWritten(where.home, recipe.id)
              : cctopJson(where.home).sessions.filter((s) => s.provider === recipe.id);
          if (rules.whileHeld === 'working') expect(during.map((s) => s.state)).toEqual(['working']);
          else expect(during).toEqual([]);
        } finally {
          server.release();
        }
        const r = await running;
        expect(r.code, r.stderr.slice(-2000)).toBe(0);
        const after = cctopJson(where.home).sessions.filter((s) => s.provider === recipe.id);
        expect(after.map((s) => s.state)).toEqual(['idle']);
      });

      afterAll(() => {
        // The hosts each CLI tried on its own, all refused at the proxy (the README lists them).
        const hosts = [...new Set(server?.refused.map((r) => `${r.method} ${r.target}`) ?? [])];
        if (hosts.length) console.info(`lab: ${agent.id} was refused ${hosts.join(', ')}`);
      });

      rules.more?.(lab);
    },
  );
}
