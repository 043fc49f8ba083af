/**
 * `cctop/drive` against the real Gemini CLI in the lab (@google/gemini-cli, pinned in
 * lab/agents.json): every script through `stream()`, checked against the server's ledger, and the
 * ways a run ends without settling (cancelled, timed out, the agent dying mid-line).
 *
 * Gemini is apart from the rules table in drive.test.ts because it differs where that table has no
 * column: a shell command's result carries no verdict (0.61.0 says `success` for `exit 3`, so `ok` is
 * null), and a resumed run's usage is its own with no thread total at all.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { geminiRecipe as recipe } from '../../src/test-support/lab/agents/gemini.js';
import { agentBin, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { promptFor } from './conformance.js';
import { endingTests } from './drive-endings.js';
import { calls, driveLab, results, sum } from './drive-lab.js';

const pin = PINS.gemini;
const bin = agentBin('gemini');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

describe.skipIf(!bin)(
  `cctop/drive with ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    const lab = driveLab({
      agent: 'gemini',
      recipe,
      bin,
      model: recipe.model,
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
        { kind: 'tool_result', id: calls(d)[0]!.id, ok: null, output: 'lab-call-ok' },
      ]);
      // The answer is the last model turn's text, not the run's.
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      const u = d.outcome.usage;
      expect(u.input).toBe(sum(entries, (e) => e.figures.input));
      expect(u.cacheRead).toBe(sum(entries, (e) => e.figures.cacheRead));
      expect(u.output).toBe(sum(entries, (e) => e.figures.output));
      expect(u.reasoning).toBe(sum(entries, (e) => e.figures.reasoning));
      expect(u.cacheWrite).toBeNull();
    });

    it('a command that exits 3 has no verdict in the stream (Gemini says success); the session file settles it failed, and the outcome says so', async () => {
      const d = await drive('fail');
      expect(results(d).map((e) => [e.ok, e.output])).toEqual([[null, 'lab-fail-out']]);
      const id = results(d)[0]!.id!;
      expect(d.outcome.truth.results).toEqual([
        { id, name: 'run_shell_command', ok: false, from: 'file', exitCode: 3 },
      ]);
      expect(d.outcome.truth.file).toMatch(/chats[/\\]session-[^/\\]+\.jsonl?$/);
      expect(d.outcome.truth.problems).toEqual([]);
      // The model and the tokens were in the stream: the file only confirmed them.
      expect(d.outcome.truth.model).toBe('stream');
      expect(d.outcome.truth.usageFromFile).toEqual([]);
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
      expect(results(d).map((e) => [e.id, e.output])).toEqual([
        [ids[0], 'lab-par-one'],
        [ids[1], 'lab-par-two'],
      ]);
    });

    it('a resumed run continues the session, and its usage is its own (Gemini keeps no thread total)', async () => {
      const first = await drive('call');
      const again = await drive('resume', { home: first.home, more: { resume: first.outcome.session! } });
      const mine = entriesOf(again.ledger, ['resume']);
      expect(again.outcome.session).toBe(first.outcome.session);
      expect(again.outcome.text).toBe(mine.at(-1)!.answer);
      expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
      expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
      expect(again.outcome.threadUsage).toBeNull();
    });

    it('a session id chosen by the caller is the one Gemini uses', async () => {
      const id = randomUUID();
      const d = await drive('text', { more: { sessionId: id } });
      expect(d.outcome.session).toBe(id);
      expect(d.events[0]).toMatchObject({ kind: 'started', session: id });
    });

    it('a prompt that starts with a dash goes on stdin and is answered', async () => {
      const d = await drive('text', { more: { prompt: `- ${promptFor('text')}` } });
      expect(d.outcome.text).toBe(entriesOf(d.ledger, ['text']).at(-1)!.answer);
    });

    it('read-only offers the model no shell, so nothing runs', async () => {
      const d = await drive('call', { permission: 'read-only' });
      expect(calls(d)).toEqual([]);
      expect(d.ledger.every((e) => e.aux)).toBe(true);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
    });

    endingTests({
      name: 'gemini',
      bin: bin!,
      server: lab.server,
      root: lab.root,
      start,
      settles: 'line.includes(\'"type":"result"\')',
    });
  },
);
