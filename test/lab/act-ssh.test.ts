/**
 * `cctop attach --host H ID` over a real sshd on 127.0.0.1 (`src/test-support/sshd.ts`): a real
 * Claude Code started by `cctop run` on the "remote" side (its own home and runtime directory, the
 * cctop there named by `box:<path>`), detached, then taken back from another terminal over ssh and
 * typed into there: the prompt reaches the stand-in model, and the agent's `/exit` is the local
 * cctop's exit code, through ssh.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTER_AFTER_MS } from '../../src/act/typing.js';
import type { SessionDocument } from '../../src/model/document.js';
import { ptyRuns } from '../../src/runtime/pty-client.js';
import { CLI, runCli } from '../../src/test-support/cli-run.js';
import { agentBin, labEnv, makeHome, removeLabTree } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { HAVE_SSHD, NO_SSHD_REASON, TestSshd } from '../../src/test-support/sshd.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { alive, PATIENCE_MS, until } from './act-tui.js';

const CLAUDE = agentBin('claude');
const SKIP = !HAVE_TMUX
  ? 'tmux is not installed; apt-get install tmux'
  : !HAVE_SSHD
    ? NO_SSHD_REASON
    : CLAUDE === null
      ? 'Claude Code is not installed for the lab; npm run agents'
      : null;

/** A made-up key; Claude Code's approval list keeps its last 20 characters. */
const API_KEY = 'sk-ant-lab-act-ssh-000000000000000000000';

describe.skipIf(SKIP !== null)(
  `cctop attach --host takes back a real Claude Code over a real sshd${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    let server: LabServer;
    let sshd: TestSshd;
    let root: string;

    beforeAll(async () => {
      server = await startLabServer();
      sshd = new TestSshd();
      sshd.alias({ name: 'box' });
      await sshd.start();
      root = mkdtempSync(join(tmpdir(), 'cctop-act-ssh-'));
    });

    afterAll(async () => {
      await sshd?.cleanup();
      await server?.close();
      if (root) removeLabTree(root);
    });

    it(
      'an agent cctop run started is attached over ssh and typed into; its /exit is the exit code',
      async () => {
        // The far side: a home, the runtime directory the remote cctop uses (`remoteCctop`), the agent.
        const { home, cwd } = makeHome(root);
        writeFileSync(
          join(home, '.claude.json'),
          JSON.stringify({
            hasCompletedOnboarding: true,
            projects: { [cwd]: { hasTrustDialogAccepted: true } },
            customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
          }),
        );
        const remoteCctop = sshd.remoteCctop(home);
        const lab = labEnv(home, server.url);
        const farEnv: Record<string, string> = {
          ...lab,
          PATH: `${dirname(CLAUDE!)}:${lab.PATH ?? ''}`,
          TERM: 'xterm-256color',
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: API_KEY,
          CCTOP_RUNTIME_DIR: join(home, 'run'),
          CCTOP_CACHE_DIR: join(home, '.cache', 'cctop'),
        };
        // The near side: another home and runtime directory, and ssh through the test's sshd.
        const near = makeHome(join(root, 'near'));
        const nearEnv: Record<string, string> = {
          PATH: lab.PATH ?? '',
          HOME: near.home,
          TERM: 'xterm-256color',
          LANG: 'C.UTF-8',
          CCTOP_RUNTIME_DIR: sshd.runtimeDir,
          CCTOP_SSH: sshd.ssh,
        };
        const term = new Terminal(`cctop-act-ssh-${process.pid}`, 'none', PATIENCE_MS);
        const window = (name: string, env: Record<string, string>, dir: string, args: string) => {
          const script = join(root, `${name}.sh`);
          writeFileSync(
            script,
            `cd '${dir}' && env -i ${envWords(env)} '${process.execPath}' '${CLI}' ${args}\necho "cctop exited $?"\nexec sleep 600\n`,
          );
          return term.open(name, `sh '${script}'`);
        };
        try {
          const far = window('far', farEnv, cwd, "run claude '[lab:text] first, on the far side'");
          await far.until('the first answer', (l) => l.join('\n').includes('pong: the lab answers'));
          const [run] = ptyRuns(farEnv);
          expect(run?.agent).toBe('claude');
          far.keys('C-\\');
          far.keys('d');
          await far.until('the detach', (l) => l.some((x) => x.startsWith('cctop exited 0')));

          // By the session's id, which the far cctop resolves from the far home. The near terminal
          // opens before the far one closes: a tmux server whose last window closed is still
          // exiting, and drops a window opened at that moment.
          const doc = JSON.parse((await runCli(['--json'], farEnv)).out) as SessionDocument;
          const id = doc.sessions.find((s) => s.provider === 'claude')!.id;
          const nearTerm = window('near', nearEnv, near.cwd, `attach --host 'box:${remoteCctop}' ${id}`);
          far.tmux('kill-session', '-t', 'far');
          expect(alive(run!.pid)).toBe(true);
          await nearTerm.until('the conversation over ssh', (l) =>
            l.join('\n').includes('pong: the lab answers'),
          );
          const before = server.ledger.length;
          nearTerm.tmux('send-keys', '-t', 'near', '-l', '[lab:resume] typed over ssh');
          await new Promise((r) => setTimeout(r, ENTER_AFTER_MS));
          nearTerm.keys('Enter');
          await until('the prompt typed over ssh at the model', () =>
            server.ledger.slice(before).some((e) => e.script === 'resume' && !e.aux),
          );
          await nearTerm.until('its answer over ssh', (l) =>
            l.join('\n').includes('Resumed: the second turn is answered.'),
          );
          // An sshd session of this test's sshd carries it (not a local attach).
          expect(sshd.log).toMatch(/Accepted publickey for /);

          nearTerm.tmux('send-keys', '-t', 'near', '-l', '/exit');
          await new Promise((r) => setTimeout(r, ENTER_AFTER_MS));
          nearTerm.keys('Enter');
          await nearTerm.until('cctop ending with the agent', (l) =>
            l.some((x) => x.startsWith('cctop exited 0')),
          );
          await until('the agent gone', () => !alive(run!.pid));
        } finally {
          for (const r of ptyRuns(farEnv)) if (alive(r.pid)) process.kill(r.pid, 'SIGKILL');
          term.stop();
        }
      },
      4 * PATIENCE_MS,
    );
  },
);
