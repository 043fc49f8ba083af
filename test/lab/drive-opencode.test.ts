/**
 * `cctop/drive` against the real OpenCode in the lab (opencode-ai, pinned in lab/agents.json): every
 * script through `stream()`, checked against the server's ledger (tokens, and the cost OpenCode
 * prices from rates the lab's config gives its model), the capabilities drive declares for it
 * (resume, fork, effort as a variant, added directories, the permission levels), the ones it refuses
 * before spawning, and the ways a run ends without settling (a permission refused headless,
 * cancelled, timed out, the agent dying mid-line).
 *
 * Apart from the rules table in drive.test.ts because OpenCode writes no record that closes a run
 * (the last model call's finish settles it) and its permissions come from its config, which drive
 * extends through `OPENCODE_PERMISSION`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Outcome, Permission, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { opencodeRecipe as recipe } from '../../src/test-support/lab/agents/opencode.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';
import { endingTests } from './drive-endings.js';

const pin = PINS.opencode;
const bin = agentBin('opencode');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;
/** `--model` for OpenCode is `provider/model`: the recipe's provider is `lab`. */
const MODEL = `lab/${recipe.model}`;
/**
 * Each OpenCode run takes 7 to 12 seconds (a fresh database each time), several times that on a busy
 * machine, and a test may make three: every test gets this long.
 */
const SLOW = 180_000;
/** Dollars per million tokens, given to the lab's model so OpenCode prices its calls. */
const RATES = { input: 2, output: 8, cache_read: 0.5, cache_write: 3 };

const sum = (xs: LedgerEntry[], f: (e: LedgerEntry) => number | null) =>
  xs.reduce((a, e) => a + (f(e) ?? 0), 0);

interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
  home: string;
}

interface Options {
  permission?: Permission;
  home?: string;
  /** Changes to the lab's OpenCode config before the run. */
  config?: (config: LabConfig) => void;
  /** Where OpenCode's provider sends its requests instead of the lab server. */
  via?: string;
  more?: Partial<Request>;
}

/** The parts of the recipe's OpenCode config the tests change. */
interface LabConfig {
  provider: { lab: { models: Record<string, Record<string, unknown>> } };
  permission?: Record<string, unknown>;
}

