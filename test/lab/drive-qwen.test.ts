/**
 * `cctop/drive` against the real Qwen Code in the lab (@qwen-code/qwen-code, pinned in
 * lab/agents.json): every script through `stream()`, checked against the server's ledger, the
 * capabilities drive declares for it (resume with the thread's total apart, fork, a chosen session
 * id), the ones it refuses before spawning, and the ways a run ends without settling (cancelled,
 * timed out, the agent dying mid-line).
 *
 * Apart from the rules table in drive.test.ts because Qwen Code needs an auth type that the lab's
 * recipe gives as a flag and drive gives as `QWEN_DEFAULT_AUTH_TYPE`, and it adds fork and a chosen id.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DriveError, Request } from '../../src/drive/index.js';
import { qwenRecipe as recipe } from '../../src/test-support/lab/agents/qwen.js';
import { agentBin, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { promptFor } from './conformance.js';
import { endingTests } from './drive-endings.js';
import { calls, driveLab, results, sum } from './drive-lab.js';

const pin = PINS.qwen;
const bin = agentBin('qwen');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

describe.skipIf(!bin)(
  `cctop/drive with ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    const lab = driveLab({
      agent: 'qwen',
      recipe,
      bin,
      model: recipe.model,
      // The recipe passes `--auth-type openai`; drive leaves the choice to the user's settings.
      env: { QWEN_DEFAULT_AUTH_TYPE: 'openai' },
    });
    const { start, drive } = lab;

    it('a text answer is the outcome, with the session and model announced first', async () => {
      const d = await drive('text');
      const entries = entriesOf(d.ledger, ['text']);
      expect(d.events[0]).toEqual({ kind: 'started', session: d.outcome.session, model: recipe.model });
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      expect(d.outcome.exitCode).toBe(0);
    });

    it('a call and its answer arrive as events, and the outcome counts what the server said', async () => {
      const d = await drive('call');
      const entries = entriesOf(d.ledger, ['call']);
      expect(calls(d).map((e) => [e.name, e.input])).toEqual([
        ['run_shell_command', expect.objectContaining({ command: 'echo lab-call-ok' })],
      ]);
      expect(results(d)).toEqual([
        { kind: 'tool_result', id: calls(d)[0]!.id, ok: true, output: 'lab-call-ok' },
      ]);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      const u = d.outcome.usage;
      expect(u.input).toBe(sum(entries, (e) => e.figures.input));
      expect(u.cacheRead).toBe(sum(entries, (e) => e.figures.cacheRead));
      expect(u.output).toBe(sum(entries, (e) => e.figures.output));
      // The stream has no reasoning count: the session file's is the server's. Neither records cache
      // writes: unknown, not 0.
      expect(u.reasoning).toBe(sum(entries, (e) => e.figures.reasoning));
      expect(d.outcome.truth.usageFromFile).toEqual(['reasoning']);
      expect(u.cacheWrite).toBeNull();
      expect(u.contextTokens).toBe(entries.at(-1)!.prompt);
      // Live usage: one event per model call.
      expect(d.events.filter((e) => e.kind === 'usage')).toHaveLength(entries.length);
      // The session file the run wrote was read, and it says what the stream said.
      expect(d.outcome.truth.file).not.toBeNull();
      expect(d.outcome.truth.problems).toEqual([]);
    });

    it('a command that exits 3 is a failed result, and the model was told its exit code', async () => {
      const d = await drive('fail');
      expect(results(d).map((e) => e.ok)).toEqual([false]);
      expect(results(d)[0]!.output).toContain('Exit Code: 3');
      expect(
        entriesOf(d.ledger, ['fail'])
          .flatMap((e) => e.results)
          .join('\n'),
      ).toContain('Exit Code: 3');
    });

    it('parallel calls each get their own result, matched by id', async () => {
      const d = await drive('parallel');
      const ids = calls(d).map((e) => e.id);
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(2);
      expect(results(d).map((e) => [e.id, e.ok])).toEqual([
        [ids[0], true],
        [ids[1], true],
      ]);
    });

    it("a resumed run's usage is its own, with the thread's running total apart", async () => {
      const first = await drive('call');
      const again = await drive('resume', { home: first.home, more: { resume: first.outcome.session! } });
      const mine = entriesOf(again.ledger, ['resume']);
      expect(again.outcome.session).toBe(first.outcome.session);
      expect(again.outcome.text).toBe(mine.at(-1)!.answer);
      expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
      expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
      const all = [...entriesOf(first.ledger, ['call']), ...mine];
      expect(again.outcome.threadUsage?.output).toBe(sum(all, (e) => e.figures.output));
      expect(again.outcome.threadUsage?.input).toBe(sum(all, (e) => e.figures.input));
    });

    it('a fork continues the conversation in a new session, leaving the original', async () => {
      const first = await drive('call');
      const fork = await drive('resume', {
        home: first.home,
        more: { resume: first.outcome.session!, fork: true },
      });
      expect(fork.outcome.session).not.toBeNull();
      expect(fork.outcome.session).not.toBe(first.outcome.session);
      expect(fork.outcome.text).toBe(entriesOf(fork.ledger, ['resume']).at(-1)!.answer);
    });

    it('a session id chosen by the caller is the one Qwen Code uses', async () => {
      const id = randomUUID();
      const d = await drive('text', { more: { sessionId: id } });
      expect(d.outcome.session).toBe(id);
      expect(d.events[0]).toMatchObject({ kind: 'started', session: id });
    });

    it('a prompt that starts with a dash goes on stdin and is answered the same', async () => {
      const d = await drive('text', { more: { prompt: `- ${promptFor('text')}` } });
      expect(d.outcome.text).toBe(entriesOf(d.ledger, ['text']).at(-1)!.answer);
    });

    it('read-only offers the model no shell, so nothing runs', async () => {
      const d = await drive('call', { permission: 'read-only' });
      expect(calls(d)).toEqual([]);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('approvals, a schema and an effort are refused before anything is spawned', async () => {
      const before = lab.server().ledger.length;
      for (const more of [
        { approvals: true },
        { schema: { type: 'object' } },
        { effort: 'high' },
      ] satisfies Partial<Request>[]) {
        const { run } = start('text', { permission: 'default', more });
        const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
        expect(error.failure.kind).toBe('unsupported');
      }
      expect(lab.server().ledger.length).toBe(before);
    });

    endingTests({
      name: 'qwen',
      bin: bin!,
      server: lab.server,
      root: lab.root,
      start,
      settles: 'line.includes(\'"type":"result"\')',
      // Long enough for Qwen Code to start (about 5 s here) and reach the held request.
      timeoutMs: 15_000,
      timedOut: (p) => expect(p.session).not.toBeNull(),
    });
  },
);
