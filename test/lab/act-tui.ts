/**
 * Typing into a real agent's own TUI, for every agent whose TUI runs offline against the lab's
 * stand-in model server: the agent in a tmux pane as a person starts it, and again under `cctop run`.
 * In each, `cctop send` types a prompt that reaches the model (the server's ledger), `cctop stop`
 * ends a turn the server holds open (the held response is abandoned and the session goes idle),
 * and the agent's own quit command ends it with its exit code; under `cctop run`, a detach and an
 * attach from another terminal keep its screen.
 *
 * Each agent's part is a `TuiSpec`: its home set up so no first-run dialog stands in the way, its
 * command line, and the words its screen shows while a turn runs and once it is interrupted. With
 * `CCTOP_LAB_RECORD=1` (`npm run lab:record`) the session files each agent wrote while driven by
 * cctop are kept as fixtures (`lab/fixtures/act/<agent>`), which `act-fixtures.test.ts` reads back
 * on a clone without the agents.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTER_AFTER_MS } from '../../src/act/typing.js';
import type { SessionDocument } from '../../src/model/document.js';
import { ptyRuns } from '../../src/runtime/pty-client.js';
import { CLI, runCli } from '../../src/test-support/cli-run.js';
import {
  agentBin,
  type LabAgentId,
  labEnv,
  makeHome,
  PINS,
  removeLabTree,
} from '../../src/test-support/lab/agents.js';
import { RECORDING } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { recordActFixture } from './act-fixture.js';

/** How long the TUI may take to start, answer, or show a screen on a busy two-core machine. */
export const PATIENCE_MS = 45_000;
/**
 * How long the agent may take to start and show its first answer: a cold start is the slowest step.
 * OpenCode 1.18.33 needs about 6 CPU seconds to start and answer (headless, measured with
 * /usr/bin/time: 23 s of wall time at a load of 13 on two cores); its TUI took more than 45 s at that
 * load, in the tmux pane and under `cctop run` alike.
 */
const START_MS = 2 * PATIENCE_MS;
/** A test's own limit: the start, then a few patiences for its other steps. */
const TEST_MS = START_MS + 4 * PATIENCE_MS;

/** Until `term`'s window shows the agent's first answer, within `START_MS`. */
const firstAnswer = (term: Terminal): Promise<string[]> =>
  new Terminal(term.socket, term.name, START_MS).until('the first answer', (l) =>
    l.join('\n').includes('pong: the lab answers'),
  );

export interface TuiSpec {
  id: LabAgentId;
  /** The agent's command, as typed after `cctop run` (and found on the PATH the test gives). */
  command: string;
  /** Write what the agent reads at start into its fresh home, so it opens straight to its prompt. */
  setup(home: string, cwd: string, serverUrl: string): void;
  /** Environment on top of the lab's own (keys, the model server's address). */
  env(home: string, serverUrl: string): Record<string, string>;
  /** The words before the prompt on its command line (`--model`, flags). */
  args: string[];
  /** How `cctop stop` says it pressed the agent's stop key: `Escape`, or `Escape twice` (OpenCode). */
  stopPressed?: string;
  /** The screen while a turn runs (its "esc to interrupt" line). */
  working: (screen: string) => boolean;
  /** What the agent's own quit command is typed as. */
  quit: string;
  /**
   * Keys that empty its input box after a stop, for an agent that puts the interrupted prompt back
   * there (Claude Code): the quit command is typed into an empty box.
   */
  clearInput?: string[];
  /**
   * What its files say once a turn is stopped: `idle` where the agent writes the stop down, or
   * `working` with why, for an agent that writes nothing when a turn is stopped (so cctop cannot
   * tell from its files that the turn ended).
   */
  afterStop: { state: 'idle' } | { state: 'working'; why: string };
  /** Why its `cctop run` suite cannot pass yet, and what would make it: the suite is skipped, saying so. */
  runSkipped?: string;
  /** The exit code the agent ends with after `quit`. */
  quitCode: number;
  /** Put what the agent left into the form a fixture keeps (OpenCode: its write-ahead log checkpointed). */
  settle?: (home: string) => void;
  /** The session folders (or files) under its home, kept in a fixture. */
  keep: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // No such process (any more).
    return false;
  }
};

/** Wait for `ok`, polling, within the patience; fail naming `what`. */
export async function until<T>(what: string, ok: () => T | null | undefined | false): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const v = ok();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await sleep(250);
  }
}

