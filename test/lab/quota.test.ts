/**
 * The quota end to end with a real CLI: the stand-in sends the rate-limit headers a subscription's
 * server sends (`quotaHeaders`), the pinned Codex writes them on its `token_count` events as it would
 * for a ChatGPT login, and `cctop quota --json` over its home shows exactly what the server said,
 * labelled as a rollout's.
 *
 * Claude Code is not run here: it keeps the account's quota only for a claude.ai login (its cache
 * in `.claude.json`, after it asks the usage endpoint) and sends it only to an interactive status
 * line; the lab's headless, API-key runs produce neither. Its readers are tested over the shapes the
 * 2.1.328 bundle validates (`src/providers/claude/quota.test.ts`, `test/quota.test.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaFigure } from '../../src/model/quota.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { agentBin, makeHome, PINS, runAgent } from '../../src/test-support/lab/agents.js';
import { cctopRead } from '../../src/test-support/lab/check.js';
import { type LabQuota, type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const bin = agentBin('codex');
const pin = PINS.codex;
const name = bin
  ? `codex ${pin.version} writes the stand-in's quota, and cctop quota shows it`
  : `codex ${pin.version} writes the stand-in's quota (skipped: codex ${pin.version} is not installed; npm run agents)`;

/** Reset times in the future, whole seconds, as the headers carry them. */
const nowS = Math.floor(Date.now() / 1000);
const QUOTA: LabQuota = {
  fiveHourPercent: 37,
  fiveHourResetS: nowS + 2 * 3600,
  weekPercent: 12,
  weekResetS: nowS + 3 * 86_400,
};

describe.skipIf(!bin)(name, () => {
  let server: LabServer;
  let root: string;
  let home: string;

  beforeAll(async () => {
    server = await startLabServer({ quota: QUOTA });
    root = mkdtempSync(join(tmpdir(), 'cctop-lab-quota-'));
    const where = makeHome(root);
    home = where.home;
    codexRecipe.setup(home, server.url);
    const run = await runAgent(codexRecipe, where, server.url, {
      prompt: promptFor('text'),
      resume: null,
      permission: 'allow',
    });
    expect(run.code, run.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('each window shows the percentage and reset time the server sent, from the rollout', () => {
    const doc = cctopRead<{ quota: QuotaFigure[] }>(home, ['quota']);
    const codex = doc.quota.filter((f) => f.harness === 'codex');
    expect(codex.map((f) => [f.window, f.usedPercent, f.resetsAt, f.source, f.stale])).toEqual([
      ['5h', QUOTA.fiveHourPercent, new Date(QUOTA.fiveHourResetS * 1000).toISOString(), 'rollout', false],
      ['7d', QUOTA.weekPercent, new Date(QUOTA.weekResetS * 1000).toISOString(), 'rollout', false],
    ]);
  });
});
