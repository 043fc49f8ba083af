/**
 * cctop against ccusage (its native binary, `npm run peers`) on the recorded homes of the sources
 * ccusage reads and cctop added in this wave (Antigravity, Kimi CLI, OpenClaw, Grok Build, ZCode), one home per source under
 * `lab/fixtures/sources/<source>/home`: the same sessions, every token total of each session
 * exactly, and each session's cost within a cent. The fixtures are built from the formats as the
 * sources write them (each provider's `record.ts` says which), with several sessions, cached tokens,
 * a resumed session and a failed tool call.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { REPO, tempDir } from '../src/test-support/corpus.js';

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
    // Present but not executable: the same as absent, and the suite says how to install it.
    return null;
  }
}

const BIN = nativeCcusage();
const built = existsSync(join(REPO, 'dist', 'cli.js'));
const why = !BIN
  ? 'the native ccusage binary is not installed; npm run peers'
  : 'cctop is not built; npm run build';
const skip = !BIN || !built;

interface PeerSession {
  sessionId: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** With reasoning, which its `outputTokens` leaves out. */
  totalTokens: number;
  totalCost: number;
}

/**
 * Each source, with the environment variable that points both tools at its data, and whether
 * ccusage's `outputTokens` for it holds the reasoning (cctop's output always does, and says the
 * reasoning apart): for Antigravity ccusage leaves the thinking out of the output and adds it to the
 * total; for Grok Build the CLI's own output already holds it.
 */
const SOURCES = [
  {
    id: 'antigravity',
    env: (home: string) => ({ ANTIGRAVITY_DATA_DIR: join(home, '.gemini', 'antigravity-cli') }),
    peerOutputHoldsReasoning: false,
  },
  {
    id: 'kimi',
    env: (home: string) => ({ KIMI_DATA_DIR: join(home, '.kimi') }),
    peerOutputHoldsReasoning: true,
  },
  {
    id: 'openclaw',
    env: (home: string) => ({ OPENCLAW_DIR: join(home, '.openclaw') }),
    peerOutputHoldsReasoning: true,
  },
  { id: 'grok', env: (home: string) => ({ GROK_HOME: join(home, '.grok') }), peerOutputHoldsReasoning: true },
  {
    id: 'zcode',
    env: (home: string) => ({ ZCODE_HOME: join(home, '.zcode') }),
    peerOutputHoldsReasoning: true,
  },
] as const;

describe.skipIf(skip)(
  `cctop and ccusage agree on each source's recorded home${skip ? ` (skipped: ${why})` : ''}`,
  () => {
    const t = tempDir('cctop-sources-b-');
    afterAll(() => t.cleanup());

    for (const source of SOURCES) {
      it(`${source.id}: the same sessions, each one's tokens exactly and its cost within a cent`, () => {
        // A copy: neither tool may write beside the recorded files.
        const home = join(t.dir, source.id);
        cpSync(join(REPO, 'lab', 'fixtures', 'sources', source.id, 'home'), home, { recursive: true });
        const env = {
          PATH: process.env.PATH ?? '',
          HOME: home,
          TZ: 'UTC',
          CCTOP_CACHE_DIR: join(t.dir, `${source.id}-cache`),
          ...source.env(home),
        };
        const peer = JSON.parse(
          execFileSync(BIN!, [source.id, 'session', '--json', '--offline'], { env, encoding: 'utf8' }),
        ) as { sessions: PeerSession[] };
        const ours = JSON.parse(
          execFileSync(process.execPath, [join(REPO, 'dist', 'cli.js'), '--json', '--provider', source.id], {
            env,
            encoding: 'utf8',
          }),
        ) as SessionDocument;

        const theirs = peer.sessions.map((s) => ({
          id: s.sessionId,
          tokens: [s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheCreationTokens, s.totalTokens],
        }));
        const mine = ours.sessions.map((s) => ({
          id: s.id,
          tokens: [
            s.tokens.input ?? 0,
            (s.tokens.output ?? 0) - (source.peerOutputHoldsReasoning ? 0 : (s.tokens.reasoning ?? 0)),
            s.tokens.cacheRead ?? 0,
            s.tokens.cacheWrite ?? 0,
            (s.tokens.input ?? 0) +
              (s.tokens.output ?? 0) +
              (s.tokens.cacheRead ?? 0) +
              (s.tokens.cacheWrite ?? 0),
          ],
        }));
        const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
        expect(theirs.length).toBeGreaterThanOrEqual(3);
        expect(mine.sort(byId)).toEqual(theirs.sort(byId));
        for (const p of peer.sessions) {
          const usd = ours.sessions.find((s) => s.id === p.sessionId)?.cost.usd;
          expect(usd, `${p.sessionId} is priced`).not.toBeNull();
          expect(
            Math.abs(usd! - p.totalCost),
            `${p.sessionId}: cctop $${usd} vs ccusage $${p.totalCost}`,
          ).toBeLessThan(0.01);
        }
      });
    }
  },
);
