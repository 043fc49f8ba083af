/**
 * `cctop exec --all --approvals ask` in a real terminal (tmux) over the lab: Claude Code and Codex
 * (under `--permission edit`) both ask before the `fail` script's shell command, on the one terminal,
 * one question at a time,
 * each labelled with the agent that asks; Gemini CLI, which cannot ask, runs without asking and the
 * command says so. One question is allowed and the other denied, and the stand-in's request log
 * shows which agent's model was told what.
 *
 * Skipped, saying why, when an agent is not installed (npm run agents), cctop is not built or tmux
 * is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../src/test-support/cli-run.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { agentBin, labEnv, makeHome, type Recipe } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { promptFor } from './conformance.js';

const RECIPES: Recipe[] = [claudeRecipe, codexRecipe, geminiRecipe];
const missing = RECIPES.filter((r) => agentBin(r.id) === null).map((r) => r.id);
const why =
  missing.length > 0
    ? `${missing.join(', ')} not installed (npm run agents)`
    : !existsSync(CLI)
      ? `${CLI} is not built (npm run build)`
      : 'tmux is not installed; apt-get install tmux';
const ready = missing.length === 0 && existsSync(CLI) && HAVE_TMUX;

/** How long one step may take: three agents start at once on a loaded two-core machine. */
const PATIENCE_MS = 120_000;

/** The questions on the screen now, as `[agent] tool` each. */
const questions = (lines: string[]): string[] =>
  lines.flatMap((l) => {
    const m = /^\[(\w+)\] (\S+) asks to run:/.exec(l);
    return m ? [`[${m[1]}] ${m[2]}`] : [];
  });

describe.runIf(ready)(`cctop exec --all --approvals ask${ready ? '' : ` (skipped: ${why})`}`, () => {
  let server: LabServer;
  let root: string;
  let term: Terminal | null = null;
  beforeAll(async () => {
    server = await startLabServer();
    root = mkdtempSync(join(tmpdir(), 'cctop-lab-exec-all-ask-'));
  });
  afterAll(async () => {
    term?.stop();
    server?.release();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('asks one question at a time on the terminal, each labelled with its agent, and each answer reaches that agent', async () => {
    const { home, cwd } = makeHome(root);
    const env: Record<string, string> = {
      ...labEnv(home, server.url),
      IS_SANDBOX: '1',
      TERM: 'xterm-256color',
    };
    for (const r of RECIPES) {
      r.setup(home, server.url);
      Object.assign(env, r.env(home, server.url));
    }
    env.PATH = [...RECIPES.map((r) => dirname(agentBin(r.id)!)), env.PATH].join(':');
    env.CCTOP_RUNTIME_DIR = join(root, 'run');
    env.NO_COLOR = '1';
    const from = server.ledger.length;
    term = new Terminal(`cctop-exec-all-ask-${process.pid}`, 'exec', PATIENCE_MS);
    term.cctop(
      root,
      env,
      `exec --all --approvals ask --permission edit -C '${cwd}' --timeout 3m '${promptFor('fail')}'`,
      200,
      60,
    );
    const first = await term.until('a first question', (l) => questions(l).length === 1);
    expect(first.join('\n')).toContain(
      'gemini cannot ask before a tool call: run under the same permission without asking',
    );
    const [asked] = questions(first);
    expect(['[claude] Bash', '[codex] exec_command']).toContain(asked);
    term.keys('y', 'Enter');
    const second = await term.until('a second question', (l) => questions(l).length === 2);
    const both = questions(second);
    expect(both[0]).toBe(asked);
    expect(both.sort()).toEqual(['[claude] Bash', '[codex] exec_command']);
    term.keys('n', 'Enter');
    const end = await term.until('the closing table', (l) => l.some((x) => /^agent\s+outcome/.test(x)));
    for (const agent of ['claude', 'codex', 'gemini'])
      expect(end.join('\n'), agent).toMatch(new RegExp(`^${agent}\\s+completed`, 'm'));
    // The allowed agent's model saw the command's output; the denied one's did not.
    const allowed = asked === '[claude] Bash' ? 'anthropic' : 'responses';
    const denied = allowed === 'anthropic' ? 'responses' : 'anthropic';
    const told = (api: string) =>
      server.ledger
        .slice(from)
        .filter((e) => e.api === api && e.script === 'fail')
        .flatMap((e) => e.results)
        .join('\n');
    expect(told(allowed)).toContain('lab-fail-out');
    expect(told(denied)).not.toContain('lab-fail-out');
  }, 300_000);
});
