/**
 * `cctop/drive` against the real agent CLIs in the lab (Claude Code, Codex, Copilot CLI): each script
 * through `stream()`, checked against the server's ledger: the events a consumer sees (a call, its
 * result and whether it failed, the answer), the outcome's usage, and for Claude, approvals allowed
 * and denied (the model is told of the denial). A resumed run's usage is its own, with the thread's
 * running total apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentId, Event, Outcome, Permission } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import { agentBin, labEnv, makeHome, PINS, type Recipe } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
}

const sum = (xs: LedgerEntry[], f: (e: LedgerEntry) => number | null) =>
  xs.reduce((a, e) => a + (f(e) ?? 0), 0);

/** What drive must report for each agent it runs in the lab. */
interface DriveRules {
  recipe: Recipe;
  /** The shell tool, as drive and the session document both name it. */
  shell: string;
  /**
   * Where the outcome's token counts come from: the agent's stream, or its session file. Copilot
   * 1.0.102's `--output-format json` carries none (its usage records go only to its session file),
   * so drive settles them from that file once the run ends, as `cctop --json` reads it.
   */
  tokens: 'stream' | 'file';
  /** The reasoning figure: Codex reports the server's; Claude counts its own (0: the lab never thinks). */
  reasoning: 'server' | 'own' | 'none';
  cacheWrite: boolean;
  /** Whether resuming continues the same session, with a thread total apart. */
  thread: boolean;
  /**
   * Whether this file checks its approvals: Claude's. Codex's go through `codex app-server` and ask
   * under other permissions (`drive-codex-approvals.test.ts`).
   */
  approvals: boolean;
}

const AGENTS: DriveRules[] = [
  {
    recipe: claudeRecipe,
    shell: 'Bash',
    tokens: 'stream',
    reasoning: 'own',
    cacheWrite: true,
    thread: true,
    approvals: true,
  },
  {
    recipe: codexRecipe,
    shell: 'exec_command',
    tokens: 'stream',
    reasoning: 'server',
    cacheWrite: false,
    thread: true,
    approvals: false,
  },
  {
    recipe: copilotRecipe,
    shell: 'bash',
    tokens: 'file',
    // Its session file records cache writes and reasoning for every request (0 over Chat Completions).
    reasoning: 'server',
    cacheWrite: true,
    thread: false,
    approvals: false,
  },
];

for (const rules of AGENTS) {
  const recipe = rules.recipe;
  const pin = PINS[recipe.id];
  const bin = agentBin(recipe.id);
  const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

  describe.skipIf(!bin)(
    `cctop/drive with ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
    () => {
      let server: LabServer;
      let root: string;
      beforeAll(async () => {
        server = await startLabServer();
        root = mkdtempSync(join(tmpdir(), `cctop-lab-drive-${recipe.id}-`));
      });
      afterAll(async () => {
        await server?.close();
        if (root) rmSync(root, { recursive: true, force: true });
      });

      let n = 0;
      async function drive(
        script: string,
        o: { permission?: Permission; resume?: string; approve?: 'allow' | 'deny'; home?: string } = {},
      ): Promise<Driven & { home: string }> {
        const where = o.home
          ? { home: o.home, cwd: join(o.home, '..', 'work') }
          : makeHome(join(root, `${n++}`));
        if (!o.home) recipe.setup(where.home, server.url);
        const from = server.ledger.length;
        const r = stream({
          agent: recipe.id as AgentId,
          prompt: promptFor(script),
          bin: bin!,
          cwd: where.cwd,
          model: recipe.model,
          permission: o.permission ?? 'bypass',
          ...(o.resume ? { resume: o.resume } : {}),
          ...(o.approve ? { approvals: true } : {}),
          env: 'minimal',
          setEnv: {
            ...labEnv(where.home, server.url),
            ...recipe.env(where.home, server.url),
            IS_SANDBOX: '1',
          },
          timeoutMs: 90_000,
        });
        const events: Event[] = [];
        for await (const e of r) {
          events.push(e);
          if (e.kind === 'approval_request')
            r.respond(
              e.id,
              o.approve === 'deny' ? { behavior: 'deny', reason: 'the lab says no' } : { behavior: 'allow' },
            );
        }
        const outcome = await r.outcome;
        return { events, outcome, ledger: server.ledger.slice(from), home: where.home };
      }

      it('a call and its answer arrive as events, and the outcome counts what the server said', async () => {
        const d = await drive('call');
        const entries = entriesOf(d.ledger, ['call']);
        const calls = d.events.filter((e) => e.kind === 'tool_call');
        expect(calls.map((e) => e.kind === 'tool_call' && e.name)).toEqual([rules.shell]);
        const results = d.events.filter((e) => e.kind === 'tool_result');
        expect(results.map((e) => e.kind === 'tool_result' && e.ok)).toEqual([true]);
        expect(d.outcome.text).toContain(entries.at(-1)!.answer!);
        expect(d.outcome.stop.kind).toBe('completed');
        const u = d.outcome.usage;
        const want = (f: (e: LedgerEntry) => number | null) => sum(entries, f);
        expect(u.input).toBe(want((e) => e.figures.input));
        expect(u.cacheRead).toBe(want((e) => e.figures.cacheRead));
        expect(u.output).toBe(want((e) => e.figures.output));
        expect(u.cacheWrite).toBe(rules.cacheWrite ? want((e) => e.figures.cacheWrite) : null);
        const reasoning = { server: want((e) => e.figures.reasoning), own: 0, none: null }[rules.reasoning];
        expect(u.reasoning).toBe(reasoning);
        expect(d.outcome.truth.usageFromFile.length > 0).toBe(rules.tokens === 'file');
        expect(d.outcome.truth.file).not.toBeNull();
        expect(d.outcome.truth.problems).toEqual([]);
      });

      it('a command that exits 3 is a failed result', async () => {
        const d = await drive('fail');
        expect(
          d.events.filter((e) => e.kind === 'tool_result').map((e) => e.kind === 'tool_result' && e.ok),
        ).toEqual([false]);
      });

      // Copilot's stream carries no usage, so a resumed run has no share to tell apart.
      if (rules.thread)
        it("a resumed run's usage is its own, with the thread's running total apart", async () => {
          const first = await drive('call');
          const again = await drive('resume', { resume: first.outcome.session!, home: first.home });
          const mine = entriesOf(again.ledger, ['resume']);
          expect(again.outcome.session).toBe(first.outcome.session);
          expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
          expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
          const all = [...entriesOf(first.ledger, ['call']), ...mine];
          expect(again.outcome.threadUsage?.output).toBe(sum(all, (e) => e.figures.output));
        });

      if (rules.approvals) {
        it('an approval allowed runs the tool; one denied is refused and the model is told', async () => {
          const allowed = await drive('approve', { permission: 'default', approve: 'allow' });
          expect(allowed.events.some((e) => e.kind === 'approval_request')).toBe(true);
          expect(
            allowed.events
              .filter((e) => e.kind === 'tool_result')
              .map((e) => e.kind === 'tool_result' && e.ok),
          ).toEqual([true]);
          const denied = await drive('approve', { permission: 'default', approve: 'deny' });
          expect(denied.events.some((e) => e.kind === 'approval_request')).toBe(true);
          expect(
            denied.events
              .filter((e) => e.kind === 'tool_result')
              .map((e) => e.kind === 'tool_result' && e.ok),
          ).toEqual([false]);
          const told = entriesOf(denied.ledger, ['approve']).flatMap((e) => e.results);
          expect(told.join('\n')).toContain('the lab says no');
        });
      }
    },
  );
}
