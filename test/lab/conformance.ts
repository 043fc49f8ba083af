/**
 * The conformance suite for one real agent CLI: it runs each lab script through the pinned CLI
 * against the stand-in model server, reads the home it wrote with `cctop --json`, and checks every
 * session against the server's ledger (see `src/test-support/lab/check.ts`). With
 * `CCTOP_LAB_RECORD=1` (`npm run lab:record`) each run is also kept as a fixture, which
 * `fixtures.test.ts` replays on a clone without the agents.
 *
 * An agent that is not installed skips with the command that installs it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionReport } from '../../src/report/types.js';
import {
  agentBin,
  LAB_RUN_TIMEOUT_MS,
  makeHome,
  PINS,
  type Recipe,
  type RunResult,
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
   * 15–45 s a run on a loaded machine.
   */
  slow?: boolean;
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

/** A scripted run: one prompt, or a prompt and a resumed second prompt in the same session. */
export interface LabCase {
  name: string;
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

export function conformance(recipe: Recipe, rules: AgentRules): void {
  const pin = PINS[recipe.id];
  const bin = agentBin(recipe.id);
  const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;
  if (!bin) console.warn(`lab: ${recipe.id} conformance skipped: ${why}`);
  // A slow agent's test allows every run its whole time, and one run's time more to read it back.
  const budget = (runs: number): { timeout?: number } =>
    rules.slow ? { timeout: (runs + 1) * LAB_RUN_TIMEOUT_MS } : {};

  describe.skipIf(!bin)(`${pin.package}@${pin.version} in the lab${bin ? '' : ` (skipped: ${why})`}`, () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), `cctop-lab-${recipe.id}-`));
    });
    afterAll(async () => {
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    for (const c of CASES) {
      if (c.scripts.length > 1 && !rules.resumes) continue;
      it(`a ${c.name} run reads back as the server said it`, budget(c.scripts.length), async () => {
        const where = makeHome(join(root, c.name));
        recipe.setup(where.home, server.url);
        const from = server.ledger.length;
        let session: string | null = null;
        const runs: RunResult[] = [];
        for (const script of c.scripts) {
          const r = await runAgent(recipe, where, server.url, {
            prompt: promptFor(script),
            resume: session,
            permission: 'allow',
          });
          runs.push(r);
          expect(r.code, `${recipe.id} exited ${r.code}: ${r.stderr.slice(-2000)}`).toBe(0);
          session ??= recipe.sessionId(r.stdout);
        }
        const ledger = server.ledger.slice(from);
        const doc = cctopJson(where.home);
        const mine = doc.sessions.filter((s) => s.provider === recipe.id);
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
        const prompts = c.scripts.map(promptFor);
        wrong.push(...chatMismatches(cctopRead<Conversation>(where.home, ['chat', mine[0]!.id]), x, prompts));
        wrong.push(...reportMismatches(cctopRead<SessionReport>(where.home, ['report', mine[0]!.id]), x));
        if (KEEP_HOMES !== null) {
          // The drift run reads what a newer agent wrote whether or not it conforms.
          rules.settle?.(where.home);
          keepHome(recipe.id, c.name, where.home, rules.keep);
        }
        expect(wrong.join('\n')).toBe('');
        if (RECORDING) {
          const meta: FixtureMeta = {
            agent: recipe.id,
            package: pin.package,
            version: pin.version,
            scripts: c.scripts,
            prompts: c.scripts.map(promptFor),
            recordedAt: new Date().toISOString(),
            expect: { model: x.model, title: x.title, failed: x.failed, records: x.records },
          };
          rules.settle?.(where.home);
          recordFixture(
            c.name,
            meta,
            where.home,
            rules.keep.filter((k) => existsSync(join(where.home, k))),
            ledger,
          );
        }
      });
    }

    const held = `reads as ${rules.whileHeld === 'working' ? 'working' : 'not yet written'} while the model holds its answer, and idle once the turn ends`;
    it(held, budget(1), async () => {
      const where = makeHome(join(root, 'hold'));
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
      if (hosts.length) console.info(`lab: ${recipe.id} was refused ${hosts.join(', ')}`);
    });
  });
}
