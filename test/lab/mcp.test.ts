/**
 * cctop's MCP server as the real Claude Code CLI uses it: `cctop mcp install --agent claude` puts the
 * server into the lab home's `~/.claude.json`, Claude Code (print mode, against the stand-in model
 * server) starts it over stdio, and the model's one call, `mcp__cctop__list_sessions`, comes back to
 * the model as cctop's JSON: the running Claude session itself, working in the lab's directory.
 * `cctop mcp remove` then gives the config file back byte for byte.
 *
 * Skips, naming the install command, where the CLI is not installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../src/test-support/corpus.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { agentBin, LAB_RUN_TIMEOUT_MS, makeHome, PINS, runAgent } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const CLI = join(REPO, 'dist', 'cli.js');
/** The package's own `cctop` program, which an install writes when it is not run through a `cctop` link. */
const PROGRAM = join(REPO, 'dist', 'cctop.cjs');
const pin = PINS.claude;
const bin = agentBin('claude');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;
const TOOL = 'mcp__cctop__list_sessions';

describe.skipIf(!bin)(
  `${pin.package}@${pin.version}: calls cctop's MCP server${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;

    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-mcp-'));
    });
    afterAll(async () => {
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('calls list_sessions and gets back the running session, as data', async () => {
      const where = makeHome(join(root, 'claude'));
      const cctopEnv = {
        HOME: where.home,
        PATH: process.env.PATH ?? '',
        CCTOP_CACHE_DIR: join(root, 'cache'),
      };
      // Claude Code 2.1.328 has written its config once, as a first start leaves it.
      const config = join(where.home, '.claude.json');
      const install = spawnSync(process.execPath, [CLI, 'mcp', 'install', '--agent', 'claude'], {
        env: cctopEnv,
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
      expect(install.stdout).toContain('added the cctop MCP server');
      expect(JSON.parse(readFileSync(config, 'utf8')).mcpServers.cctop).toEqual({
        type: 'stdio',
        command: process.execPath,
        args: [PROGRAM, 'mcp'],
        env: {},
      });

      const run = await runAgent(
        { ...claudeRecipe, args: (p) => [...claudeRecipe.args(p), '--allowedTools', TOOL] },
        where,
        server.url,
        { prompt: promptFor('mcp'), resume: null, permission: 'ask' },
        LAB_RUN_TIMEOUT_MS,
        { env: { CCTOP_CACHE_DIR: join(root, 'cache') } },
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);

      const steps = server.ledger.filter((e) => e.script === 'mcp' && !e.aux);
      // The model fetches the deferred tool's schema (ToolSearch), then calls it.
      expect(steps.find((e) => e.step === 0)?.calls.map((c) => c.name)).toEqual(['ToolSearch']);
      const asked = steps.find((e) => e.step === 1);
      expect(
        asked?.calls.map((c) => c.name),
        'the model was offered the tool',
      ).toEqual([TOOL]);
      const told = steps.find((e) => e.step === 2);
      expect(told, 'Claude Code sent the tool result back').toBeDefined();
      // Claude Code adds its own reminder after a tool's text; cctop's JSON comes first.
      const text = told!.results[0]!.split('\n\n<system-reminder>')[0]!;
      const result = JSON.parse(text) as {
        running: number;
        sessions: {
          harness: string;
          directory: string;
          state: string;
          running: boolean;
          pendingTool: string;
        }[];
      };
      expect(result.running).toBeGreaterThanOrEqual(1);
      expect(result.sessions).toContainEqual(
        expect.objectContaining({ harness: 'claude', directory: where.cwd, running: true }),
      );
      expect(JSON.parse(run.stdout).result).toBe('cctop listed the running sessions.');

      const remove = spawnSync(process.execPath, [CLI, 'mcp', 'remove', '--agent', 'claude'], {
        env: cctopEnv,
        encoding: 'utf8',
      });
      expect(remove.status, remove.stderr).toBe(0);
      const after = existsSync(config) ? JSON.parse(readFileSync(config, 'utf8')) : {};
      expect(after.mcpServers?.cctop).toBeUndefined();
    });
  },
);
