/**
 * `cctop/drive` against the real Pi in the lab (@mariozechner/pi-coding-agent, pinned in
 * lab/agents.json): every script through `stream()`, checked against the server's ledger, the
 * capabilities drive declares for it (resume, fork, the reading tools for read-only, Pi's own price),
 * and the ways a run ends without settling (cancelled, timed out, the agent dying mid-line).
 *
 * Apart from the rules table in drive.test.ts because Pi differs where that table has no column: it
 * announces its session before it names a model, prices calls itself (0 for a model it has no
 * price for, which drive reports as unknown), and forks.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { piRecipe as recipe } from '../../src/test-support/lab/agents/pi.js';
import { agentBin, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { promptFor } from './conformance.js';
import { endingTests } from './drive-endings.js';
import { calls, driveLab, results, sum } from './drive-lab.js';

const pin = PINS.pi;
const bin = agentBin('pi');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

/** Dollars per million tokens, given to the lab's model for the run that checks Pi's own price. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

describe.skipIf(!bin)(
  `cctop/drive with ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    const lab = driveLab({
      agent: 'pi',
      recipe,
      bin,
      model: `lab/${recipe.model}`,
    });
    const { start, drive } = lab;

    /** A lab home whose model has a price or thinking, as a `models.json` entry may say. */
    function homeWith(model: Record<string, unknown>): string {
      const where = lab.freshHome();
      const file = join(where.home, '.pi', 'agent', 'models.json');
      const models = JSON.parse(readFileSync(file, 'utf8'));
      Object.assign(models.providers.lab.models[0], model);
      writeFileSync(file, JSON.stringify(models));
      return where.home;
    }

    /** The thinking levels Pi wrote into the session file of a run. */
    function thinkingLevels(home: string, session: string): string[] {
      const dir = join(home, '.pi', 'agent', 'sessions');
      const file = readdirSync(dir, { recursive: true })
        .map(String)
        .find((f) => f.endsWith(`_${session}.jsonl`));
      if (file === undefined) return [];
      return readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"thinking_level_change"'))
        .map((l) => JSON.parse(l).thinkingLevel as string);
    }

    it('a text answer is the outcome; the session is announced first, the model once Pi names it', async () => {
      const d = await drive('text');
      const entries = entriesOf(d.ledger, ['text']);
      expect(d.events[0]).toEqual({ kind: 'started', session: d.outcome.session, model: null });
      expect(d.outcome.model).toBe(recipe.model);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      expect(d.outcome.exitCode).toBe(0);
      expect(d.outcome.unparsed).toBe(0);
    });

    it('a call and its answer arrive as events, and the outcome counts what the server said', async () => {
      const d = await drive('call');
      const entries = entriesOf(d.ledger, ['call']);
      expect(calls(d).map((e) => [e.name, e.input])).toEqual([['bash', { command: 'echo lab-call-ok' }]]);
      expect(results(d)).toEqual([
        { kind: 'tool_result', id: calls(d)[0]!.id, ok: true, output: 'lab-call-ok\n' },
      ]);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      const u = d.outcome.usage;
      expect(u.input).toBe(sum(entries, (e) => e.figures.input));
      expect(u.cacheRead).toBe(sum(entries, (e) => e.figures.cacheRead));
      // Reasoning is inside Pi's output, which it does not count apart.
      expect(u.output).toBe(sum(entries, (e) => e.figures.output));
      expect(u.reasoning).toBeNull();
      // Chat Completions has no cache-write figure; Pi writes 0 for it.
      expect(u.cacheWrite).toBe(0);
      expect(u.contextTokens).toBe(entries.at(-1)!.prompt);
      // The lab's model has no price in Pi's table: Pi says 0, which is not a price.
      expect(u.costUsd).toBeNull();
      expect(d.outcome.threadUsage).toBeNull();
      // The session file the run wrote was read, and it says what the stream said.
      expect(d.outcome.truth.file).not.toBeNull();
      expect(d.outcome.truth.problems).toEqual([]);
    });

    it('the cost is Pi’s own price of each call, summed, when its model has one', async () => {
      const d = await drive('call', { home: homeWith({ cost: PRICE }) });
      const priced = sum(
        entriesOf(d.ledger, ['call']),
        (e) =>
          e.figures.input * PRICE.input +
          e.figures.output * PRICE.output +
          e.figures.cacheRead * PRICE.cacheRead,
      );
      expect(d.outcome.usage.costUsd).toBeCloseTo(priced / 1e6, 10);
    });

    it('effort is the thinking level Pi runs at, and thinking: false turns it off', async () => {
      // A model Pi knows can reason; Pi writes the level it settled on into the session file.
      const high = await drive('text', { home: homeWith({ reasoning: true }), more: { effort: 'high' } });
      expect(thinkingLevels(high.home, high.outcome.session!)).toEqual(['high']);
      const off = await drive('text', { home: homeWith({ reasoning: true }), more: { thinking: false } });
      expect(thinkingLevels(off.home, off.outcome.session!)).toEqual(['off']);
      expect(off.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('a command that exits 3 failed, and the model was told its exit code', async () => {
      const d = await drive('fail');
      expect(results(d).map((e) => e.ok)).toEqual([false]);
      expect(results(d)[0]!.output).toContain('lab-fail-out');
      expect(
        entriesOf(d.ledger, ['fail'])
          .flatMap((e) => e.results)
          .join('\n'),
      ).toContain('Command exited with code 3');
    });

    it('parallel calls each get their own result, matched by id', async () => {
      const d = await drive('parallel');
      const ids = calls(d).map((e) => e.id);
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(2);
      expect(results(d).map((e) => [e.id, e.output])).toEqual([
        [ids[0], 'lab-par-one\n'],
        [ids[1], 'lab-par-two\n'],
      ]);
    });

    it('a resumed run continues the session, and its usage is its own calls', async () => {
      const first = await drive('call');
      const again = await drive('resume', { home: first.home, more: { resume: first.outcome.session! } });
      const mine = entriesOf(again.ledger, ['resume']);
      expect(again.outcome.session).toBe(first.outcome.session);
      expect(again.outcome.text).toBe(mine.at(-1)!.answer);
      expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
      expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
      // The server saw the earlier turns: the conversation was continued, not restarted.
      expect(mine[0]!.prompt).toBeGreaterThan(entriesOf(first.ledger, ['call']).at(-1)!.prompt);
    });

    it('a fork continues the conversation in a new session, leaving the first as it was', async () => {
      const first = await drive('call');
      const forked = await drive('resume', {
        home: first.home,
        more: { resume: first.outcome.session!, fork: true },
      });
      expect(forked.outcome.session).not.toBeNull();
      expect(forked.outcome.session).not.toBe(first.outcome.session);
      expect(forked.outcome.text).toBe(entriesOf(forked.ledger, ['resume']).at(-1)!.answer);
      expect(entriesOf(forked.ledger, ['resume'])[0]!.prompt).toBeGreaterThan(
        entriesOf(first.ledger, ['call']).at(-1)!.prompt,
      );
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
      name: 'pi',
      bin: bin!,
      server: lab.server,
      root: lab.root,
      start,
      settles: 'line.startsWith(\'{"type":"message_end"\') && line.includes(\'"stopReason":"stop"\')',
    });
  },
);
