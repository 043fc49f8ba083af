/**
 * Typing into a session's own terminal: the real Claude Code TUI in a tmux pane, as a person starts
 * it, against the lab's stand-in model server. `cctop send` types a prompt that reaches the model (the
 * server's ledger), `cctop stop` presses Escape in a held turn, `cctop wait` sees the session settle;
 * and a pane cctop cannot prove (an agent outside tmux, two agents of a kind in one directory with no
 * session named on their command lines) is refused, with nothing typed anywhere.
 *
 * The stand-ins for the refusals are `sleep` started under the name `claude`: the process table takes
 * them for Claude Code, and they hold still while the test looks.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTER_AFTER_MS } from '../../src/act/typing.js';
import { watchedStates } from '../../src/live/agent-state.js';
import type { SessionDocument } from '../../src/model/document.js';
import { ptyRuns } from '../../src/runtime/pty-client.js';
import { claudeRecord, prompt } from '../../src/test-support/claude-records.js';
import { CLI, runCli } from '../../src/test-support/cli-run.js';
import { agentBin, labEnv, makeHome, removeLabTree } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { Tokens } from '../../src/views/serve/auth.js';
import { HAVE_CHROMIUM, launch, NO_CHROMIUM_REASON } from '../serve/chromium.js';
import { serve as startServe, TOKEN } from '../serve/helpers.js';

const CLAUDE = agentBin('claude');
const SKIP = !HAVE_TMUX
  ? 'skipped: tmux is not installed; apt-get install tmux'
  : CLAUDE === null
    ? 'skipped: Claude Code is not installed for the lab; npm run agents'
    : null;

/** How long the TUI may take to start, answer, or show a screen on a busy two-core machine. */
const PATIENCE_MS = 30_000;
/** A test's own limit: two patiences, for a step that waits twice. */
const TEST_MS = 2 * PATIENCE_MS + 10_000;

/** A made-up key, long enough that its last 20 characters are what Claude Code's approval list keeps. */
const API_KEY = 'sk-ant-lab-0000000000000000000000000000';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // No such process (any more).
    return false;
  }
};

/** Wait for `ok`, polling, within the patience; fail naming `what`. */
async function until<T>(what: string, ok: () => T | null | undefined | false): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const v = ok();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await sleep(200);
  }
}

/** Every transcript under a Claude home, by session id. */
function sessionsIn(home: string): string[] {
  const root = join(home, '.claude', 'projects');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length)),
  );
}

