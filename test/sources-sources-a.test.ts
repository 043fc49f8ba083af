/**
 * cctop against the native ccusage on each source's recorded home: for every session ccusage finds,
 * cctop finds the same one with the same input, output, cache-read and cache-write tokens and the
 * same cost within a cent, and neither finds a session the other does not.
 *
 * The homes are in `lab/fixtures/sources/<source>/home`; each source's own variable points ccusage
 * and cctop there as well as `HOME`. Skipped, saying so, when the binary is absent (`npm run peers`).
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
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
  try {
    // A folder passes the executable check (as root, anything does): it must be a file.
    accessSync(bin, constants.X_OK);
    return statSync(bin).isFile() ? bin : null;
  } catch {
    // Not installed (or not executable): the comparison is skipped, naming the command that installs it.
    return null;
  }
}

const BIN = nativeCcusage();
const CLI = join(REPO, 'dist', 'cli.js');
const why = !BIN
  ? 'the native ccusage binary is not installed; npm run peers'
  : !existsSync(CLI)
    ? 'cctop is not built; npm run build'
    : null;

interface PeerSession {
  sessionId: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  totalTokens: number;
  totalCost: number;
}

/**
 * Where ccusage is wrong about a session (the README's harness table says why), what it shows
 * instead, and what cctop shows: its cost worked out apart from cctop, from the vendor's list prices.
 */
type Disagreement =
  /** ccusage finds no price for the model and shows $0. */
  | { kind: 'unpriced'; usd: number }
  /** ccusage counts an OpenAI-style prompt whole as input, its cached part again as cache reads. */
  | { kind: 'cached-twice'; usd: number }
  /** ccusage adds reasoning tokens to output that already holds them, and prices them twice. */
  | { kind: 'reasoning-twice'; usd: number };

/** Each source, the variables that point it at its home, and where ccusage is wrong. */
const SOURCES: {
  id: string;
  env: (home: string) => Record<string, string>;
  wrong?: Record<string, Disagreement>;
  /**
   * Whether the tokens ccusage counts in its total but in no column are already inside output (Hermes's
   * reasoning) rather than apart from it (Droid's thinking).
   */
  apartInsideOutput?: boolean;
}[] = [
  { id: 'amp', env: (h) => ({ AMP_DATA_DIR: join(h, '.local', 'share', 'amp') }) },
  {
    id: 'droid',
    env: (h) => ({ DROID_SESSIONS_DIR: join(h, '.factory', 'sessions') }),
    // `custom:Claude-Opus-4.5-[Anthropic]-0`: Droid's numbered bring-your-own Opus 4.5, which
    // ccusage looks up as `claude-opus-4-5-0`, finds no price for, and counts as $0. At Opus 4.5's
    // list prices ($5 in, $25 out, $6.25 cache write, $0.50 cache read per million) the session's
    // 820 / 640 / 4,100 / 22,000 tokens cost $0.056725.
    wrong: { '6c1a9b3f-4d2e-4f70-8b8c-9d0e1f2a3b4c': { kind: 'unpriced', usd: 0.056725 } },
  },
  {
    id: 'codebuff',
    env: (h) => ({
      CODEBUFF_DATA_DIR: `${join(h, '.config', 'manicode')},${join(h, '.config', 'manicode-dev')}`,
    }),
    // `prompt_tokens` 1,200 of which `cached_tokens` 1,000, `completion_tokens` 300 (gpt-5): 200
    // uncached at $1.25, 1,000 cached at $0.125, 300 out at $10 per million is $0.003375.
    wrong: { 'manicode/web/2026-01-09T10-00-00.000Z': { kind: 'cached-twice', usd: 0.003375 } },
  },
  {
    id: 'hermes',
    env: (h) => ({ HERMES_HOME: join(h, '.hermes') }),
    apartInsideOutput: true,
    // gpt-5, no cost recorded: 3,000 in at $1.25, 12,000 cached at $0.125, 2,200 out (its 1,500
    // reasoning among them) at $10 per million is $0.02725.
    wrong: { '20260114_101000_c7e810': { kind: 'reasoning-twice', usd: 0.02725 } },
  },
  // `$GOOSE_PATH_ROOT` names a folder laid out otherwise (`data/sessions`): this home is the default one.
  { id: 'goose', env: () => ({}) },
  { id: 'kilo', env: (h) => ({ KILO_DATA_DIR: join(h, '.local', 'share', 'kilo') }) },
  // Recorded from Copilot CLI 1.0.102 in the lab with its OpenTelemetry file export on: two sessions
  // in both session-state and exports under ~/.copilot/otel (one resumed into a second export), and
  // two whose session-state was removed, one in ~/.copilot/otel, one in the file the variable names.
  {
    id: 'copilot',
    env: (h) => ({ COPILOT_OTEL_FILE_EXPORTER_PATH: join(h, 'exports', 'copilot.jsonl') }),
  },
];

