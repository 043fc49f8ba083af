/**
 * `cctop exec opencode --approvals ask` in a real terminal (tmux) over the lab: the real OpenCode
 * (through `opencode serve`) asks before the `approve` script's command, on the terminal; `y` runs
 * it, anything else refuses it and the model is told so, as the stand-in's request log shows.
 *
 * Skipped, saying why, when OpenCode is not installed (npm run agents), cctop is not built or tmux
 * is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../src/test-support/cli-run.js';
import { opencodeRecipe as recipe } from '../../src/test-support/lab/agents/opencode.js';
import { agentBin, labEnv, makeHome } from '../../src/test-support/lab/agents.js';
import { entriesOf } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { HAVE_TMUX, Terminal } from '../../src/test-support/terminal.js';
import { promptFor } from './conformance.js';

const bin = agentBin('opencode');
const why =
  bin === null
    ? 'opencode is not installed (npm run agents)'
    : !existsSync(CLI)
      ? `${CLI} is not built (npm run build)`
      : 'tmux is not installed; apt-get install tmux';
const ready = bin !== null && existsSync(CLI) && HAVE_TMUX;

/** How long one step may take: OpenCode's server starts in up to 20 s on a loaded two-core machine. */
const PATIENCE_MS = 120_000;

describe.runIf(ready)(`cctop exec opencode --approvals ask${ready ? '' : ` (skipped: ${why})`}`, () => {
  let server: LabServer;
  let root: string;
  let term: Terminal | null = null;
  let n = 0;
  beforeAll(async () => {
    server = await startLabServer();
    root = mkdtempSync(join(tmpdir(), 'cctop-lab-exec-opencode-ask-'));
  });
  afterEach(() => {
    term?.stop();
    term = null;
  });
  afterAll(async () => {
    server?.release();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Start `cctop exec opencode --approvals ask` on the `approve` script, up to its question. */
  async function asked(): Promise<{ cwd: string; from: number; question: string[] }> {
    const { home, cwd } = makeHome(join(root, `${n++}`));
    recipe.setup(home, server.url);
    const env: Record<string, string> = {
      ...labEnv(home, server.url),
      ...recipe.env(home, server.url),
      TERM: 'xterm-256color',
      NO_COLOR: '1',
      CCTOP_RUNTIME_DIR: join(root, 'run'),
    };
    env.PATH = [dirname(bin!), env.PATH].join(':');
    const from = server.ledger.length;
    term = new Terminal(`cctop-exec-opencode-ask-${process.pid}-${n}`, 'exec', PATIENCE_MS);
    term.cctop(
      root,
      env,
      `exec opencode --approvals ask --permission edit -m lab/${recipe.model} -C '${cwd}' --timeout 3m '${promptFor('approve')}'`,
      200,
      60,
    );
    const question = await term.until('the question', (l) => l.some((x) => x.startsWith('Allow? [y/N]')));
    return { cwd, from, question };
  }

  it('y at the terminal runs the command the question showed', async () => {
    const { cwd, from, question } = await asked();
    expect(question).toContain('bash asks to run:');
    expect(question.join('\n')).toContain('touch lab-approved.txt && echo lab-touched');
    term!.keys('y', 'Enter');
    await term!.until('the answer', (l) => l.some((x) => x.includes('Done with the file.')));
    expect(existsSync(join(cwd, 'lab-approved.txt'))).toBe(true);
    const entries = entriesOf(server.ledger.slice(from), ['approve']);
    expect(entries.at(-1)!.results).toEqual(['lab-touched\n']);
  }, 300_000);

  it('anything else refuses it, and the model is told the user said no', async () => {
    const { cwd, from } = await asked();
    term!.keys('n', 'Enter');
    await term!.until('the answer', (l) => l.some((x) => x.includes('Done with the file.')));
    expect(existsSync(join(cwd, 'lab-approved.txt'))).toBe(false);
    const entries = entriesOf(server.ledger.slice(from), ['approve']);
    expect(entries.at(-1)!.results.join('\n')).toContain('The user said no at the terminal.');
  }, 300_000);
});
