/**
 * cctop against the published ccusage (its native binary, a devDependency) on the same synthetic
 * history: per harness, the same total tokens and the same cost within 2%.
 *
 * The history comes from `../shared/bench/gen-history.mjs` (whole real sessions from the corpus,
 * re-identified); skipped with a message when that or the binary is missing.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { REPO, tempDir } from '../src/test-support/corpus.js';

const GENERATOR = join(REPO, '..', 'shared', 'bench', 'gen-history.mjs');

/** The native ccusage that `npm run peers` installs into `.peers/` (or `$CCUSAGE_BIN`). */
function nativeCcusage(): string | null {
  const bin =
    process.env.CCUSAGE_BIN ??
    join(
      REPO,
      '.peers',
      'node_modules',
      '@ccusage',
      `ccusage-${process.platform}-${process.arch}`,
      'bin',
      'ccusage',
    );
  if (!existsSync(bin)) return null;
  try {
    accessSync(bin, constants.X_OK);
    return bin;
  } catch {
    return null;
  }
}

const BIN = nativeCcusage();
const skip = !BIN || !existsSync(GENERATOR);
const why = !BIN ? 'the native ccusage binary is not installed (npm run peers)' : `${GENERATOR} is missing`;
if (skip) console.warn(`ccusage comparison skipped: ${why}`);

interface CcusageSession {
  agent: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  totalCost: number;
}

describe.skipIf(skip)(
  `cctop and ccusage agree on the same history${skip ? ` (skipped: ${why})` : ''}`,
  () => {
    const t = tempDir('cctop-vs-ccusage-');
    beforeAll(() => {
      execFileSync(process.execPath, [GENERATOR, '--out', t.dir, '--mb', '24', '--seed', '11'], {
        stdio: 'ignore',
      });
    });
    afterAll(() => t.cleanup());

    it('per harness: equal total tokens, cost within 2%', () => {
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: t.dir,
        TZ: 'UTC',
        CCTOP_CACHE_DIR: join(t.dir, '.cctop-cache'),
      };
      const peer = JSON.parse(
        execFileSync(BIN!, ['session', '--json', '--offline'], { env, encoding: 'utf8', maxBuffer: 1 << 28 }),
      ) as {
        session: CcusageSession[];
      };
      const ours = JSON.parse(
        execFileSync(process.execPath, [join(REPO, 'dist', 'cli.js'), '--json'], {
          env,
          encoding: 'utf8',
          maxBuffer: 1 << 28,
        }),
      ) as SessionDocument;
      for (const provider of ['claude', 'codex'] as const) {
        const theirs = peer.session.filter((s) => s.agent === provider);
        const mine = ours.sessions.filter((s) => s.provider === provider);
        expect(theirs.length, `ccusage found ${provider} sessions`).toBeGreaterThan(0);
        const theirTokens = theirs.reduce(
          (n, s) => n + s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheCreationTokens,
          0,
        );
        const myTokens = mine.reduce(
          (n, s) =>
            n +
            (s.tokens.input ?? 0) +
            (s.tokens.output ?? 0) +
            (s.tokens.cacheRead ?? 0) +
            (s.tokens.cacheWrite ?? 0),
          0,
        );
        expect(myTokens, provider).toBe(theirTokens);
        const theirCost = theirs.reduce((n, s) => n + s.totalCost, 0);
        const myCost = mine.reduce((n, s) => n + (s.cost.usd ?? 0), 0);
        expect(
          Math.abs(myCost - theirCost) / theirCost,
          `${provider}: cctop $${myCost} vs ccusage $${theirCost}`,
        ).toBeLessThan(0.02);
      }
    });
  },
);
