import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeCompactAt } from '../providers/claude/statusline-tail.js';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { DIGEST_VERSION, type Digest } from './digest.js';
import { gather, STALE_INDEX_MS } from './gather.js';
import { NO_INPUT, type StatuslineInput } from './input.js';
import { writeDigest } from './refresh.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const ID = '3d20e9da-9ccc-4d4e-aca1-db145c690d98';

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const cache = (): string => home.env.CCTOP_CACHE_DIR!;

const digest = (over: Partial<Digest> = {}): Digest => ({
  version: DIGEST_VERSION,
  builtAtMs: NOW - 10_000,
  today: {
    startMs: Date.parse('2026-11-29T00:00:00Z'),
    endMs: Date.parse('2026-11-30T00:00:00Z'),
    usd: 45.1,
  },
  sessions: { [ID]: { model: 'claude-opus-4-6', usd: 7.5, contextUsed: 50_000, compactAt: 167_000 } },
  block: null,
  budget: null,
  ...over,
});

/** A transcript for the session whose newest response is a Sonnet one of 90k tokens, written at `mtimeMs`. */
function transcript(mtimeMs: number): string {
  return home.write(
    home.claudeFile('-home-dev-app', `${ID}.jsonl`),
    jsonl({
      type: 'assistant',
      sessionId: ID,
      timestamp: '2026-11-29T09:59:00Z',
      message: {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        usage: { input_tokens: 90_000, output_tokens: 1 },
      },
    }),
    mtimeMs,
  );
}

const input = (over: Partial<StatuslineInput>): StatuslineInput => ({ ...NO_INPUT, sessionId: ID, ...over });

describe('gathering the figures', () => {
  it("takes this session's figures from the digest when it is as new as the transcript", async () => {
    writeDigest(cache(), digest());
    const path = transcript(NOW - 60_000);
    const g = await gather(input({ transcriptPath: path }), home.env, NOW);
    expect(g.figures).toMatchObject({ model: 'claude-opus-4-6', sessionUsd: 7.5, todayUsd: 45.1 });
    expect(g.figures.contextShare).toBeCloseTo(50_000 / 167_000);
    expect(g.refresh).toBeNull();
  });

  it('reads the transcript tail when the transcript moved on since the digest', async () => {
    writeDigest(cache(), digest());
    const path = transcript(NOW - 1_000);
    const g = await gather(input({ transcriptPath: path, costUsd: 8.25 }), home.env, NOW);
    expect(g.figures).toMatchObject({ model: 'claude-sonnet-4-5', sessionUsd: 8.25 });
    expect(g.figures.contextShare).toBeCloseTo(90_000 / claudeCompactAt(home.env, 200_000)!);
  });

  it("prefers Claude Code's own figures on stdin to the digest's and the tail's", async () => {
    writeDigest(cache(), digest());
    const path = transcript(NOW - 60_000);
    const g = await gather(
      input({
        transcriptPath: path,
        modelId: 'claude-opus-4-7',
        costUsd: 9,
        contextUsed: 100_000,
        contextWindow: 1_000_000,
      }),
      home.env,
      NOW,
    );
    expect(g.figures).toMatchObject({ model: 'claude-opus-4-7', sessionUsd: 9 });
    expect(g.figures.contextShare).toBeCloseTo(100_000 / claudeCompactAt(home.env, 1_000_000)!);
  });

  it('knows a new session from its tail alone, with no digest, and asks for a refresh', async () => {
    const path = transcript(NOW - 1_000);
    const g = await gather(input({ transcriptPath: path }), home.env, NOW);
    expect(g.figures).toMatchObject({
      model: 'claude-sonnet-4-5',
      sessionUsd: null,
      todayUsd: null,
      block: null,
    });
    expect(g.refresh).toBe('missing');
  });

  it('asks for a refresh once the digest is older than STALE_INDEX_MS', async () => {
    writeDigest(cache(), digest({ builtAtMs: NOW - STALE_INDEX_MS - 1 }));
    expect((await gather(NO_INPUT, home.env, NOW)).refresh).toBe('stale');
  });

  it("does not show yesterday's spend as today's", async () => {
    writeDigest(cache(), digest());
    const tomorrow = Date.parse('2026-11-30T00:05:00Z');
    expect((await gather(NO_INPUT, home.env, tomorrow)).figures.todayUsd).toBeNull();
  });

  it('passes on the block and budget the refresh kept, and the limits Claude sent', async () => {
    const block = { usd: 12.3, endsAtMs: NOW + 3_600_000 };
    const budget = { name: 'daily', share: 0.9 };
    writeDigest(cache(), digest({ block, budget }));
    const limits = { fiveHour: { usedPercent: 40, resetsAtMs: null }, sevenDay: null };
    expect((await gather(input({ limits }), home.env, NOW)).figures).toMatchObject({ block, budget, limits });
  });

  it('reads a damaged digest as none', async () => {
    home.write(`${cache()}/statusline.json`, '{"version": 1, "builtAtMs": "soon"');
    const g = await gather(NO_INPUT, home.env, NOW);
    expect(g.refresh).toBe('missing');
    expect(g.figures.todayUsd).toBeNull();
  });
});

describe("Claude Code's cached quota", () => {
  /** `cachedUsageUtilization` as Claude Code 2.1.328 writes it into `.claude.json`, trimmed. */
  const claudeJson = (fetchedAtMs: number, fiveHourResets: string) =>
    home.write(
      `${home.dir}/.claude.json`,
      JSON.stringify({
        numStartups: 3,
        cachedUsageUtilization: {
          fetchedAtMs,
          utilization: {
            five_hour: { utilization: 64, resets_at: fiveHourResets },
            seven_day: { utilization: 21, resets_at: '2026-12-02T08:00:00Z' },
            seven_day_opus: null,
            seven_day_sonnet: null,
          },
        },
      }),
    );

  it('fills the limits when stdin carries none, with when they were fetched', async () => {
    claudeJson(NOW - 4 * 60_000, '2026-11-29T12:00:00Z');
    const g = await gather(input({}), home.env, NOW);
    expect(g.figures.limits).toBeNull();
    expect(g.figures.cachedLimits).toEqual({
      fiveHour: { usedPercent: 64, resetsAtMs: Date.parse('2026-11-29T12:00:00Z'), stale: false },
      sevenDay: { usedPercent: 21, resetsAtMs: Date.parse('2026-12-02T08:00:00Z'), stale: false },
      fetchedAtMs: NOW - 4 * 60_000,
    });
  });

  it('marks a window that has reset since the cache was written as stale', async () => {
    claudeJson(NOW - 6 * 3_600_000, '2026-11-29T09:00:00Z');
    const g = await gather(input({}), home.env, NOW);
    expect(g.figures.cachedLimits?.fiveHour?.stale).toBe(true);
    expect(g.figures.cachedLimits?.sevenDay?.stale).toBe(false);
  });

  it('is not read when stdin carries the limits', async () => {
    claudeJson(NOW - 4 * 60_000, '2026-11-29T12:00:00Z');
    const limits = { fiveHour: { usedPercent: 70, resetsAtMs: NOW + 60_000 }, sevenDay: null };
    const g = await gather(input({ limits }), home.env, NOW);
    expect(g.figures.limits).toEqual(limits);
    expect(g.figures.cachedLimits).toBeNull();
  });
});
