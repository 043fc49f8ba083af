/**
 * A Qwen Code turn stopped at a tool call, in the real 0.24.4 TUI in a tmux pane: the model asks for
 * a shell command that needs the person's approval, `cctop stop` presses Escape at the question, and
 * Qwen Code records the call's result as `cancelled` and asks the model nothing more. The session
 * then reads idle (interrupted), not working until its next turn.
 *
 * What this does not cover: a turn stopped before the model said anything (act-qwen.test.ts), which
 * 0.24.4 writes nowhere in its chat, so that session still reads working (docs/limits.md).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../src/model/document.js';
import { runCli } from '../../src/test-support/cli-run.js';
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import { agentBin, labEnv, makeHome, PINS, removeLabTree } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { envWords, HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { PATIENCE_MS } from './act-tui.js';

const pin = PINS.qwen;
const bin = agentBin('qwen');
const skip = !HAVE_TMUX
  ? 'tmux is not installed; apt-get install tmux'
  : bin === null
    ? `${pin.package}@${pin.version} is not installed for the lab; npm run agents`
    : null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The one Qwen Code session as `cctop --json` reads it. */
async function theSession(env: Record<string, string>) {
  const r = await runCli(['--json'], env);
  const doc = JSON.parse(r.out) as SessionDocument;
  const mine = doc.sessions.filter((s) => s.provider === 'qwen');
  return mine.length === 1 ? mine[0]! : null;
}

/** Until `cctop --json` reads the one session in `state`, within the patience. */
async function untilState(env: Record<string, string>, state: string) {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const s = await theSession(env);
    if (s !== null && s.state === state) return s;
    if (Date.now() > deadline)
      throw new Error(`the session never read as ${state}: ${JSON.stringify(s && [s.state, s.stateDetail])}`);
    await sleep(500);
  }
}

describe.skipIf(skip !== null)(
  `a stopped ${pin.package}@${pin.version} turn in a tmux pane${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-qwen-stop-'));
    });
    afterAll(async () => {
      await server?.close();
      if (root) removeLabTree(root);
    });

    it(
      'cctop stop at a call waiting for approval refuses it; the model is asked nothing more, and the session reads idle (interrupted), not working',
      async () => {
        const { home, cwd } = makeHome(join(root, 'pane'));
        qwenRecipe.setup(home, server.url);
        const lab = labEnv(home, server.url);
        const env: Record<string, string> = {
          ...lab,
          ...qwenRecipe.env(home, server.url),
          PATH: `${dirname(bin!)}:${lab.PATH ?? ''}`,
          TERM: 'xterm-256color',
          CCTOP_RUNTIME_DIR: join(root, 'run'),
          TMPDIR: tmpdir(),
          XDG_CACHE_HOME: join(root, 'cache'),
        };
        const script = join(root, 'pane.sh');
        // `--approval-mode default`: the shell call waits for the person (0.24.4's own default asks
        // a classifier model first, which the lab does not stand in for).
        const args = [
          '--auth-type',
          'openai',
          '--model',
          'qwen3-coder-plus',
          '--approval-mode',
          'default',
          '-i',
        ];
        writeFileSync(
          script,
          `cd '${cwd}' && env -i ${envWords(env)} '${bin}' ${args.join(' ')} '[lab:approve] make the file'\necho "agent exited $?"\nexec sleep 600\n`,
        );
        const term = new Terminal(`cctop-qwen-stop-${process.pid}`, 'agent', PATIENCE_MS);
        try {
          term.tmux('new-session', '-d', '-s', 'agent', '-x', '150', '-y', '40', `sh '${script}'`);
          // 0.24.4 asks "Allow execution of: 'touch'?" and shows "Waiting for user confirmation...".
          await term.until('the call waiting for approval', (l) =>
            l.join('\n').includes('Waiting for user confirmation'),
          );
          const asked = server.ledger.length;
          const waiting = await untilState(env, 'working');
          expect(waiting.running).toBe(true);

          const stopped = await runCli(['stop', waiting.id], env);
          expect(stopped.err).toBe('');
          expect(stopped.out.startsWith('pressed Escape in ')).toBe(true);
          expect(stopped.code).toBe(0);
          await term.until(
            'the question gone',
            (l) => !l.join('\n').includes('Waiting for user confirmation'),
          );

          const after = await untilState(env, 'idle');
          expect([after.id, after.stateDetail, after.running]).toEqual([waiting.id, 'interrupted', true]);
          // The call never ran, and the model was asked nothing after the refusal.
          expect(existsSync(join(cwd, 'lab-approved.txt'))).toBe(false);
          expect(server.ledger.slice(asked).filter((e) => !e.aux)).toEqual([]);
        } finally {
          term.stop();
        }
      },
      4 * PATIENCE_MS,
    );
  },
);
