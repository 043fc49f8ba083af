/**
 * `cctop exec` and `cctop chat` tell one truth about the same run: the real Gemini CLI in the lab
 * runs the stand-in's `fail` script (a shell command that exits 3). Its stream calls that a success
 * and carries no exit code; its chat file records the exit. Once the run ends, `cctop exec` settles
 * the call from the file and says the verdict came from there, in its JSON and on the terminal.
 *
 * Skipped, saying why, when Gemini CLI is not installed (npm run agents) or cctop is not built.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../src/test-support/corpus.js';
import { geminiRecipe as recipe } from '../../src/test-support/lab/agents/gemini.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.gemini;
const bin = agentBin('gemini');
const CLI = join(REPO, 'dist', 'cli.js');
const why = !bin
  ? `${pin.package}@${pin.version} is not installed (npm run agents)`
  : `${CLI} is not built (npm run build)`;

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function cctop(args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

describe.runIf(bin !== null && existsSync(CLI))(
  `cctop exec gemini settles what its stream left open${bin && existsSync(CLI) ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-exec-truth-'));
    });
    afterAll(async () => {
      server?.release();
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    let n = 0;
    function labRun(): { env: NodeJS.ProcessEnv; args: string[] } {
      const { home, cwd } = makeHome(join(root, `${n++}`));
      recipe.setup(home, server.url);
      const env = {
        PATH: process.env.PATH,
        ...labEnv(home, server.url),
        ...recipe.env(home, server.url),
        CCTOP_RUNTIME_DIR: join(home, 'run'),
      };
      const args = [
        '--bin',
        bin!,
        '-C',
        cwd,
        '-m',
        recipe.model,
        '--permission',
        'bypass',
        '--timeout',
        '90s',
      ];
      return { env, args };
    }

    it('--json: the failing shell call is ok: false, and the outcome names the session file as where that came from', async () => {
      const { env, args } = labRun();
      const r = await cctop(['exec', 'gemini', '--json', ...args, promptFor('fail')], env);
      expect(r.code, r.err).toBe(0);
      const lines = r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      // The stream's own word stays as it was: no verdict.
      const streamed = lines.filter((l) => l.kind === 'tool_result');
      expect(streamed.map((l) => l.ok)).toEqual([null]);
      const last = lines.at(-1) as {
        kind: string;
        outcome: { truth: Record<string, unknown>; session: string };
      };
      expect(last.kind).toBe('outcome');
      expect(last.outcome.truth.results).toEqual([
        { id: streamed[0]!.id, name: 'run_shell_command', ok: false, from: 'file', exitCode: 3 },
      ]);
      expect(last.outcome.truth.problems).toEqual([]);
      // `cctop chat` reads the same file and marks the same call failed.
      const chat = await cctop(['chat', last.outcome.session, '--json'], env);
      expect(chat.code, chat.err).toBe(0);
      const tools = (
        JSON.parse(chat.out) as { turns: { tools: { name: string; failed: boolean }[] }[] }
      ).turns.flatMap((t) => t.tools);
      expect(tools.map((t) => [t.name, t.failed])).toEqual([['run_shell_command', true]]);
    }, 120_000);

    it('on a terminal, the closing account says the call failed and that the session file said so', async () => {
      const { env, args } = labRun();
      const r = await cctop(['exec', 'gemini', ...args, promptFor('fail')], { ...env, NO_COLOR: '1' });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(
        '✗ run_shell_command failed (exit 3) · from the session file; the stream gave no verdict',
      );
    }, 120_000);
  },
);