/** The agent's sessions as `cctop --json` reads them, with their states. */
async function sessionsOf(
  id: LabAgentId,
  env: Record<string, string>,
): Promise<{ id: string; state: string; running: boolean | null }[]> {
  const r = await runCli(['--json'], env);
  const doc = JSON.parse(r.out) as SessionDocument;
  return doc.sessions
    .filter((s) => s.provider === id)
    .map((s) => ({ id: s.id, state: s.state, running: s.running }));
}

/** Until `cctop --json` reads the one session in `state`. */
async function untilState(id: LabAgentId, env: Record<string, string>, state: string): Promise<string> {
  const deadline = Date.now() + PATIENCE_MS;
  let last: unknown = null;
  for (;;) {
    const mine = await sessionsOf(id, env);
    last = mine;
    if (mine.length === 1 && mine[0]!.state === state) return mine[0]!.id;
    if (Date.now() > deadline) throw new Error(`the session never read as ${state}: ${JSON.stringify(last)}`);
    await sleep(500);
  }
}

/**
 * The whole suite for one agent: `describe`s for a tmux pane and for `cctop run`, skipped with the
 * command that installs what is missing.
 */
export function actSuite(spec: TuiSpec): void {
  const pin = PINS[spec.id];
  const bin = agentBin(spec.id);
  const skip = !HAVE_TMUX
    ? 'tmux is not installed; apt-get install tmux'
    : bin === null
      ? `${pin.package}@${pin.version} is not installed for the lab; npm run agents`
      : null;
  const stillWorking =
    spec.afterStop.state === 'working' ? ` (its files still read working: ${spec.afterStop.why})` : '';
  const title = (where: string, why = skip) =>
    `cctop acts on a real ${pin.package}@${pin.version} TUI ${where}${why ? ` (skipped: ${why})` : ''}`;

  let server: LabServer;
  let root: string;
  beforeAll(async () => {
    if (skip) return;
    server = await startLabServer();
    root = mkdtempSync(join(tmpdir(), `cctop-act-${spec.id}-`));
  });
  afterAll(async () => {
    await server?.close();
    if (root) removeLabTree(root);
  });

  /** A fresh home and the environments of the agent and of cctop beside it. */
  const prepare = (name: string) => {
    const { home, cwd } = makeHome(join(root, name));
    spec.setup(home, cwd, server.url);
    const lab = labEnv(home, server.url);
    const agentEnv: Record<string, string> = {
      ...lab,
      ...spec.env(home, server.url),
      PATH: `${dirname(bin!)}:${lab.PATH ?? ''}`,
      TERM: 'xterm-256color',
      CCTOP_RUNTIME_DIR: join(root, name, 'run'),
    };
    const cctopEnv: Record<string, string> = {
      ...agentEnv,
      TMPDIR: tmpdir(),
      XDG_CACHE_HOME: join(root, name, 'cache'),
    };
    return { home, cwd, agentEnv, cctopEnv };
  };

  /** Keep what the agent wrote, driven by cctop, as a fixture (with `CCTOP_LAB_RECORD=1`). */
  const record = (name: string, home: string, cwd: string, from: number, typed: string[]) => {
    if (!RECORDING) return;
    spec.settle?.(home);
    recordActFixture(
      { agent: spec.id, package: pin.package, version: pin.version, where: name, typed },
      { home, cwd, keep: spec.keep },
      server.ledger.slice(from),
    );
  };

  /**
   * Send a prompt, stop a held turn, and check both at the model and on the screen; the session
   * reads idle after the stop. `where` is how cctop says it typed.
   */
  const sendAndStop = async (
    term: Terminal,
    env: Record<string, string>,
    where: RegExp,
  ): Promise<{ id: string; typed: string }> => {
    const id = await untilState(spec.id, env, 'idle');
    const before = server.ledger.length;
    const typed = '[lab:resume] typed by cctop send';
    const sent = await runCli(['send', id.slice(0, 8), typed], env);
    expect(sent.err).toBe('');
    expect(sent.out).toMatch(where);
    expect(sent.code).toBe(0);
    await until('the typed prompt at the model', () =>
      server.ledger.slice(before).some((e) => e.script === 'resume' && !e.aux),
    );
    await term.until('the answer to the typed prompt', (l) =>
      l.join('\n').includes('Resumed: the second turn is answered.'),
    );

    // A turn the model holds: the server keeps its response open until released.
    server.hold();
    const held = server.whenHeld();
    expect((await runCli(['send', id, '[lab:hold] wait for it'], env)).code).toBe(0);
    await held;
    await term.until('the turn working', (l) => spec.working(l.join('\n')));
    const stopped = await runCli(['stop', id], env);
    expect(stopped.err).toBe('');
    expect(stopped.out.startsWith(`pressed ${spec.stopPressed ?? 'Escape'} in `)).toBe(true);
    expect(stopped.code).toBe(0);
    // The turn ends while the server still holds its answer: the agent abandoned the request.
    await term.until('the turn ended', (l) => !spec.working(l.join('\n')));
    server.release();
    await untilState(spec.id, env, spec.afterStop.state);
    if (spec.clearInput) term.keys(...spec.clearInput);
    return { id, typed };
  };

  describe.skipIf(skip !== null)(title('in a tmux pane'), () => {
    it(
      `cctop send types a prompt the model gets; cctop stop ends a held turn${stillWorking}; its quit command ends it with its code`,
      async () => {
        const { home, cwd, agentEnv, cctopEnv } = prepare('pane');
        const from = server.ledger.length;
        const script = join(root, 'pane.sh');
        const first = '[lab:text] first prompt';
        writeFileSync(
          script,
          `cd '${cwd}' && env -i ${envWords(agentEnv)} '${bin}' ${spec.args.join(' ')} '${first}'\necho "agent exited $?"\nexec sleep 600\n`,
        );
        const term = new Terminal(`cctop-act-${spec.id}-${process.pid}`, 'agent', PATIENCE_MS);
        try {
          await firstAnswer(term.open('agent', `sh '${script}'`));
          const { typed } = await sendAndStop(
            term,
            cctopEnv,
            /^typed 32 characters and Enter into tmux pane %\d+ \(pid \d+\), session /,
          );
          term.tmux('send-keys', '-t', 'agent', '-l', spec.quit);
          await sleep(ENTER_AFTER_MS);
          term.keys('Enter');
          await term.until('the agent ending', (l) =>
            l.some((x) => x.startsWith(`agent exited ${spec.quitCode}`)),
          );
          record('pane', home, cwd, from, [typed, '[lab:hold] wait for it']);
        } finally {
          term.stop();
        }
      },
      TEST_MS,
    );
  });

  const runSkip = skip ?? spec.runSkipped ?? null;
  describe.skipIf(runSkip !== null)(title('under cctop run', runSkip), () => {
    it(
      `cctop send and stop go through its pty${stillWorking}; detach and attach keep its screen; its quit command is cctop’s exit code`,
      async () => {
        const { home, cwd, agentEnv, cctopEnv } = prepare('run');
        const from = server.ledger.length;
        const term = new Terminal(`cctop-run-${spec.id}-${process.pid}`, 'none', PATIENCE_MS);
        const window = (name: string, args: string) => {
          const script = join(root, `run-${name}.sh`);
          writeFileSync(
            script,
            `cd '${cwd}' && env -i ${envWords(agentEnv)} '${process.execPath}' '${CLI}' ${args}\necho "cctop exited $?"\nexec sleep 600\n`,
          );
          return term.open(name, `sh '${script}'`);
        };
        try {
          const first = '[lab:text] first under cctop run';
          const one = window('one', `run ${spec.command} ${spec.args.join(' ')} '${first}'`);
          await firstAnswer(one);
          const [run] = ptyRuns(cctopEnv);
          expect(run?.agent).toBe(spec.id);
          const { id, typed } = await sendAndStop(
            one,
            cctopEnv,
            new RegExp(
              `^typed 32 characters and Enter into cctop's own terminal \\(run ${run!.id}\\), session `,
            ),
          );

          // Ctrl-\ then d: cctop ends with 0; the agent runs on, and another terminal takes it back.
          // That terminal opens before the first one closes: a tmux server whose last window closed
          // is still exiting, and drops a window opened at that moment (which read as a blank
          // attach, a few runs in a hundred).
          one.keys('C-\\');
          one.keys('d');
          await one.until('cctop ending', (l) => l.some((x) => x.startsWith('cctop exited 0')));
          const two = window('two', `attach ${id}`);
          one.tmux('kill-session', '-t', 'one');
          expect(alive(run!.pid)).toBe(true);
          await two.until('the conversation again', (l) =>
            l.join('\n').includes('Resumed: the second turn is answered.'),
          );
          two.tmux('send-keys', '-t', 'two', '-l', spec.quit);
          await sleep(ENTER_AFTER_MS);
          two.keys('Enter');
          await two.until('cctop ending with the agent', (l) =>
            l.some((x) => x.startsWith(`cctop exited ${spec.quitCode}`)),
          );
          await until('the agent gone', () => !alive(run!.pid));
          record('run', home, cwd, from, [typed, '[lab:hold] wait for it']);
        } finally {
          for (const r of ptyRuns(cctopEnv)) if (alive(r.pid)) process.kill(r.pid, 'SIGKILL');
          term.stop();
        }
      },
      TEST_MS,
    );
  });
}
