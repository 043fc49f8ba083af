/**
 * The credential each real agent CLI ran under in the lab, as `cctop/drive` reports it: every recipe
 * runs on a made-up API key pointed at the stand-in server, so every outcome must say `api-key`, and
 * name where that key came from. Claude says so itself (`apiKeySource` in its init record); the
 * others are known from their environment and config files. Each run requires `auth: 'api-key'`,
 * so the check before spawning is exercised on the way; a run requiring a login is refused unspawned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialSource, NamedAgent } from '../../src/drive/index.js';
import { DriveError, run } from '../../src/drive/index.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import { agentBin, labEnv, makeHome, PINS, type Recipe } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { promptFor } from './conformance.js';

const CASES: { recipe: Recipe; credential: CredentialSource }[] = [
  // claude 2.1.328's init record: "apiKeySource":"ANTHROPIC_API_KEY".
  { recipe: claudeRecipe, credential: { kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'agent' } },
  // The lab's own model provider in config.toml reads its key from LAB_API_KEY.
  { recipe: codexRecipe, credential: { kind: 'api-key', variable: 'LAB_API_KEY', from: 'config' } },
  {
    recipe: copilotRecipe,
    credential: { kind: 'api-key', variable: 'COPILOT_PROVIDER_API_KEY', from: 'environment' },
  },
  // settings.json chooses `gemini-api-key`; the key is GEMINI_API_KEY.
  { recipe: geminiRecipe, credential: { kind: 'api-key', variable: 'GEMINI_API_KEY', from: 'config' } },
  { recipe: qwenRecipe, credential: { kind: 'api-key', variable: 'OPENAI_API_KEY', from: 'environment' } },
];

let server: LabServer;
let root: string;
beforeAll(async () => {
  server = await startLabServer();
  root = mkdtempSync(join(tmpdir(), 'cctop-lab-credentials-'));
});
afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function request(recipe: Recipe, n: string) {
  const where = makeHome(join(root, n));
  recipe.setup(where.home, server.url);
  return {
    agent: recipe.id as NamedAgent,
    prompt: promptFor('text'),
    bin: agentBin(recipe.id)!,
    cwd: where.cwd,
    model: recipe.model,
    permission: 'read-only' as const,
    // Only what the lab gives: nothing of this machine's own keys or logins; the run is told to the
    // test run's own runtime directory, not to this machine's.
    parentEnv: { CCTOP_RUNTIME_DIR: process.env.CCTOP_RUNTIME_DIR ?? join(where.home, 'run') },
    setEnv: { ...labEnv(where.home, server.url), ...recipe.env(where.home, server.url) },
    timeoutMs: 90_000,
  };
}

for (const { recipe, credential } of CASES) {
  const pin = PINS[recipe.id];
  const bin = agentBin(recipe.id);
  describe.skipIf(!bin)(
    `${pin.package}@${pin.version}${unless(bin !== null, WHY.agent(`${pin.package}@${pin.version}`))}`,
    () => {
      it('runs under the API key the lab gives it, and the outcome says which', async () => {
        const o = await run({ ...request(recipe, recipe.id), auth: 'api-key' });
        expect(o.stop.kind).toBe('completed');
        expect(o.credential).toEqual(credential);
      });
    },
  );
}

describe.skipIf(!agentBin('claude'))(
  `a lab run that requires a login${unless(agentBin('claude') !== null, WHY.agent(`${PINS.claude.package}@${PINS.claude.version}`))}`,
  () => {
    it('is refused before Claude is started, naming the key it would use instead', async () => {
      const from = server.ledger.length;
      const error = await run({ ...request(claudeRecipe, 'login'), auth: 'login' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DriveError);
      expect((error as DriveError).failure).toMatchObject({
        kind: 'auth_missing',
        found: { kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'environment' },
      });
      expect(server.ledger.length).toBe(from);
    });
  },
);
