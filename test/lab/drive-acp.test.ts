/**
 * The ACP client against a real ACP agent: Gemini CLI (pinned in lab/agents.json) started in its
 * ACP mode, `gemini --acp`, in the lab against the stand-in model server. Every run goes through
 * `stream({ agent: 'acp', acp: { name, command } })`, as a caller naming any ACP agent would, and is
 * checked against the server's ledger: text, a call, parallel calls, a permission allowed and one
 * denied through `respond()`, one nobody asked to answer, read-only, a resumed session and one
 * Gemini cannot load, cancel, and a command that is not in its ACP mode at all.
 *
 * Gemini 0.61.0 reports no usage over ACP in the protocol's own field (only in `_meta.quota`, whose
 * counts fold the cache into input and leave thoughts out), so the outcome's usage stays unknown.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriveError, Event, Outcome, Permission, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { geminiRecipe as recipe } from '../../src/test-support/lab/agents/gemini.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.gemini;
const bin = agentBin('gemini');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
  home: string;
  cwd: string;
}

interface Options {
  permission?: Permission;
  home?: string;
  /** Answer each approval request so. */
  answer?: 'allow' | 'deny';
  more?: Partial<Request>;
  /** The command after the executable (default: its ACP mode, trusting the folder, the lab's model). */
  args?: string[];
}

