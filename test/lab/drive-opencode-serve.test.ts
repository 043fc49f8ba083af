/**
 * `cctop/drive` with approvals against the real OpenCode in the lab (opencode-ai, pinned in
 * lab/agents.json): such a run goes through `opencode serve` (HTTP and its `/event` stream) instead of
 * `opencode run`, and OpenCode's questions reach the caller as `approval_request` events. Checked
 * against the stand-in model server's ledger: an allowed command runs, a denied one does not and the
 * model is told why, the events are those `opencode run` gives for the same script, and the server
 * the run started is gone however the run ends (settled, cancelled, timed out, killed mid-turn).
 *
 * Apart from drive-opencode.test.ts because every run here starts a server and asks.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriveError, Event, Outcome, Permission, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { opencodeRecipe as recipe } from '../../src/test-support/lab/agents/opencode.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.opencode;
const bin = agentBin('opencode');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;
const MODEL = `lab/${recipe.model}`;
/**
 * A server takes 4 to 19 seconds to listen on a busy lab machine, and its turn a few more: every test
 * gets this long.
 */
const SLOW = 180_000;

/** Whether a process is still there (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: no such process, which is what a reaped server leaves.
    return false;
  }
}

interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
  cwd: string;
  pid: number | null;
}

describe.skipIf(!bin)(
  `cctop/drive with approvals through opencode serve, ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  { timeout: SLOW },
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-drive-opencode-serve-'));
      mkdirSync(root, { recursive: true });
      server = await startLabServer();
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    let n = 0;
    function start(
      script: string,
      o: { permission?: Permission; more?: Partial<Request> } = {},
    ): { run: Run; cwd: string; from: number } {
      const where = makeHome(join(root, `${n++}`));
      recipe.setup(where.home, server.url);
      const from = server.ledger.length;
      const run = stream({
        agent: 'opencode',
        prompt: promptFor(script),
        bin: bin!,
        cwd: where.cwd,
        model: MODEL,
        permission: o.permission ?? 'edit',
        approvals: true,
        env: 'minimal',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
        timeoutMs: 120_000,
        ...o.more,
      });
      return { run, cwd: where.cwd, from };
    }

    /** Run `script`, answering every question with `answer`, to its end. */
    async function drive(
      script: string,
      answer: (e: Extract<Event, { kind: 'approval_request' }>, run: Run) => void,
      o: { permission?: Permission } = {},
    ): Promise<Driven> {
      const { run, cwd, from } = start(script, o);
      const events: Event[] = [];
      let pid: number | null = null;
      for await (const e of run) {
        pid ??= run.stats().pid;
        events.push(e);
        if (e.kind === 'approval_request') answer(e, run);
      }
      const outcome = await run.outcome;
      await run.closed;
      return { events, outcome, ledger: server.ledger.slice(from), cwd, pid };
    }

    const asked = (d: Driven) => d.events.flatMap((e) => (e.kind === 'approval_request' ? [e] : []));
    const results = (d: Driven) => d.events.flatMap((e) => (e.kind === 'tool_result' ? [e] : []));

    it('an allowed command is asked about first, then runs, and the turn settles with its answer', async () => {
      const d = await drive('approve', (e, run) => run.respond(e.id, { behavior: 'allow' }));
      const entries = entriesOf(d.ledger, ['approve']);
      const command = 'touch lab-approved.txt && echo lab-touched';
      expect(asked(d).map((e) => [e.tool, e.input])).toEqual([['bash', { command }]]);
      expect(d.events[0]).toEqual({ kind: 'started', session: d.outcome.session, model: null });
      expect(
        d.events.filter((e) => e.kind === 'tool_call').map((e) => e.kind === 'tool_call' && e.input),
      ).toEqual([{ command }]);
      expect(results(d).map((e) => [e.ok, e.output])).toEqual([[true, 'lab-touched\n']]);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(true);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      expect(d.outcome.model).toBe(MODEL);
      expect(d.outcome.usage.input).toBe(entries.reduce((a, e) => a + e.figures.input, 0));
      // The session the server wrote was read after the run, and it says what the stream said.
      expect(d.outcome.truth.file).not.toBeNull();
      expect(d.outcome.truth.problems).toEqual([]);
      // The server is stopped once the turn settled, and nothing of it is left.
      expect(d.pid).not.toBeNull();
      expect(alive(d.pid!)).toBe(false);
    });

    it('a denied command does not run, and its reason reaches the model in the next request', async () => {
      const reason = 'Not in this lab, thank you.';
      const d = await drive('approve', (e, run) => run.respond(e.id, { behavior: 'deny', reason }));
      const entries = entriesOf(d.ledger, ['approve']);
      expect(asked(d)).toHaveLength(1);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(false);
      expect(results(d).map((e) => e.ok)).toEqual([false]);
      expect(results(d)[0]!.output).toContain(reason);
      // The request after the refused call carries the refusal, reason and all, as the call's result.
      expect(entries.at(-1)!.results.some((r) => r.includes(reason))).toBe(true);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      expect(alive(d.pid!)).toBe(false);
    });

    it('a deny without a reason still tells the model, and the turn goes on to its answer', async () => {
      const d = await drive('approve', (e, run) => run.respond(e.id, { behavior: 'deny' }));
      const entries = entriesOf(d.ledger, ['approve']);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(false);
      expect(entries.at(-1)!.results.some((r) => r.includes('denied this call'))).toBe(true);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('changing a tool input on an allow is refused, naming OpenCode', async () => {
      const { run } = start('approve');
      let refused: unknown = null;
      for await (const e of run) {
        if (e.kind !== 'approval_request') continue;
        try {
          run.respond(e.id, { behavior: 'allow', updatedInput: { command: 'echo other' } });
        } catch (err) {
          refused = err;
        }
        run.respond(e.id, { behavior: 'deny', reason: 'refused input change' });
      }
      await run.outcome;
      expect((refused as DriveError).failure).toMatchObject({ kind: 'unsupported', agent: 'opencode' });
    });

    it('cancel stops a run mid-turn and its server is reaped', async () => {
      server.hold();
      const { run } = start('hold');
      await server.whenHeld();
      const pid = run.stats().pid!;
      run.cancel();
      const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('cancelled');
      await run.closed;
      expect(alive(pid)).toBe(false);
      server.release();
    });

    it('a run past its timeout is stopped with what it had so far, and its server is reaped', async () => {
      server.hold();
      // Whether it ends before or after the server listens, the run is stopped and the server goes.
      const { run } = start('hold', { more: { timeoutMs: 1500 } });
      const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('timeout');
      if (error.failure.kind === 'timeout')
        expect(error.failure.partial.stop).toEqual({ kind: 'unfinished' });
      await run.closed;
      const pid = run.stats().pid!;
      expect(alive(pid)).toBe(false);
      server.release();
    });

    it('the server dying mid-turn is a failure, not an answer', async () => {
      server.hold();
      const { run } = start('hold');
      await server.whenHeld();
      const pid = run.stats().pid!;
      process.kill(pid, 'SIGKILL');
      const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(['failed', 'protocol']).toContain(error.failure.kind);
      await run.closed;
      expect(alive(pid)).toBe(false);
      server.release();
    });
  },
);
