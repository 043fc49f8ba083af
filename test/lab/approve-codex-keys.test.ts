/**
 * Answering Codex's own approval prompt from cctop, against the real Codex TUI: Codex 0.169.0 runs in
 * a tmux pane as a person starts it, with `approval_policy = "on-request"` and a read-only sandbox,
 * cctop's watching hooks installed (`cctop hooks install --agent codex`), against the lab's stand-in
 * model, whose `escalate` script asks to run a command outside the sandbox. Codex's hook runs before
 * its prompt, so nothing is held: `cctop approve` reads the prompt off the pane's screen and presses
 * its key. Each test checks what reached the model in the stand-in's request log, the command's
 * effect in the working directory, and the line `approvals.jsonl` keeps.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApprovalJournal } from '../../src/approvals/store.js';
import type { SessionDocument } from '../../src/model/document.js';
import { type Ran, runCli } from '../../src/test-support/cli-run.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { agentBin, labEnv, makeHome, PINS, removeLabTree } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { promptFor } from './conformance.js';

const pin = PINS.codex;
const bin = agentBin('codex');
const missing = !HAVE_TMUX
  ? 'tmux is not installed; apt-get install tmux'
  : !bin
    ? `${pin.package}@${pin.version} is not installed; npm run agents`
    : null;

/** How long a step may take: Codex starts in a few seconds; a loaded two-core machine takes longer. */
const PATIENCE_MS = 60_000;
/** A test's own limit: a few patiences, for a test that waits on several steps. */
const TEST_MS = 4 * PATIENCE_MS;
/** How often the request log and the session list are looked at while waiting. */
const POLL_MS = 250;

/** The command the `escalate` script asks to run; it waits for `lab-gate` before it touches its file. */
const MADE = 'lab-escalated.txt';
const GATE = 'lab-gate';
/** The heading of Codex's prompt, and its words once the prompt was answered each way. */
const PROMPT = 'Would you like to run the following command?';
const APPROVED = '✔ You approved codex to run';
const CANCELED = '✗ You canceled the request to run';

interface Session {
  /** Where the stand-in's request log stood when the session started: its requests come after. */
  from: number;
  term: Terminal;
  /** cctop's environment beside the agent. */
  env: Record<string, string>;
  cwd: string;
  runtime: string;
}

let server: LabServer;
let root: string;
let n = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Codex in a tmux pane with cctop's watching hooks, asked to follow the `escalate` script. */
async function startCodex(): Promise<Session> {
  const dir = join(root, `s${++n}`);
  const from = server.ledger.length;
  const { home, cwd } = makeHome(dir);
  codexRecipe.setup(home, server.url);
  // Asks before a command the model wants run outside its sandbox; the folder trusted as a person
  // answers Codex's first question in it, so it opens at its prompt.
  const config = join(home, '.codex', 'config.toml');
  writeFileSync(
    config,
    `approval_policy = "on-request"\nsandbox_mode = "read-only"\n${readFileSync(config, 'utf8')}\n[projects."${cwd}"]\ntrust_level = "trusted"\n`,
  );
  const runtime = join(dir, 'run');
  const lab = labEnv(home, server.url);
  const agentEnv: Record<string, string> = {
    ...lab,
    ...codexRecipe.env(home, server.url),
    PATH: `${dirname(bin!)}:${lab.PATH ?? ''}`,
    TERM: 'xterm-256color',
    CCTOP_RUNTIME_DIR: runtime,
  };
  const env = { ...agentEnv, TMPDIR: tmpdir(), XDG_CACHE_HOME: join(dir, 'cache') };
  const install = await runCli(['hooks', 'install', '--agent', 'codex'], env);
  expect(install.code, install.err).toBe(0);
  const term = new Terminal(`cctop-keys-${process.pid}-${n}`, 'codex', PATIENCE_MS);
  const sh = join(dir, 'codex.sh');
  // `--dangerously-bypass-hook-trust` trusts the hooks file cctop just wrote for this run, as a person
  // does by choosing "Trust all and continue" at Codex's "Hooks need review".
  writeFileSync(
    sh,
    `cd '${cwd}' && env -i ${envWords(agentEnv)} '${bin}' --dangerously-bypass-hook-trust '${promptFor('escalate')}'\nexec sleep 600\n`,
  );
  term.tmux('new-session', '-d', '-s', 'codex', '-x', '150', '-y', '40', `sh '${sh}'`);
  return { from, term, env, cwd, runtime };
}

/** The session cctop shows waiting, once it does (its whole id: Codex keeps a second session beside it). */
async function waitingSession(s: Session): Promise<string> {
  const deadline = Date.now() + PATIENCE_MS;
  let last = '';
  for (;;) {
    const r = await runCli(['--json'], s.env);
    last = r.out;
    const doc = JSON.parse(r.out) as SessionDocument;
    const waiting = doc.sessions.filter((x) => x.provider === 'codex' && x.state === 'waiting');
    if (waiting.length === 1) return waiting[0]!.id;
    if (Date.now() > deadline)
      throw new Error(
        `no Codex session read as waiting: ${last.slice(0, 2000)}\n${s.term.screen().join('\n')}`,
      );
    await sleep(POLL_MS);
  }
}

