import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDoc } from '../model/document.js';
import { LocalTime } from '../model/time.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { readDigest } from './digest.js';
import { DIGEST_SESSIONS, digestOf, logRefresh, REFRESH_LOG, refreshDigest } from './refresh.js';

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const NOW = Date.now();
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();
/** Today in UTC (the fake home's zone), an hour ago or at midnight if that is earlier. */
const earlierToday = () => iso(Math.min(3_600_000, NOW % 86_400_000));

describe('the background refresh', () => {
  it("keeps today's spend over every session and each recent Claude session's figures", async () => {
    home.write(
      home.claudeFile('-w', 'a.jsonl'),
      claudeResponse('a1', 1000, earlierToday(), 2000).replaceAll('"s"', '"a"'),
    );
    home.write(
      home.claudeFile('-w', 'b.jsonl'),
      claudeResponse('b1', 500, iso(3 * 86_400_000)).replaceAll('"s"', '"b"'),
    );
    home.write(
      home.codexFile('rollout-2026-11-29T10-00-00-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl'),
      jsonl({
        timestamp: earlierToday(),
        type: 'session_meta',
        payload: { id: '0199812e-64f0-7f73-91fc-095dda01c36e', cwd: '/w' },
      }),
    );
    const r = await refreshDigest(home.env, NOW);
    expect(r.sessions).toBeGreaterThanOrEqual(2);
    const d = readDigest(home.env.CCTOP_CACHE_DIR!)!;
    expect(d.builtAtMs).toBe(NOW);
    expect(Object.keys(d.sessions).sort()).toEqual(['a', 'b']);
    expect(d.sessions.a).toMatchObject({ model: 'claude-sonnet-4-5-20250929', contextUsed: 2000 });
    expect(d.sessions.a!.usd).toBeGreaterThan(0);
    // Only session a spent today; b spent three days ago.
    expect(d.today.usd).toBeCloseTo(d.sessions.a!.usd!, 6);
    expect(d.today.startMs).toBeLessThanOrEqual(NOW);
    expect(d.today.endMs).toBeGreaterThan(NOW);
    // Session a's request (at most an hour ago) opened the 5-hour block running now; b's is long over.
    expect(d.block?.usd).toBeCloseTo(d.sessions.a!.usd!, 6);
    expect(d.block!.endsAtMs).toBeGreaterThan(NOW);
  });

  it('names at most DIGEST_SESSIONS sessions, the newest', () => {
    const doc = (id: string, provider: 'claude' | 'codex') =>
      ({
        provider,
        id,
        model: 'claude-opus-4-6',
        cost: { usd: 1, byDay: { start: '2026-11-29', usd: [0.5, 1] } },
        context: { used: 10, window: 200_000, compactAt: 167_000 },
      }) as unknown as SessionDoc;
    const docs = [
      doc('codex-first', 'codex'),
      ...Array.from({ length: DIGEST_SESSIONS + 5 }, (_, i) => doc(`c${i}`, 'claude')),
    ];
    const d = digestOf(docs, new LocalTime('UTC'), NOW);
    expect(Object.keys(d.sessions)).toHaveLength(DIGEST_SESSIONS);
    expect(d.sessions.c0).toBeDefined();
    expect(d.sessions[`c${DIGEST_SESSIONS}`]).toBeUndefined();
    // Today counts every session, Codex and the ones past the bound too.
    expect(d.today.usd).toBe(DIGEST_SESSIONS + 6);
  });

  it('writes a digest even for a history with no sessions', async () => {
    await refreshDigest(home.env, NOW);
    expect(readDigest(home.env.CCTOP_CACHE_DIR!)).toMatchObject({ sessions: {}, today: { usd: null } });
  });

  it('keeps its log to its last lines once it grows past its bound', () => {
    const dir = home.env.CCTOP_CACHE_DIR!;
    for (let i = 0; i < 1500; i++) logRefresh(dir, `line ${i} ${'x'.repeat(60)}`);
    const path = join(dir, REFRESH_LOG);
    expect(existsSync(path)).toBe(true);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(1500);
    expect(lines.at(-1)).toMatch(/^line 1499 /);
  });
});
