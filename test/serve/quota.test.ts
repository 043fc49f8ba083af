/**
 * `GET /api/quota` over real HTTP on 127.0.0.1: the dashboard's meters read what `cctop quota --json`
 * reads (Claude Code's cached quota in the served home's `.claude.json`, as 2.1.328 keeps it), a
 * stale window stays marked stale, and the route sits behind the token like every other.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome } from '../../src/test-support/corpus.js';
import { spendSession } from '../../src/test-support/spend-history.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import type { QuotaAnswer } from '../../src/views/serve/quota.js';
import { base, bearer, serve } from './helpers.js';

const HOUR = 3_600_000;
const ACCOUNT = '1a2b3c4d-0000-4000-8000-000000000001';

describe('GET /api/quota', () => {
  let home: FakeHome;
  let s: RunningServer;
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    home = new FakeHome();
    home.write(
      join(home.dir, '.claude.json'),
      JSON.stringify({
        cachedUsageUtilization: {
          fetchedAtMs: now - 60_000,
          accountUuid: ACCOUNT,
          utilization: {
            five_hour: { utilization: 64, resets_at: iso(now + HOUR) },
            seven_day: { utilization: 80, resets_at: iso(now - HOUR) },
            seven_day_opus: null,
            seven_day_sonnet: null,
            extra_usage: null,
            limits: [],
          },
        },
      }),
    );
    spendSession(home, 'c0000000-0000-4000-8000-0000000000b1', [[iso(now - 30 * 60_000), 40_000]]);
    s = await serve(home);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
  });

  it('is refused without the token, like every other route', async () => {
    expect((await fetch(`${base(s)}/api/quota`)).status).toBe(401);
  });

  it("answers the served home's quota with its source and staleness, and the pace from the live index", async () => {
    const res = await fetch(`${base(s)}/api/quota`, { headers: bearer() });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const a = (await res.json()) as QuotaAnswer;
    expect(a.quota.map((f) => [f.harness, f.account, f.window, f.usedPercent, f.source, f.stale])).toEqual([
      ['claude', ACCOUNT, '5h', 64, 'agent-cache', false],
      ['claude', ACCOUNT, '7d', 80, 'agent-cache', true],
    ]);
    expect(a.pace.map((p) => [p.window, p.windowTokens])).toEqual([['5h', 40_000]]);
  });
});