/** The tool results the model was sent with the script's second step (after the call). */
async function resultsAfterCall(s: Session): Promise<string[]> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const e = server.ledger.slice(s.from).find((l) => l.script === 'escalate' && l.step === 1 && !l.aux);
    if (e) return e.results;
    if (Date.now() > deadline)
      throw new Error(`the model never got the call's result; the screen:\n${s.term.screen().join('\n')}`);
    await sleep(POLL_MS);
  }
}

/** The screen without its timer line ("• Working (5s • esc to interrupt)"), which moves on its own. */
const still = (s: Session): string[] => s.term.screen().filter((l) => !/Working \(\d+/.test(l));

const approve = (s: Session, ...args: string[]): Promise<Ran> => runCli(['approve', ...args], s.env);

/** The live table beside the session, its Codex row selected with the filter (Codex keeps a second session beside it). */
async function tableOn(s: Session, name: string): Promise<Terminal> {
  const table = new Terminal(`cctop-keys-${name}-${process.pid}`, 'table', PATIENCE_MS);
  try {
    table.cctop(dirname(s.runtime), { ...s.env, TERM: 'xterm-256color', LANG: 'C.UTF-8' }, '');
    await table.until('the Codex session', (l) => l.join('\n').includes('lab script escalate'));
    table.keys('/');
    table.tmux('send-keys', '-t', 'table', '-l', 'lab:escalate');
    table.keys('Enter');
    return table;
  } catch (err) {
    table.stop();
    throw err;
  }
}

describe.skipIf(missing !== null)(
  `${pin.package}@${pin.version} TUI: cctop approve presses its prompt's key in its tmux pane${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    const sessions: Session[] = [];
    beforeAll(async () => {
      server = await startLabServer();
      server.release();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-keys-'));
    });
    /**
     * Codex started, its prompt on screen and its session read as waiting. With the gate `open` the
     * command, once allowed, runs at once; `shut`, it waits until the test opens the gate.
     */
    async function atPrompt(gate: 'open' | 'shut'): Promise<{ s: Session; id: string }> {
      const s = await startCodex();
      sessions.push(s);
      if (gate === 'open') writeFileSync(join(s.cwd, GATE), '');
      await s.term.until('its prompt', (l) => l.join('\n').includes(PROMPT));
      return { s, id: await waitingSession(s) };
    }
    afterAll(async () => {
      for (const s of sessions) s.term.stop();
      await server?.close();
      if (root) removeLabTree(root);
    });

    it(
      'cctop approve allow presses y at the prompt: the command runs and the model gets its output',
      async () => {
        const { s, id } = await atPrompt('open');
        const r = await approve(s, id.slice(0, 8), 'allow');
        expect(r.err).toBe('');
        expect(r.out).toMatch(
          new RegExp(
            `^Answered \\(allow\\): Bash .*touch ${MADE} && echo lab-escalated of ${id}: pressed y \\("Yes, proceed"\\) in tmux pane %\\d+ \\(pid \\d+\\)\\n$`,
          ),
        );
        expect(r.code).toBe(0);
        const results = await resultsAfterCall(s);
        expect(results.some((t) => t.includes('lab-escalated'))).toBe(true);
        expect(existsSync(join(s.cwd, MADE))).toBe(true);
        await s.term.until('the approval in its history', (l) => l.some((x) => x.startsWith(APPROVED)));
        const typed = readApprovalJournal(s.runtime).filter((j) => j.kind === 'typed');
        expect(typed).toHaveLength(1);
        expect(typed[0]).toMatchObject({
          request: { agent: 'codex', session: id, tool: 'Bash' },
          answer: { verdict: { kind: 'allow' }, by: { via: 'cli' } },
          key: 'y',
          closed: true,
        });
        expect(typed[0]!.kind === 'typed' && typed[0]!.where).toMatch(/^tmux pane %\d+ \(pid \d+\)$/);
      },
      TEST_MS,
    );

    it(
      'cctop pending lists the call answered by keys, and the live table answers it: a shows the command, y presses its key, and the command runs',
      async () => {
        const { s, id } = await atPrompt('open');
        const listed = await runCli(['pending'], s.env);
        expect([listed.code, listed.err]).toEqual([0, '']);
        expect(listed.out).toMatch(
          new RegExp(
            `^${id}  codex  permission  waiting \\d+ s, answered by keys  Bash .*touch ${MADE} && echo lab-escalated\\n$`,
          ),
        );
        const table = await tableOn(s, 'allow');
        try {
          table.keys('a');
          await table.until('the question', (l) =>
            l.some(
              (x) => x.includes('Allow Bash: ') && x.includes(`touch ${MADE}`) && x.includes('y: allow'),
            ),
          );
          table.keys('y');
          await table.until('the answer taken', (l) =>
            l.some((x) => x.includes(`allowed: `) && x.includes(MADE)),
          );
        } finally {
          table.stop();
        }
        const results = await resultsAfterCall(s);
        expect(results.some((t) => t.includes('lab-escalated'))).toBe(true);
        expect(existsSync(join(s.cwd, MADE))).toBe(true);
        expect(readApprovalJournal(s.runtime)).toMatchObject([
          {
            kind: 'typed',
            request: { agent: 'codex', session: id },
            answer: { verdict: { kind: 'allow' }, by: { via: 'table' } },
            key: 'y',
            closed: true,
          },
        ]);
      },
      TEST_MS,
    );

    it(
      'the live table denies it: d asks for a reason, Enter presses Escape, the command never runs, and the status line says the deny ended the turn and the reason was not delivered',
      async () => {
        const { s, id } = await atPrompt('open');
        const table = await tableOn(s, 'deny');
        try {
          table.keys('d');
          await table.until('the reason asked for', (l) =>
            l.some(
              (x) => x.includes('Deny Bash: ') && x.includes(`touch ${MADE}`) && x.includes('Enter: deny'),
            ),
          );
          table.tmux('send-keys', '-t', 'table', '-l', 'not here');
          table.keys('Enter');
          await table.until('the answer taken', (l) =>
            l.some((x) =>
              x.includes(
                "denied, ending Codex's turn; the reason was not delivered (Codex's prompt takes no words): ",
              ),
            ),
          );
        } finally {
          table.stop();
        }
        await s.term.until('the cancel in its history', (l) => l.some((x) => x.startsWith(CANCELED)));
        expect(existsSync(join(s.cwd, MADE))).toBe(false);
        expect(readApprovalJournal(s.runtime)).toMatchObject([
          {
            kind: 'typed',
            request: { agent: 'codex', session: id },
            answer: { verdict: { kind: 'deny', reason: 'not here' }, by: { via: 'table' } },
            key: 'Escape',
            closed: true,
          },
        ]);
      },
      TEST_MS,
    );

    it(
      'cctop approve deny presses esc: the command never runs, the model is told it was aborted, and the reason is said to be undelivered',
      async () => {
        const { s, id } = await atPrompt('open');
        const r = await approve(s, id, 'deny', '--reason', 'use the staging directory');
        expect(r.out).toMatch(
          new RegExp(
            `^Answered \\(deny\\): Bash .* of ${id}: pressed Escape \\("No, and tell Codex what to do differently"\\) in tmux pane %\\d+`,
          ),
        );
        expect(r.err).toBe(
          `cctop: the reason was not delivered: Codex's prompt takes no words (tell it with cctop send ${id.slice(0, 12)} TEXT)\ncctop: the deny ends its turn: the model is told the call was aborted by the user\n`,
        );
        expect(r.code).toBe(0);
        await s.term.until('the cancel in its history', (l) => l.some((x) => x.startsWith(CANCELED)));
        // The model hears of the call with the next prompt: the turn ended on the cancel.
        const sent = await runCli(['send', id, 'carry on'], s.env);
        expect(sent.code, sent.err).toBe(0);
        const results = await resultsAfterCall(s);
        expect(results.some((t) => t.includes('aborted by user'))).toBe(true);
        expect(results.some((t) => t.includes('lab-escalated'))).toBe(false);
        expect(existsSync(join(s.cwd, MADE))).toBe(false);
        const typed = readApprovalJournal(s.runtime).filter((j) => j.kind === 'typed');
        expect(typed).toMatchObject([
          { answer: { verdict: { kind: 'deny', reason: 'use the staging directory' } }, key: 'Escape' },
        ]);
      },
      TEST_MS,
    );

    it(
      'with its prompt answered by hand, cctop approve refuses and types nothing, though its hooks still say it waits',
      async () => {
        const { s, id } = await atPrompt('shut');
        // Allowed at the terminal: the command now waits for the gate, so its hooks' newest word is
        // still the permission request (the call has not ended).
        s.term.keys('y');
        await s.term.until('the approval by hand', (l) => l.some((x) => x.startsWith(APPROVED)));
        const before = still(s);
        const r = await approve(s, id, 'deny');
        expect([r.code, r.out, r.err]).toEqual([
          4,
          '',
          'cctop: refused: no approval prompt is on its screen; answer it in its own terminal\n',
        ]);
        expect(still(s)).toEqual(before);
        const refused = readApprovalJournal(s.runtime);
        expect(refused).toMatchObject([
          { kind: 'refused', request: { session: id }, why: expect.stringContaining('no approval prompt') },
        ]);
        // The call allowed by hand runs once the gate is there, and only it reaches the model.
        writeFileSync(join(s.cwd, GATE), '');
        const results = await resultsAfterCall(s);
        expect(results.some((t) => t.includes('lab-escalated'))).toBe(true);
        expect(existsSync(join(s.cwd, MADE))).toBe(true);
      },
      TEST_MS,
    );
  },
);