describe.skipIf(why !== null)(
  `cctop and ccusage agree on each source's home${why ? ` (skipped: ${why})` : ''}`,
  () => {
    const cache = tempDir('cctop-sources-a-');
    afterAll(() => cache.cleanup());

    for (const source of SOURCES) {
      it(`${source.id}: the same sessions, every token total, the cost within a cent`, () => {
        const home = join(REPO, 'lab', 'fixtures', 'sources', source.id, 'home');
        const env = {
          PATH: process.env.PATH ?? '',
          HOME: home,
          TZ: 'UTC',
          CCTOP_CACHE_DIR: join(cache.dir, source.id),
          ...source.env(home),
        };
        const peer = JSON.parse(
          execFileSync(BIN!, [source.id, 'session', '--json', '--offline'], { env, encoding: 'utf8' }),
        ) as { sessions: PeerSession[] };
        const ours = JSON.parse(
          execFileSync(process.execPath, [CLI, '--json', '--provider', source.id], { env, encoding: 'utf8' }),
        ) as SessionDocument;
        // A home with one session would not show sessions kept apart.
        expect(peer.sessions.length).toBeGreaterThanOrEqual(3);
        // A session kept in a database is `<database>#<id>` to cctop; ccusage names it by the id.
        const idOf = (id: string) => id.slice(id.lastIndexOf('#') + 1);
        expect(ours.sessions.map((s) => idOf(s.id)).sort()).toEqual(
          peer.sessions.map((s) => s.sessionId).sort(),
        );
        for (const p of peer.sessions) {
          const s = ours.sessions.find((m) => idOf(m.id) === p.sessionId)!;
          // Tokens ccusage counts in the total but in none of its columns (Droid's thinking tokens) it
          // prices as output; cctop counts them in output (and as its reasoning).
          const apart =
            p.totalTokens - p.inputTokens - p.outputTokens - p.cacheReadTokens - p.cacheCreationTokens;
          // Hermes's reasoning, which ccusage adds to the total, is cctop's reasoning inside output.
          if (source.apartInsideOutput) expect(s.tokens.reasoning, p.sessionId).toBe(apart);
          const wrong = source.wrong?.[p.sessionId];
          const cost = Math.abs((s.cost.usd ?? Number.NaN) - (wrong?.usd ?? p.totalCost));
          expect(cost, `${p.sessionId}: cctop $${s.cost.usd}, ccusage $${p.totalCost}`).toBeLessThan(
            wrong === undefined ? 0.01 : 0.000001,
          );
          // Where ccusage is wrong, it still is: else the README's evidence is stale.
          if (wrong?.kind === 'unpriced') expect(p.totalCost).toBe(0);
          if (wrong?.kind === 'cached-twice' || wrong?.kind === 'reasoning-twice')
            expect(p.totalCost).toBeGreaterThan(s.cost.usd!);
          const cachedAgain = wrong?.kind === 'cached-twice' ? p.cacheReadTokens : 0;
          expect(
            // Goose keeps no split of cached input: cctop shows it unknown (null), ccusage 0.
            [s.tokens.input, s.tokens.output, s.tokens.cacheRead ?? 0, s.tokens.cacheWrite ?? 0],
            p.sessionId,
          ).toEqual([
            p.inputTokens - cachedAgain,
            p.outputTokens + (source.apartInsideOutput ? 0 : apart),
            p.cacheReadTokens,
            p.cacheCreationTokens,
          ]);
        }
      });
    }
  },
);