describe.skipIf(!bin)(
  `cctop/drive's ACP client with ${pin.package}@${pin.version} --acp${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-drive-acp-'));
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    let n = 0;
    function start(script: string, o: Options = {}): { run: Run; home: string; cwd: string; from: number } {
      const where = o.home
        ? { home: o.home, cwd: join(o.home, '..', 'work') }
        : makeHome(join(root, `${n++}`));
      if (!o.home) recipe.setup(where.home, server.url);
      const from = server.ledger.length;
      const args = o.args ?? ['--acp', '--skip-trust', '--model', recipe.model];
      const run = stream({
        agent: 'acp',
        acp: { name: 'gemini', command: [bin!, ...args] },
        prompt: promptFor(script),
        cwd: where.cwd,
        permission: o.permission ?? 'bypass',
        env: 'minimal',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
        timeoutMs: 90_000,
        ...o.more,
      });
      return { run, ...where, from };
    }

    async function drive(script: string, o: Options = {}): Promise<Driven> {
      const { run, home, cwd, from } = start(script, o);
      const events: Event[] = [];
      for await (const e of run) {
        events.push(e);
        if (e.kind === 'approval_request' && o.answer !== undefined) {
          run.respond(
            e.id,
            o.answer === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', reason: 'not in the lab' },
          );
        }
      }
      return { events, outcome: await run.outcome, ledger: server.ledger.slice(from), home, cwd };
    }

    const of = <K extends Event['kind']>(d: Driven, kind: K) =>
      d.events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind);
    const results = (d: Driven) => d.ledger.flatMap((e) => e.results).join('\n');

    it('a text answer is the outcome, and the outcome says which ACP agent ran', async () => {
      const d = await drive('text');
      expect(d.events[0]).toEqual({ kind: 'started', session: d.outcome.session, model: recipe.model });
      expect(d.outcome.text).toBe(entriesOf(d.ledger, ['text']).at(-1)!.answer);
      expect(d.outcome).toMatchObject({ agent: 'acp', stop: { kind: 'completed' }, exitCode: 0 });
      expect(d.outcome.acp).toEqual({
        name: 'gemini',
        command: [bin, '--acp', '--skip-trust', '--model', recipe.model],
        agentName: 'gemini-cli',
        agentVersion: pin.version,
        protocolVersion: 1,
      });
      // Gemini fills none of ACP's usage fields; its chat file has them, and they are the server's.
      const entries = entriesOf(d.ledger, ['text']);
      expect(d.outcome.usage.input).toBe(entries.reduce((a, e) => a + (e.figures.input ?? 0), 0));
      expect(d.outcome.usage.output).toBe(entries.reduce((a, e) => a + (e.figures.output ?? 0), 0));
      expect(d.outcome.truth.usageFromFile).toEqual(expect.arrayContaining(['input', 'output']));
      expect(of(d, 'commands')).toHaveLength(1);
    });

    it('a call and its answer arrive as events (bypass is Gemini’s yolo mode)', async () => {
      const d = await drive('call');
      const calls = of(d, 'tool_call');
      expect(calls.map((e) => e.name)).toEqual(['echo lab-call-ok']);
      // Gemini says `completed` whatever a command exits with, and sends no output over ACP.
      expect(of(d, 'tool_result')).toEqual([{ kind: 'tool_result', id: calls[0]!.id, ok: null, output: '' }]);
      expect(results(d)).toContain('lab-call-ok');
      expect(d.outcome.text).toBe(entriesOf(d.ledger, ['call']).at(-1)!.answer);
      // The session file the run wrote was read, and it says what the stream said.
      expect(d.outcome.truth.file).not.toBeNull();
      expect(d.outcome.truth.problems).toEqual([]);
    });

    it('a command that exits 3: ACP says completed, the chat file says failed, and the outcome settles it from there', async () => {
      const d = await drive('fail');
      const calls = of(d, 'tool_call');
      expect(of(d, 'tool_result').map((e) => e.ok)).toEqual([null]);
      expect(d.outcome.truth.results).toEqual([
        { id: calls[0]!.id, name: 'run_shell_command', ok: false, from: 'file', exitCode: 3 },
      ]);
      expect(d.outcome.truth.problems).toEqual([]);
    });

    it('parallel calls each get their own result, matched by id', async () => {
      const d = await drive('parallel');
      const ids = of(d, 'tool_call').map((e) => e.id);
      expect(new Set(ids).size).toBe(2);
      expect(of(d, 'tool_result').map((e) => e.id)).toEqual(ids);
    });

    it('a permission allowed through respond() runs the command', async () => {
      const d = await drive('approve', { permission: 'default', answer: 'allow', more: { approvals: true } });
      expect(of(d, 'approval_request').map((e) => e.tool)).toEqual([
        'touch lab-approved.txt && echo lab-touched',
      ]);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(true);
      expect(results(d)).toContain('lab-touched');
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('a permission denied through respond() does not run it, and the model is told', async () => {
      const d = await drive('approve', { permission: 'default', answer: 'deny', more: { approvals: true } });
      expect(of(d, 'approval_request')).toHaveLength(1);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(false);
      expect(results(d)).toContain('canceled by the user');
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('a permission nobody asked to answer is rejected at once, and the run completes', async () => {
      const d = await drive('approve', { permission: 'default' });
      expect(of(d, 'approval_request')).toEqual([]);
      expect(existsSync(join(d.cwd, 'lab-approved.txt'))).toBe(false);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('read-only asks for Gemini’s plan mode, which offers the model no shell', async () => {
      const d = await drive('call', { permission: 'read-only' });
      expect(of(d, 'tool_call')).toEqual([]);
      expect(d.ledger.every((e) => e.aux)).toBe(true);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      // Gemini announces the mode change as a message before the prompt: not the answer.
      expect(d.outcome.text).not.toContain('MODE_UPDATE');
    });

    it('a resumed run loads the session, and the history it replays is not this run’s', async () => {
      const first = await drive('call');
      // Gemini CLI 0.61.0 names a session's file by the minute it started, and loading starts a new
      // recording under such a name: loaded within the minute it began, the session's file is
      // overwritten before it is read, and Gemini answers "Invalid session identifier". A caller
      // resuming later never meets it; the test waits for the next minute.
      await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 1000));
      const again = await drive('resume', { home: first.home, more: { resume: first.outcome.session! } });
      expect(again.outcome.session).toBe(first.outcome.session);
      expect(again.outcome.text).toBe(entriesOf(again.ledger, ['resume']).at(-1)!.answer);
      expect(of(again, 'tool_call'), 'the first run’s call is history').toEqual([]);
      expect(of(again, 'text').map((e) => e.text)).toEqual([again.outcome.text]);
    }, 150_000);

    it('a session Gemini cannot load ends the run with a protocol error in Gemini’s words', async () => {
      const { run } = start('resume', { more: { resume: randomUUID() } });
      const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('protocol');
      expect(error.message).toContain('gemini refused session/load: Internal error');
      expect(error.message).toContain('No previous sessions found for this project.');
      await run.closed;
    });

    it('cancel stops a run mid-turn and reaps its group', async () => {
      server.hold();
      const { run } = start('hold');
      await server.whenHeld();
      run.cancel();
      const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('cancelled');
      await run.closed;
      server.release();
    });

    it('the CLI without its ACP flag never answers, and the run ends at the handshake deadline', async () => {
      const started = Date.now();
      const where = makeHome(join(root, 'no-acp'));
      recipe.setup(where.home, server.url);
      const r = stream({
        agent: 'acp',
        acp: { name: 'gemini', command: [bin!, '--skip-trust'], handshakeMs: 8000 },
        prompt: promptFor('text'),
        cwd: where.cwd,
        permission: 'default',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
      });
      const error = (await r.outcome.catch((e: unknown) => e)) as DriveError;
      expect(error.failure.kind).toBe('protocol');
      expect(error.message).toContain('did not answer `initialize` within 8 s');
      expect(Date.now() - started).toBeLessThan(30_000);
      await r.closed;
    });
  },
);
