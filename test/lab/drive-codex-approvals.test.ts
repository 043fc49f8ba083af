/**
 * Codex approvals and mid-run input through `codex app-server`, with the real pinned codex-cli in the
 * lab against the stand-in model server: a command allowed through `respond()` runs, one denied does
 * not and the model is told why, an approval nobody answers holds the run until its timeout, a
 * message sent mid-turn reaches the model, a thread `codex exec` began is resumed with only this
 * run's calls counted, and a cancel interrupts the turn. Usage is checked against the server's ledger;
 * the requests Codex sent are read back from the server's dump to see what the model was told.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriveError, Event, Outcome, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { codexRecipe as recipe } from '../../src/test-support/lab/agents/codex.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.codex;
const bin = agentBin('codex');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
  argv: readonly string[];
  home: string;
  cwd: string;
}

const sum = (xs: LedgerEntry[], f: (e: LedgerEntry) => number | null) =>
  xs.reduce((a, e) => a + (f(e) ?? 0), 0);
const of = <K extends Event['kind']>(d: Driven, kind: K) =>
  d.events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind);

describe.skipIf(!bin)(
  `cctop/drive runs ${pin.package}@${pin.version} through codex app-server${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    let dumps: string;
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-drive-codex-app-server-'));
      dumps = join(root, 'requests');
      mkdirSync(dumps);
      server = await startLabServer({ dumpDir: dumps });
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    /** The user texts of the request the server answered as ledger entry `seq`. */
    const userTexts = (seq: number): string[] => {
      const body = JSON.parse(
        readFileSync(join(dumps, `${String(seq).padStart(3, '0')}-responses.json`), 'utf8'),
      );
      return (body.input as { role?: string; content?: { text?: string }[] }[])
        .filter((m) => m.role === 'user')
        .flatMap((m) => (m.content ?? []).map((c) => c.text ?? ''));
    };

    let n = 0;
    function start(script: string, more: Partial<Request> = {}, home?: string) {
      const where = home ? { home, cwd: join(home, '..', 'work') } : makeHome(join(root, `${n++}`));
      if (!home) recipe.setup(where.home, server.url);
      const from = server.ledger.length;
      const run = stream({
        agent: 'codex',
        prompt: promptFor(script),
        bin: bin!,
        cwd: where.cwd,
        model: recipe.model,
        permission: 'edit',
        approvals: true,
        env: 'minimal',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
        timeoutMs: 90_000,
        ...more,
      });
      return { run, from, ...where };
    }

    async function drain(
      s: ReturnType<typeof start>,
      answer?: (e: Extract<Event, { kind: 'approval_request' }>, r: Run) => void,
    ): Promise<Driven> {
      const events: Event[] = [];
      for await (const e of s.run) {
        events.push(e);
        if (e.kind === 'approval_request') answer?.(e, s.run);
      }
      const outcome = await s.run.outcome;
      return {
        events,
        outcome,
        ledger: server.ledger.slice(s.from),
        argv: s.run.argv,
        home: s.home,
        cwd: s.cwd,
      };
    }

    it('an approval allowed runs the command; usage is what the server counted', async () => {
      const d = await drain(start('approve'), (e, r) => r.respond(e.id, { behavior: 'allow' }));
      expect(d.argv.slice(1)).toEqual(['app-server']);
      const command = "/bin/bash -lc 'touch lab-approved.txt && echo lab-touched'";
      expect(of(d, 'approval_request').map((e) => [e.tool, e.input])).toEqual([
        ['exec_command', { command }],
      ]);
      expect(of(d, 'tool_result').map((e) => [e.ok, e.output])).toEqual([[true, 'lab-touched\n']]);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(true);
      const calls = entriesOf(d.ledger, ['approve']);
      expect(d.outcome).toMatchObject({
        stop: { kind: 'completed' },
        exitCode: 0,
        text: calls.at(-1)!.answer,
      });
      expect(d.outcome.session).toEqual(expect.any(String));
      expect(d.outcome.usage).toMatchObject({
        input: sum(calls, (e) => e.figures.input),
        cacheRead: sum(calls, (e) => e.figures.cacheRead),
        cacheWrite: null,
        output: sum(calls, (e) => e.figures.output),
        reasoning: sum(calls, (e) => e.figures.reasoning),
        contextTokens: calls.at(-1)!.prompt,
      });
      expect(d.outcome.threadUsage?.output).toBe(sum(calls, (e) => e.figures.output));
    });

    it('an approval denied does not run the command, and the model is told so, with the reason', async () => {
      const d = await drain(start('approve'), (e, r) =>
        r.respond(e.id, { behavior: 'deny', reason: 'the lab says no' }),
      );
      expect(of(d, 'approval_request')).toHaveLength(1);
      expect(of(d, 'tool_result').map((e) => e.ok)).toEqual([false]);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(false);
      const after = entriesOf(d.ledger, ['approve']).at(-1)!;
      expect(after.results.join('\n')).toContain('rejected by user');
      expect(userTexts(after.seq).join('\n')).toContain('the lab says no');
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('an approval nobody answers holds the run until its timeout, and the command never runs', async () => {
      const s = start('approve', { timeoutMs: 15_000 });
      const error = (await drain(s).catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('timeout');
      expect(existsSync(join(s.cwd, 'lab-approved.txt'))).toBe(false);
      await s.run.closed;
    });

    it('a message sent mid-turn reaches the model; only the call Codex finished is counted', async () => {
      server.hold();
      const s = start('hold', { approvals: false, interactive: true });
      const sent = server.whenHeld().then(() => {
        s.run.send('Also: the lab sends a second message.');
        // Codex abandons the held call for one that carries the message; let the held one go too.
        setTimeout(() => server.release(), 500);
      });
      const d = await drain(s);
      await sent;
      server.hold();
      const calls = entriesOf(d.ledger, ['hold']);
      expect(userTexts(calls.at(-1)!.seq)).toContain('Also: the lab sends a second message.');
      expect(d.outcome.text).toBe(calls.at(-1)!.answer);
      expect(calls).toHaveLength(2);
      expect(d.outcome.usage.output).toBe(calls.at(-1)!.figures.output);
      expect(d.outcome.usage.input).toBe(calls.at(-1)!.figures.input);
    });

    it("resuming a thread codex exec began counts this run's calls only, the thread's apart", async () => {
      const first = await drain(start('call', { approvals: false, permission: 'bypass' }));
      expect(first.argv).toContain('exec');
      const again = await drain(
        start('resume', { approvals: false, interactive: true, resume: first.outcome.session! }, first.home),
      );
      expect(again.outcome.session).toBe(first.outcome.session);
      const mine = entriesOf(again.ledger, ['resume']);
      expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
      expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
      const all = [...entriesOf(first.ledger, ['call']), ...mine];
      expect(again.outcome.threadUsage?.output).toBe(sum(all, (e) => e.figures.output));
    });

    it('cancel interrupts the turn and reaps the server', async () => {
      server.hold();
      const s = start('hold', { approvals: false, interactive: true });
      await server.whenHeld();
      s.run.cancel();
      const error = (await s.run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('cancelled');
      await s.run.closed;
      server.release();
      server.hold();
    });
  },
);
