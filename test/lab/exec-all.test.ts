/**
 * `cctop exec --all` over the whole lab: every pinned agent CLI installed on PATH, each set up
 * against the stand-in model server as its own lab test sets it up, plus an ACP agent named in the
 * config file (Gemini CLI in its ACP mode). One prompt, every agent at once, one summary table; the
 * table's figures are checked against the server's ledger.
 *
 * Skipped, saying why, when an agent is not installed (npm run agents).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/drive/events.js';
import { REPO } from '../../src/test-support/corpus.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { opencodeRecipe } from '../../src/test-support/lab/agents/opencode.js';
import { piRecipe } from '../../src/test-support/lab/agents/pi.js';
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import { agentBin, labEnv, makeHome, type Recipe } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const RECIPES: Recipe[] = [
  claudeRecipe,
  codexRecipe,
  copilotRecipe,
  geminiRecipe,
  qwenRecipe,
  opencodeRecipe,
  piRecipe,
];
const missing = RECIPES.filter((r) => agentBin(r.id) === null).map((r) => r.id);
const CLI = join(REPO, 'dist', 'cli.js');
const why =
  missing.length > 0
    ? `${missing.join(', ')} not installed (npm run agents)`
    : `${CLI} is not built (npm run build)`;

describe.runIf(missing.length === 0 && existsSync(CLI))(
  `cctop exec --all over the lab${missing.length === 0 && existsSync(CLI) ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-exec-all-'));
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('runs every installed agent and the configured ACP agent, and ends with one table of them all', async () => {
      const { home, cwd } = makeHome(root);
      const env: Record<string, string> = { ...labEnv(home, server.url), IS_SANDBOX: '1' };
      for (const r of RECIPES) {
        r.setup(home, server.url);
        Object.assign(env, r.env(home, server.url));
      }
      // Pi starts on its own default model (Anthropic's) unless its settings name another.
      writeFileSync(
        join(home, '.pi', 'agent', 'settings.json'),
        `${JSON.stringify({ defaultProvider: 'lab', defaultModel: piRecipe.model })}\n`,
      );
      env.PATH = [...RECIPES.map((r) => dirname(agentBin(r.id)!)), env.PATH].join(':');
      env.CCTOP_RUNTIME_DIR = join(root, 'run');
      mkdirSync(join(home, '.config', 'cctop'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'cctop', 'config.toml'),
        '[acp.gemini-acp]\ncommand = "gemini --acp"\nenv = ["GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"]\n',
      );
      const from = server.ledger.length;
      const child = spawn(
        process.execPath,
        [CLI, 'exec', '--all', '-C', cwd, '--timeout', '4m', promptFor('text')],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      // The note quotes this table.
      process.stderr.write(`--- cctop exec --all on the lab ---\n${out}${err}\n`);
      expect(code, err).toBe(0);
      const both = `${out}\n${err}`;
      const table = both.slice(both.search(/^agent\s+outcome/m));
      for (const agent of [...AGENTS, 'gemini-acp'])
        expect(table, agent).toMatch(new RegExp(`^${agent}\\s+completed`, 'm'));
      // Every agent, the ACP one included, asked the server: one text answer each.
      expect(server.ledger.length - from).toBeGreaterThanOrEqual(AGENTS.length + 1);
    }, 300_000);
  },
);
