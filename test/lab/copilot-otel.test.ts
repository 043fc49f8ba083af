/**
 * Copilot CLI's OpenTelemetry file export, written by the real CLI in the lab (its bring-your-own-key
 * mode against the stand-in, as `copilot.test.ts`): with the export on, every request the server
 * answered is in the export with the figures it answered; read from the export alone (session-state
 * removed) a session has the same tokens as read from its session-state; and read from both, each
 * request counts once. The recorded home `lab/fixtures/sources/copilot/home` was made this way.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import {
  agentBin,
  idInOutput,
  LAB_RUN_TIMEOUT_MS,
  makeHome,
  PINS,
  runAgent,
} from '../../src/test-support/lab/agents.js';
import { cctopJson } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';

const pin = PINS.copilot;
const bin = agentBin('copilot');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;

describe.skipIf(!bin)(
  `${pin.package}@${pin.version}'s OpenTelemetry export${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-otel-'));
    });
    afterAll(async () => {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    });

    it(
      'a session read from its export alone has the tokens the server answered, as read from its session-state',
      async () => {
        const where = makeHome(join(root, 'call'));
        const otel = join(where.home, '.copilot', 'otel');
        mkdirSync(otel, { recursive: true });
        const before = server.ledger.length;
        const r = await runAgent(
          copilotRecipe,
          where,
          server.url,
          { prompt: '[lab:call] Follow the lab script call.', resume: null, permission: 'allow' },
          LAB_RUN_TIMEOUT_MS,
          {
            env: {
              COPILOT_OTEL_ENABLED: 'true',
              COPILOT_OTEL_EXPORTER_TYPE: 'file',
              COPILOT_OTEL_FILE_EXPORTER_PATH: join(otel, 'run.jsonl'),
            },
          },
        );
        expect(r.code, r.stderr).toBe(0);
        const id = idInOutput(r.stdout, 'sessionId', (x) => x.type === 'result')!;
        const answered = server.ledger.slice(before).filter((e) => !e.aux);
        const both = cctopJson(where.home).sessions.find((s) => s.id === id)!;
        rmSync(join(where.home, '.copilot', 'session-state', id), { recursive: true });
        const exported = cctopJson(where.home).sessions.find((s) => s.id === id)!;
        // The server's own sums: every request it answered, its prompt with the cached part apart.
        const cacheRead = answered.reduce((n, e) => n + e.figures.cacheRead, 0);
        const prompt = answered.reduce((n, e) => n + e.prompt, 0);
        expect(answered.length).toBeGreaterThanOrEqual(2);
        expect(exported.requests).toBe(answered.length);
        expect(exported.tokens.cacheRead).toBe(cacheRead);
        expect((exported.tokens.input ?? 0) + (exported.tokens.cacheRead ?? 0)).toBe(prompt);
        expect(exported.tokens).toEqual(both.tokens);
        expect(both.requests).toBe(answered.length);
        expect(exported.file).toBe(`${join(otel, 'run.jsonl')}#${id}`);
      },
      2 * LAB_RUN_TIMEOUT_MS,
    );
  },
);
