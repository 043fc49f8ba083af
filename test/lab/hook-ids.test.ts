/**
 * The hooks `cctop hooks install` writes, run by the real agent CLIs in the lab: each agent's events
 * reach the journal under the same session id its transcript has, so the state they give lands on
 * the right row. After a finished turn, `cctop --json` shows the session idle with its state from
 * the hooks (Codex: its `notify`, the one hook it runs untrusted; Gemini CLI, Qwen Code and OpenCode:
 * their hooks and plugin). Claude Code's whole sequence is `hook-states.test.ts`.
 *
 * Each agent skips, naming the install command, where its CLI is not installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/hooks/journal.js';
import type { SessionDocument } from '../../src/model/document.js';
import { REPO } from '../../src/test-support/corpus.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { opencodeRecipe } from '../../src/test-support/lab/agents/opencode.js';
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import {
  agentBin,
  labEnv,
  makeHome,
  PINS,
  type Recipe,
  runAgent,
} from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const CLI = join(REPO, 'dist', 'cli.js');

const AGENTS: { recipe: Recipe; events: string[] }[] = [
  { recipe: codexRecipe, events: ['agent-turn-complete'] },
  { recipe: geminiRecipe, events: ['BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent'] },
  { recipe: qwenRecipe, events: ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] },
  { recipe: opencodeRecipe, events: ['tool.execute.before', 'tool.execute.after'] },
];

let server: LabServer;
let root: string;
beforeAll(async () => {
  server = await startLabServer();
  server.release();
  root = mkdtempSync(join(tmpdir(), 'cctop-lab-hook-ids-'));
});
afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

for (const { recipe, events } of AGENTS) {
  const pin = PINS[recipe.id];
  const bin = agentBin(recipe.id);
  describe.skipIf(!bin)(
    `${pin.package}@${pin.version}: its hooks name its sessions${bin ? '' : ` (skipped: ${pin.package} is not installed: npm run agents)`}`,
    () => {
      it('reports a finished turn through the hooks cctop installed, under the session id of its transcript', async () => {
        const where = makeHome(join(root, recipe.id));
        recipe.setup(where.home, server.url);
        const runtime = join(root, `${recipe.id}-run`);
        mkdirSync(runtime, { mode: 0o700 });
        const env = {
          ...labEnv(where.home, server.url),
          CCTOP_RUNTIME_DIR: runtime,
          CCTOP_CACHE_DIR: join(root, `${recipe.id}-cache`),
        };
        const install = spawnSync(process.execPath, [CLI, 'hooks', 'install', '--agent', recipe.id], {
          env,
          encoding: 'utf8',
        });
        expect(install.status, install.stderr + install.stdout).toBe(0);

        const r = await runAgent(
          recipe,
          where,
          server.url,
          { prompt: promptFor('call'), resume: null, permission: 'allow' },
          undefined,
          // A hook started as the agent exits (Codex's notify) finishes outside the lab too.
          { env: { CCTOP_RUNTIME_DIR: runtime }, graceMs: 3000 },
        );
        expect(r.code, r.stderr.slice(-2000)).toBe(0);

        const listed = spawnSync(process.execPath, [CLI, '--json', '--provider', recipe.id], {
          env,
          encoding: 'utf8',
        });
        expect(listed.status, listed.stderr).toBe(0);
        const doc = JSON.parse(listed.stdout) as SessionDocument;
        expect(doc.sessions).toHaveLength(1);
        const session = doc.sessions[0]!;

        const journal = readJournal(env).filter((e) => e.agent === recipe.id);
        const named = journal.filter((e) => e.session !== null);
        expect(named.length).toBeGreaterThan(0);
        expect(new Set(named.map((e) => e.session))).toEqual(new Set([session.id]));
        const seen = journal.map((e) => e.event);
        for (const e of events) expect(seen, `${e} in ${seen.join(' ')}`).toContain(e);
        expect(session, JSON.stringify(journal.map((e) => [e.event, e.notification, e.at]))).toMatchObject({
          state: 'idle',
          stateSource: 'hook',
        });
      });
    },
  );
}