/** Change the OpenCode config the recipe wrote into `home`. */
function configure(home: string, change: (config: LabConfig) => void): void {
  const file = join(home, '.config', 'opencode', 'opencode.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as LabConfig;
  change(config);
  writeFileSync(file, JSON.stringify(config));
}

describe.skipIf(!bin)(
  `cctop/drive with ${pin.package}@${pin.version}${bin ? '' : ` (skipped: ${why})`}`,
  { timeout: SLOW },
  () => {
    let server: LabServer;
    let root: string;
    let dumps: string;
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-drive-opencode-'));
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
    function start(script: string, o: Options = {}): { run: Run; home: string; from: number } {
      const where = o.home
        ? { home: o.home, cwd: join(o.home, '..', 'work') }
        : makeHome(join(root, `${n++}`));
      if (!o.home) recipe.setup(where.home, o.via ?? server.url);
      if (o.config) configure(where.home, o.config);
      const from = server.ledger.length;
      const run = stream({
        agent: 'opencode',
        prompt: promptFor(script),
        bin: bin!,
        cwd: where.cwd,
        model: MODEL,
        permission: o.permission ?? 'bypass',
        env: 'minimal',
        setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
        timeoutMs: 90_000,
        ...o.more,
      });
      return { run, home: where.home, from };
    }

    async function drive(script: string, o: Options = {}): Promise<Driven> {
      const { run, home, from } = start(script, o);
      const events: Event[] = [];
      for await (const e of run) events.push(e);
      const outcome = await run.outcome;
      return { events, outcome, ledger: server.ledger.slice(from), home };
    }

    const results = (d: Driven) => d.events.flatMap((e) => (e.kind === 'tool_result' ? [e] : []));
    const calls = (d: Driven) => d.events.flatMap((e) => (e.kind === 'tool_call' ? [e] : []));
    /** The request body the lab server received for a ledger entry. */
    const sent = (e: LedgerEntry) =>
      JSON.parse(readFileSync(join(dumps, `${String(e.seq).padStart(3, '0')}-${e.api}.json`), 'utf8'));

    it('a text answer is the outcome, with the session announced first', async () => {
      const d = await drive('text');
      const entries = entriesOf(d.ledger, ['text']);
      // No record names the model; the one it was told to use is the outcome's.
      expect(d.events[0]).toEqual({ kind: 'started', session: d.outcome.session, model: null });
      expect(d.outcome.session).toMatch(/^ses_/);
      expect(d.outcome.model).toBe(MODEL);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
      expect(d.outcome.exitCode).toBe(0);
    });

    it('a call and its answer arrive as events; tokens and cost are what the server said, the effort went as the variant', async () => {
      const d = await drive('call', {
        config: (c) => {
          const model = c.provider.lab.models[recipe.model]!;
          model.cost = RATES;
          model.variants = { high: { reasoningEffort: 'high' } };
        },
        more: { effort: 'high' },
      });
      const entries = entriesOf(d.ledger, ['call']);
      expect(calls(d).map((e) => [e.name, e.input])).toEqual([['bash', { command: 'echo lab-call-ok' }]]);
      expect(results(d)).toEqual([
        { kind: 'tool_result', id: calls(d)[0]!.id, ok: true, output: 'lab-call-ok\n' },
      ]);
      expect(d.outcome.text).toBe(entries.at(-1)!.answer);
      const u = d.outcome.usage;
      expect(u.input).toBe(sum(entries, (e) => e.figures.input));
      expect(u.cacheRead).toBe(sum(entries, (e) => e.figures.cacheRead));
      expect(u.output).toBe(sum(entries, (e) => e.figures.output));
      expect(u.reasoning).toBe(sum(entries, (e) => e.figures.reasoning));
      // OpenCode writes 0 where Chat Completions reports no cache writes.
      expect(u.cacheWrite).toBe(0);
      expect(u.contextTokens).toBe(entries.at(-1)!.prompt);
      const priced = sum(
        entries,
        (e) =>
          e.figures.input * RATES.input +
          e.figures.output * RATES.output +
          e.figures.cacheRead * RATES.cache_read,
      );
      expect(u.costUsd).toBeCloseTo(priced / 1e6, 12);
      expect(d.outcome.threadCostUsd).toBeNull();
      expect(entries.map((e) => sent(e).reasoning_effort)).toEqual(['high', 'high']);
      // The session file the run wrote was read, and it says what the stream said.
      expect(d.outcome.truth.file).not.toBeNull();
      expect(d.outcome.truth.problems).toEqual([]);
    });

    it('a command that exits 3 failed, though OpenCode says completed', async () => {
      const d = await drive('fail');
      expect(results(d).map((e) => [e.ok, e.output])).toEqual([[false, 'lab-fail-out\n']]);
      expect(d.outcome.stop).toEqual({ kind: 'completed' });
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

    it('a resumed run continues the session with usage of its own, and a fork continues into a new one', async () => {
      const first = await drive('call');
      const session = first.outcome.session!;
      const again = await drive('resume', { home: first.home, more: { resume: session } });
      const mine = entriesOf(again.ledger, ['resume']);
      expect(again.outcome.session).toBe(session);
      expect(again.outcome.text).toBe(mine.at(-1)!.answer);
      expect(again.outcome.usage.input).toBe(sum(mine, (e) => e.figures.input));
      expect(again.outcome.usage.output).toBe(sum(mine, (e) => e.figures.output));
      expect(again.outcome.threadUsage).toBeNull();
      const fork = await drive('resume', { home: first.home, more: { resume: session, fork: true } });
      expect(fork.outcome.session).toMatch(/^ses_/);
      expect(fork.outcome.session).not.toBe(session);
      expect(fork.outcome.text).toBe(entriesOf(fork.ledger, ['resume']).at(-1)!.answer);
      // The fork carries the conversation: its request is larger than the first run's.
      expect(entriesOf(fork.ledger, ['resume'])[0]!.prompt).toBeGreaterThan(mine[0]!.prompt);
    });

    it('a prompt that starts with a dash, with quotes in it, arrives as written', async () => {
      const prompt = `- "quoted" ${promptFor('text')}`;
      const d = await drive('text', { more: { prompt } });
      expect(d.outcome.text).toBe(entriesOf(d.ledger, ['text']).at(-1)!.answer);
      const user = sent(entriesOf(d.ledger, ['text'])[0]!).messages.find(
        (m: { role: string }) => m.role === 'user',
      );
      expect(JSON.stringify(user.content)).toContain(JSON.stringify(prompt).slice(1, -1));
    });

    it('a plain-text run answers with what OpenCode printed', async () => {
      const d = await drive('text', { more: { format: 'text' } });
      const answer = entriesOf(d.ledger, ['text']).at(-1)!.answer;
      expect(d.outcome.text).toBe(answer);
      expect(d.events).toEqual([{ kind: 'text', text: answer }]);
    });

    it.each<Permission>(['read-only', 'plan', 'edit'])(
      '%s offers the model no shell, so nothing runs',
      async (permission) => {
        const d = await drive('call', { permission });
        expect(calls(d)).toEqual([]);
        expect(d.ledger.every((e) => e.aux)).toBe(true);
        expect(d.outcome.stop).toEqual({ kind: 'completed' });
      },
    );

    it('what OpenCode would ask about is refused headless and ends the turn unsettled; bypass approves it', async () => {
      const asks = (c: LabConfig) => {
        c.permission = { bash: 'ask' };
      };
      const refused = await drive('call', { permission: 'default', config: asks });
      expect(results(refused).map((e) => e.ok)).toEqual([false]);
      expect(results(refused)[0]!.output).toMatch(/rejected permission/);
      expect(refused.outcome.stop).toEqual({ kind: 'unfinished' });
      expect(refused.outcome.exitCode).toBe(0);
      expect(refused.outcome.stderr).toMatch(/auto-rejecting/);
      const approved = await drive('call', { permission: 'bypass', config: asks });
      expect(results(approved).map((e) => e.ok)).toEqual([true]);
      expect(approved.outcome.stop).toEqual({ kind: 'completed' });
    });

    it('an added directory is one OpenCode may use; without it, a command reading there is refused', async () => {
      const outside = mkdtempSync(join(root, 'outside-'));
      writeFileSync(join(outside, 'note.txt'), 'lab-outside-note\n');
      const proxy = await rewriting(server.url, 'echo lab-call-ok', `cat ${join(outside, 'note.txt')}`);
      try {
        const via = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        const without = await drive('call', { permission: 'default', via });
        expect(results(without).map((e) => e.ok)).toEqual([false]);
        const withDir = await drive('call', { permission: 'default', via, more: { addDirs: [outside] } });
        expect(results(withDir).map((e) => [e.ok, e.output])).toEqual([[true, 'lab-outside-note\n']]);
      } finally {
        proxy.close();
      }
    });

    endingTests({
      name: 'opencode',
      bin: bin!,
      server: () => server,
      root: () => root,
      start,
      settles: 'line.includes(\'"reason":"stop"\')',
      promptOnStdin: true,
    });
  },
);

/**
 * A proxy in front of the lab server that replaces `from` with `to` in what the server answers: the
 * lab's scripts only run commands inside the working directory, and this one must reach outside it.
 */
async function rewriting(target: string, from: string, to: string): Promise<Server> {
  const proxy = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        // The length changes with the words; the answer is streamed anyway.
        const { 'content-length': _length, ...headers } = r.headers;
        res.writeHead(r.statusCode ?? 502, headers);
        r.on('data', (c: Buffer) => res.write(c.toString('utf8').replace(from, to)));
        r.on('end', () => res.end());
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(body));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  return proxy;
}
