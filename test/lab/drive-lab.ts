/**
 * The lab around one agent that a test drives through `cctop/drive`'s `stream()`: the stand-in model
 * server and a folder of fresh homes for the suite, and the two ways its tests start a run (started,
 * to act on it while it runs; driven to its end, with every event it sent and the server's entries
 * it made). Gemini CLI, Qwen Code and Pi are driven alike here and differ only in the model they
 * are given and the environment drive adds; each test file keeps its own checks.
 *
 * Not here: what any run must show (the tests' own), nor the ways a run ends without settling
 * (`drive-endings.ts`, which takes this suite's `server`, `root` and `start`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { AgentId } from '../../src/drive/events.js';
import type { Event, Outcome, Permission, Request, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import { type LabHome, labEnv, makeHome, type Recipe } from '../../src/test-support/lab/agents.js';
import { type LabServer, type LedgerEntry, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

/** A run driven to its end: what it sent, how it ended, what the server answered meanwhile, its home. */
export interface Driven {
  events: Event[];
  outcome: Outcome;
  ledger: LedgerEntry[];
  home: string;
}

/** How a test starts a run: its permission (default bypass), a home to reuse, and more of the request. */
export interface RunOptions {
  permission?: Permission;
  home?: string;
  more?: Partial<Request>;
}

export interface DriveLab {
  server(): LabServer;
  root(): string;
  /** A fresh home, set up by the recipe for the suite's server. */
  freshHome(): LabHome;
  /** The run of `script`, started: where its home is, and where the server's ledger stood. */
  start(script: string, o?: RunOptions): { run: Run; home: string; from: number };
  drive(script: string, o?: RunOptions): Promise<Driven>;
}

/** What differs between the agents driven here. */
export interface DrivenAgent {
  agent: AgentId;
  recipe: Recipe;
  /** The installed CLI, or null when it is not (the suite is then skipped, and nothing here runs). */
  bin: string | null;
  /** The model as drive passes it (Pi's names its provider: `lab/<model>`). */
  model: string;
  /** Environment on top of the lab's and the recipe's, for what drive leaves to the user. */
  env?: Record<string, string>;
}

/** Register the suite's server and folder (call it inside the `describe`), and start runs in them. */
export function driveLab(a: DrivenAgent): DriveLab {
  let server: LabServer;
  let root: string;
  beforeAll(async () => {
    server = await startLabServer();
    root = mkdtempSync(join(tmpdir(), `cctop-lab-drive-${a.agent}-`));
  });
  afterAll(async () => {
    server?.release();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  let n = 0;
  const freshHome = (): LabHome => {
    const where = makeHome(join(root, `${n++}`));
    a.recipe.setup(where.home, server.url);
    return where;
  };

  const start = (script: string, o: RunOptions = {}) => {
    if (a.bin === null) throw new Error(`${a.agent} is not installed: run \`npm run agents\``);
    const where = o.home ? { home: o.home, cwd: join(o.home, '..', 'work') } : freshHome();
    const from = server.ledger.length;
    const run = stream({
      agent: a.agent,
      prompt: promptFor(script),
      bin: a.bin,
      cwd: where.cwd,
      model: a.model,
      permission: o.permission ?? 'bypass',
      env: 'minimal',
      setEnv: { ...labEnv(where.home, server.url), ...a.recipe.env(where.home, server.url), ...a.env },
      timeoutMs: 90_000,
      ...o.more,
    });
    return { run, home: where.home, from };
  };

  return {
    server: () => server,
    root: () => root,
    freshHome,
    start,
    async drive(script, o = {}) {
      const { run, home, from } = start(script, o);
      const events: Event[] = [];
      for await (const e of run) events.push(e);
      const outcome = await run.outcome;
      return { events, outcome, ledger: server.ledger.slice(from), home };
    },
  };
}

/** The sum of one figure over the server's entries, an absent figure counting nothing. */
export const sum = (xs: LedgerEntry[], f: (e: LedgerEntry) => number | null): number =>
  xs.reduce((a, e) => a + (f(e) ?? 0), 0);

/** The tool results a run sent, in order. */
export const results = (d: Driven) => d.events.flatMap((e) => (e.kind === 'tool_result' ? [e] : []));
/** The tool calls a run sent, in order. */
export const calls = (d: Driven) => d.events.flatMap((e) => (e.kind === 'tool_call' ? [e] : []));
