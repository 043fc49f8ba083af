/**
 * `cctop/drive` with mid-run input against the real Pi in the lab (@mariozechner/pi-coding-agent,
 * pinned in lab/agents.json): such a run goes through `pi --mode rpc` instead of `--mode json`, and
 * `send()` steers the running turn. Checked against the stand-in model server's request dumps: a
 * message sent while a model call is in flight reaches the model in the next request, after the
 * call's tool ran. The ways a run ends without settling hold as for every agent (drive-endings).
 *
 * Apart from drive-pi.test.ts because every run here is an RPC one.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { piRecipe as recipe } from '../../src/test-support/lab/agents/pi.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';
import { endingTests } from './drive-endings.js';

const pin = PINS.pi;
const bin = agentBin('pi');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

describe.skipIf(!bin)(
  `cctop/drive send() through pi --mode rpc, ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    let dumps: string;
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-drive-pi-steer-'));
      dumps = join(root, 'requests');
      mkdirSync(dumps);
      server = await startLabServer({ dumpDir: dumps });
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    let n = 0;
    function start(
      script: string,
      o: { more?: Partial<Request>; home?: string } = {},
    ): { run: Run; cwd: string; from: number; home: string } {
      const where = o.home
        ? { home: o.home, cwd: join(o.home, '..', 'work') }
        : makeHome(join(root, `${n++}`));
      if (!o.home) recipe.setup(where.home, server.url);
      const from = server.ledger.length;
      const run = stream({
        agent: 'pi',
        prompt: promptFor(script),
        bin: bin!,
        cwd: where.cwd,
        model: `lab/${recipe.model}`,
        permission: 'bypass',
        interactive: true,
        env: 'minimal',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
        timeoutMs: 90_000,
        ...o.more,
      });
      return { run, cwd: where.cwd, from, home: where.home };
    }

    /** The user messages' words in the request the lab server received for a ledger entry. */
    const userWords = (e: LedgerEntry): string[] => {
      const body = JSON.parse(
        readFileSync(join(dumps, `${String(e.seq).padStart(3, '0')}-${e.api}.json`), 'utf8'),
      );
      return (body.messages as { role: string; content: unknown }[])
        .filter((m) => m.role === 'user')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    };

    it('a message sent while the model is answering reaches it in the next request, after the call ran', async () => {
      const steer = 'lab-steer: also mind the steer.';
      server.hold();
      const { run, cwd, from } = start('stages');
      const events: Event[] = [];
      const iterate = (async () => {
        for await (const e of run) events.push(e);
      })();
      // The first model call is in flight (held by the server): the message goes to Pi's stdin before
      // the call is let through, so Pi has it queued when the call's tool has run.
      await server.whenHeld();
      run.send(steer);
      server.release();
      await iterate;
      const outcome = await run.outcome;
      const entries = entriesOf(server.ledger.slice(from), ['stages']);
      expect(entries.map((e) => e.step)).toEqual([0, 1]);
      expect(userWords(entries[0]!).some((w) => w.includes(steer))).toBe(false);
      expect(userWords(entries[1]!).some((w) => w.includes(steer))).toBe(true);
      expect(entries[1]!.results).toEqual(['lab-staged\n']);
      expect(existsSync(join(cwd, 'lab-stages.txt'))).toBe(true);
      expect(events[0]).toEqual({ kind: 'started', session: outcome.session, model: null });
      expect(outcome.session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(outcome.text).toBe(entries[1]!.answer);
      expect(outcome.stop).toEqual({ kind: 'completed' });
      expect(outcome.exitCode).toBe(0);
      // Once the turn settled, a message has no turn to go to.
      expect(() => run.send('too late')).toThrow();
    });

    it('a resumed RPC run continues the session it names', async () => {
      const first = start('text');
      for await (const _ of first.run) {
        // Drained: only the outcome matters here.
      }
      const session = (await first.run.outcome).session!;
      const again = start('resume', { home: first.home, more: { resume: session } });
      const events: Event[] = [];
      for await (const e of again.run) events.push(e);
      const outcome = await again.run.outcome;
      const mine = entriesOf(server.ledger.slice(again.from), ['resume']);
      expect(events[0]).toEqual({ kind: 'started', session, model: null });
      expect(outcome.session).toBe(session);
      expect(outcome.text).toBe(mine.at(-1)!.answer);
      // The second run's request carries the first run's prompt before its own.
      expect(userWords(mine[0]!)).toHaveLength(2);
    });

    endingTests({
      name: 'pi-rpc',
      bin: bin!,
      server: () => server,
      root: () => root,
      start,
      settles: 'line.startsWith(\'{"type":"message_end"\') && line.includes(\'"stopReason":"stop"\')',
      // The wrapper passes stdin through: it carries Pi's RPC commands.
      promptOnStdin: true,
    });
  },
);