describe.skipIf(SKIP !== null)(
  `cctop types into a real Claude Code in tmux${SKIP ? ` (${SKIP})` : ''}`,
  () => {
    let server: LabServer;
    let root: string;
    let home: string;
    let cwd: string;
    let term: Terminal;
    let cctopEnv: Record<string, string>;
    let id: string;

    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-act-'));
      ({ home, cwd } = makeHome(root));
      // Claude Code's first-run dialogs, answered as a person who has used it would have.
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          projects: { [cwd]: { hasTrustDialogAccepted: true } },
          customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        }),
      );
      const env: Record<string, string> = {
        ...labEnv(home, server.url),
        TERM: 'xterm-256color',
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: API_KEY,
      };
      const script = join(root, 'claude.sh');
      writeFileSync(
        script,
        `cd '${cwd}' && exec env -i ${envWords(env)} '${CLAUDE}' '[lab:text] first prompt'\n`,
      );
      term = new Terminal(`cctop-act-${process.pid}`, 'agent', PATIENCE_MS);
      term.open('agent', `sh '${script}'`);
      await term.until('the first answer', (l) => l.join('\n').includes('pong: the lab answers'));
      id = await until('the session file', () => sessionsIn(home)[0]);
      cctopEnv = {
        HOME: home,
        PATH: env.PATH ?? '',
        TMPDIR: tmpdir(),
        CCTOP_RUNTIME_DIR: join(root, 'run'),
        XDG_CACHE_HOME: join(root, 'cache'),
      };
    }, TEST_MS);

    afterAll(async () => {
      // The pane runs Claude Code itself (the script execs it): wait for it to end before removing its home.
      const agent = Number(term?.tmux('display-message', '-p', '-t', 'agent', '#{pane_pid}').stdout.trim());
      term?.stop();
      if (agent > 0) await until('Claude Code gone', () => !alive(agent)).catch(() => null);
      await server?.close();
      // The agent may still be writing its files as tmux ends it.
      if (root) removeLabTree(root);
    });

    it(
      'a prompt typed by cctop send reaches the model, and the answer shows in the pane',
      async () => {
        const before = server.ledger.length;
        const r = await runCli(['send', id.slice(0, 8), '[lab:resume] typed by cctop send'], cctopEnv);
        expect(r.err).toBe('');
        expect(r.code).toBe(0);
        expect(r.out).toMatch(/^typed 32 characters and Enter into tmux pane %\d+ \(pid \d+\), session /);
        await until('the typed prompt at the model', () =>
          server.ledger.slice(before).some((e) => e.script === 'resume'),
        );
        await term.until('the answer to the typed prompt', (l) =>
          l.join('\n').includes('Resumed: the second turn is answered.'),
        );
      },
      TEST_MS,
    );

    it(
      'cctop wait sees the session idle once its turn is over',
      async () => {
        const r = await runCli(['wait', id, '--until', 'idle', '--timeout', '60'], cctopEnv);
        expect(r.err).toBe('');
        expect(r.out).toBe(`session ${id.slice(0, 12)} is idle\n`);
        expect(r.code).toBe(0);
      },
      TEST_MS,
    );

    it(
      "the live table's s types a line into the selected session's pane",
      async () => {
        const table = new Terminal(term.socket, 'table', PATIENCE_MS);
        table.cctop(root, cctopEnv, '');
        await table.until('the session in the table', (l) => l.some((x) => x.includes(id.slice(0, 8))));
        const before = server.ledger.length;
        table.keys('s');
        await table.until('the line to type', (l) =>
          l.some((x) => x.startsWith(`Send to ${id.slice(0, 12)}: █  Enter: send  Esc: cancel`)),
        );
        table.tmux('send-keys', '-t', 'table', '-l', '[lab:call] from the table');
        table.keys('Enter');
        await table.until('the table saying where it typed', (l) =>
          l.some((x) => /^typed into tmux pane %\d+ \(pid \d+\)/.test(x)),
        );
        await until("the table's prompt at the model", () =>
          server.ledger.slice(before).some((e) => e.script === 'call' && !e.aux),
        );
        await term.until("the answer in the agent's pane", (l) =>
          l.join('\n').includes('The command printed lab-call-ok.'),
        );
        table.tmux('kill-session', '-t', 'table');
      },
      TEST_MS,
    );

    it.skipIf(!HAVE_CHROMIUM)(
      `the session page's box types a line into the pane, with the full token only${HAVE_CHROMIUM ? '' : ` (skipped: ${NO_CHROMIUM_REASON})`}`,
      async () => {
        // As `cctop serve` runs: the process table and the agents' own word settle the states.
        const serve = await startServe(
          { env: cctopEnv },
          { providers: ['claude'], ...watchedStates(cctopEnv) },
        );
        const browser = await launch();
        try {
          const page = await browser.page();
          const base = `http://127.0.0.1:${serve.port}`;
          const box = page.locator('section.send');
          const before = server.ledger.length;

          // The read-only link: the box is there, and the server refuses to type.
          await page.goto(`${base}/session/${id}?t=${new Tokens(TOKEN).read}`);
          await box.waitFor({ timeout: PATIENCE_MS });
          await box.locator('input.send-text').fill('[lab:parallel] from a read-only link');
          await box.locator('button.send-button').click();
          await expect
            .poll(() => box.locator('.send-status').textContent(), { timeout: PATIENCE_MS })
            .toBe('Not typed: this link is read-only: it cannot type into sessions.');

          // The full link: the line reaches the model.
          await page.goto(`${base}/session/${id}?t=${TOKEN}`);
          await box.waitFor({ timeout: PATIENCE_MS });
          await box.locator('input.send-text').fill('[lab:parallel] from the dashboard');
          await box.locator('button.send-button').click();
          await expect
            .poll(() => box.locator('.send-status').textContent(), { timeout: PATIENCE_MS })
            .toMatch(/^Typed into tmux pane %\d+ \(pid \d+\)\.$/);
          await until("the dashboard's prompt at the model", () =>
            server.ledger.slice(before).some((e) => e.script === 'parallel' && !e.aux),
          );
          expect(
            server.ledger.slice(before).filter((e) => e.script === 'parallel' && !e.aux && e.step === 0),
          ).toHaveLength(1);
          await term.until("the answer in the agent's pane", (l) =>
            l.join('\n').includes('Both commands ran.'),
          );
          expect(browser.problems).toEqual([]);
        } finally {
          await browser.close();
          await serve.close();
        }
      },
      TEST_MS,
    );

    it(
      'cctop stop presses Escape in a turn the model holds, and Claude Code ends the turn',
      async () => {
        const before = server.ledger.length;
        expect((await runCli(['send', id, '[lab:hold] wait for it'], cctopEnv)).code).toBe(0);
        await until('the held turn at the model', () =>
          server.ledger.slice(before).some((e) => e.script === 'hold' && !e.aux),
        );
        await term.until('the turn working', (l) => l.join('\n').includes('esc to interrupt'));
        const r = await runCli(['stop', id], cctopEnv);
        expect(r.err).toBe('');
        expect(r.out).toMatch(/^pressed Escape in tmux pane %\d+ \(pid \d+\), session /);
        expect(r.code).toBe(0);
        // Claude Code 2.1.328 ends the turn and puts the interrupted prompt back in its input box.
        const after = await term.until('the turn ended', (l) => !l.join('\n').includes('esc to interrupt'));
        const rules = after.flatMap((line, i) => (line.startsWith('────') ? [i] : []));
        const input = after.slice(rules.at(-2)! + 1, rules.at(-1)).map((l) => l.replace(/\s+/g, ' ').trim());
        expect(input).toEqual(['❯ [lab:hold] wait for it']);
        server.release();
      },
      TEST_MS,
    );

    it('text with a control character is refused before anything is typed', async () => {
      const before = server.ledger.length;
      const r = await runCli(['send', id, 'one\nline two'], cctopEnv);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        'cctop: send: the text holds a control character (U+000A at character 4); cctop types one line of plain text\n',
      );
      expect(server.ledger.length).toBe(before);
    });

    describe('a pane cctop cannot prove is refused', () => {
      let fakes: number[] = [];
      let fakeHome: string;
      let place: string;
      const fakeId = 'c0000000-0000-4000-8000-00000000a0e1';

      beforeAll(() => {
        fakeHome = join(root, 'fake-home');
        place = join(root, 'fake-work');
        mkdirSync(place, { recursive: true });
        const bin = join(root, 'bin');
        mkdirSync(bin, { recursive: true });
        symlinkSync('/bin/sleep', join(bin, 'claude'));
        const dir = join(fakeHome, '.claude', 'projects', place.replace(/[/.]/g, '-'));
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, `${fakeId}.jsonl`),
          claudeRecord(fakeId, place, Date.now(), 'u1', prompt('hi')),
        );
      });

      const end = (pid: number) => {
        try {
          process.kill(pid);
        } catch {
          // Already gone.
        }
      };
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };

      afterAll(() => {
        for (const f of fakes) end(f);
      });

      /**
       * A stand-in started by a shell that exits at once, so it hangs from init rather than from this
       * test: were the test itself run in a tmux pane, cctop must not find that pane above it.
       */
      const fake = (): number => {
        const r = spawnSync('sh', ['-c', `'${join(root, 'bin', 'claude')}' 600 >/dev/null 2>&1 & echo $!`], {
          cwd: place,
          encoding: 'utf8',
        });
        const pid = Number(r.stdout.trim());
        fakes.push(pid);
        return pid;
      };

      it('an agent whose terminal is not tmux', async () => {
        const pid = fake();
        const r = await runCli(['send', fakeId, 'hello'], { ...cctopEnv, HOME: fakeHome });
        expect(r.out).toBe('');
        expect(r.err).toBe(
          `cctop: cannot type into session ${fakeId.slice(0, 12)}: its terminal is not a tmux pane, and cctop did not start it; start the agent inside tmux, or with cctop run\n`,
        );
        expect(r.code).toBe(1);
        end(pid);
        await until('the stand-in gone', () => !alive(pid));
        fakes = [];
      });

      it('two agents of a kind in one directory, neither naming the session', async () => {
        fake();
        fake();
        const r = await runCli(['send', fakeId, 'hello'], { ...cctopEnv, HOME: fakeHome });
        expect(r.err).toBe(
          `cctop: cannot type into session ${fakeId.slice(0, 12)}: 2 Claude Code processes run in ${place} and none names this session on its command line, so cctop cannot tell which is its; start it as claude --resume ${fakeId}, or with cctop run\n`,
        );
        expect(r.code).toBe(1);
      });

      it('a session with no process at all', async () => {
        for (const f of fakes) end(f);
        await until('the stand-ins gone', () => fakes.every((f) => !alive(f)));
        const r = await runCli(['send', fakeId, 'hello'], { ...cctopEnv, HOME: fakeHome });
        expect(r.err).toBe(
          `cctop: cannot type into session ${fakeId.slice(0, 12)}: cctop sees no process running it; resume it with cctop resume, or start the agent inside tmux or with cctop run\n`,
        );
        expect(r.code).toBe(1);
      });

      it('cctop resume outside tmux prints the resume command instead', async () => {
        const r = await runCli(['resume', fakeId], { ...cctopEnv, HOME: fakeHome });
        expect(r.err).toBe(
          `cctop: cannot resume session ${fakeId.slice(0, 12)}: cctop is not running inside tmux, so there is no window to open; run it yourself: cd ${place} && claude --resume ${fakeId}\n`,
        );
        expect(r.code).toBe(1);
      });

      it("cctop resume inside tmux opens a window running the harness's resume command in the session's directory", async () => {
        // A claude that writes down how it was started, first on the PATH.
        const bin = join(root, 'resume-bin');
        mkdirSync(bin, { recursive: true });
        const note = join(root, 'resumed.txt');
        writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho "$(pwd) $*" > '${note}'\nexec sleep 600\n`, {
          mode: 0o755,
        });
        const socket = term.tmux('display-message', '-p', '-t', 'agent', '#{socket_path}').stdout.trim();
        const server = term.tmux('display-message', '-p', '-t', 'agent', '#{pid}').stdout.trim();
        const r = await runCli(['resume', fakeId], {
          ...cctopEnv,
          HOME: fakeHome,
          PATH: `${bin}:${cctopEnv.PATH}`,
          TMUX: `${socket},${server},0`,
        });
        expect(r.err).toBe('');
        expect(r.out).toBe(`opened a tmux window running claude --resume ${fakeId}\n`);
        expect(r.code).toBe(0);
        expect(term.tmux('list-windows', '-a', '-F', '#{window_name}').stdout).toContain(
          `claude:${fakeId.slice(0, 8)}`,
        );
        expect(await until('the resumed claude', () => existsSync(note) && readFileSync(note, 'utf8'))).toBe(
          `${place} --resume ${fakeId}\n`,
        );
      });
    });
  },
);

describe.skipIf(SKIP !== null)(
  `cctop run holds a real Claude Code on its own pty${SKIP ? ` (${SKIP})` : ''}`,
  () => {
    let server: LabServer;
    let root: string;
    let home: string;
    let cwd: string;
    let term: Terminal;
    let env: Record<string, string>;

    /** A window running `cctop ARGS` as a person would, saying cctop's exit code when it ends. */
    const window = (name: string, args: string) => {
      const script = join(root, `${name}.sh`);
      writeFileSync(
        script,
        `cd '${cwd}' && env -i ${envWords(env)} '${process.execPath}' '${CLI}' ${args}\necho "cctop exited $?"\nexec sleep 600\n`,
      );
      return term.open(name, `sh '${script}'`);
    };

    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-run-'));
      ({ home, cwd } = makeHome(root));
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          projects: { [cwd]: { hasTrustDialogAccepted: true } },
          customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        }),
      );
      const bin = join(root, 'bin');
      mkdirSync(bin, { recursive: true });
      // A stand-in for an agent that ends with a code of its own (Claude Code's /exit ends with 0).
      writeFileSync(join(bin, 'pi'), '#!/bin/sh\necho "fake pi: press Enter"\nread line\nexit 7\n', {
        mode: 0o755,
      });
      const lab = labEnv(home, server.url);
      env = {
        ...lab,
        PATH: `${bin}:${dirname(CLAUDE!)}:${lab.PATH ?? ''}`,
        TERM: 'xterm-256color',
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: API_KEY,
        CCTOP_RUNTIME_DIR: join(root, 'run'),
      };
      term = new Terminal(`cctop-run-${process.pid}`, 'none', PATIENCE_MS);
    }, TEST_MS);

    afterAll(async () => {
      for (const r of ptyRuns(env ?? {})) if (alive(r.pid)) process.kill(r.pid, 'SIGKILL');
      term?.stop();
      await server?.close();
      if (root) removeLabTree(root);
    });

    it(
      'a typed prompt goes through its pty; it outlives its terminal; attach redraws it; /exit ends cctop with the agent',
      async () => {
        const first = window('first', "run claude '[lab:text] first under cctop run'");
        await first.until('the first answer', (l) => l.join('\n').includes('pong: the lab answers'));
        const id = await until('the session file', () => sessionsIn(home)[0]);
        const [run] = ptyRuns(env);
        expect(run?.agent).toBe('claude');

        // cctop send finds the run by the agent's pid and types through the pty, not tmux.
        const before = server.ledger.length;
        const sent = await runCli(['send', id, '[lab:resume] typed through the pty'], env);
        expect(sent.err).toBe('');
        expect(sent.out).toBe(
          `typed 34 characters and Enter into cctop's own terminal (run ${run!.id}), session ${id.slice(0, 12)}\n`,
        );
        await until('the typed prompt at the model', () =>
          server.ledger.slice(before).some((e) => e.script === 'resume'),
        );
        await first.until('its answer', (l) =>
          l.join('\n').includes('Resumed: the second turn is answered.'),
        );

        // Every view says cctop runs it: the document, the list.
        const doc = JSON.parse((await runCli(['--json'], env)).out) as SessionDocument;
        expect(doc.sessions.find((x) => x.id === id)?.process?.cctopRun).toBe(run!.id);
        const listed = (await runCli(['--list'], env)).out.split('\n');
        expect(listed.filter((l) => l.includes('[cctop run] work'))).toHaveLength(1);

        // Ctrl-\ then d: cctop ends with 0 and says how to come back; the agent runs on.
        first.keys('C-\\');
        first.keys('d');
        await first.until('the detach', (l) =>
          l.some((x) => x.includes(`[cctop: detached; the agent runs on: cctop attach ${run!.id}]`)),
        );
        await first.until('cctop ending', (l) => l.some((x) => x.startsWith('cctop exited 0')));
        // Another terminal takes it back by the session's id, and sees the conversation. It opens
        // before the first closes: a tmux server whose last window closed is still exiting, and
        // drops a window opened at that moment. Closing the first terminal does not end the agent.
        const second = window('second', `attach ${id}`);
        first.tmux('kill-session', '-t', 'first');
        expect(alive(run!.pid)).toBe(true);
        await second.until('the conversation again', (l) =>
          l.join('\n').includes('Resumed: the second turn is answered.'),
        );
        second.tmux('send-keys', '-t', 'second', '-l', '/exit');
        await sleep(ENTER_AFTER_MS);
        second.keys('Enter');
        await second.until('cctop ending with the agent', (l) =>
          l.some((x) => x.startsWith('cctop exited 0')),
        );
        await until('the agent gone', () => !alive(run!.pid));
        expect(ptyRuns(env)).toEqual([]);
        // The host ends with its last agent, taking its socket with it.
        await until('the pty host gone', () => !existsSync(join(env.CCTOP_RUNTIME_DIR!, 'pty.sock')));
      },
      TEST_MS * 2,
    );

    it(
      'a runtime directory that is a link is refused, and nothing starts',
      async () => {
        const real = join(root, 'real-run');
        mkdirSync(real, { mode: 0o700 });
        symlinkSync(real, join(root, 'linked-run'));
        const saved = env.CCTOP_RUNTIME_DIR!;
        env.CCTOP_RUNTIME_DIR = join(root, 'linked-run');
        try {
          const w = window('link', 'run pi');
          await w.until('the refusal', (l) =>
            l.some((x) =>
              x.startsWith(
                `cctop: the runtime directory ${join(root, 'linked-run')} is refused: it is not a directory`,
              ),
            ),
          );
          await w.until('cctop ending', (l) => l.some((x) => x.startsWith('cctop exited 1')));
          expect(readdirSync(real)).toEqual([]);
        } finally {
          env.CCTOP_RUNTIME_DIR = saved;
        }
      },
      TEST_MS,
    );

    it(
      "the agent's own exit code is cctop's",
      async () => {
        const w = window('code', 'run pi');
        await w.until('the stand-in asking', (l) => l.some((x) => x.includes('fake pi: press Enter')));
        w.keys('Enter');
        await w.until('cctop ending with the code', (l) => l.some((x) => x.startsWith('cctop exited 7')));
      },
      TEST_MS,
    );
  },
);
