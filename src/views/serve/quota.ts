/**
 * `GET /api/quota`: the accounts' quota and cctop's pace, as `cctop quota --json` prints them, for the
 * dashboard's meters. Read when asked (the page asks every half minute), from the agents' files and
 * the live index's sessions and cells; nothing is kept between asks.
 *
 * Not here: reading the sources (`quota/gather.ts`), drawing the meters (`web/quota.js`).
 */
import type { Hono, Env as HonoEnv } from 'hono';
import type { LiveSessions } from '../../live/engine.js';
import type { Env } from '../../providers/types.js';
import { gatherQuota, type QuotaReport, startOfToday } from '../../quota/gather.js';

export interface QuotaDeps {
  live: LiveSessions;
  ready: () => Promise<unknown>;
  /** Serve's own environment (where the agents' files are); absent: no source is read. */
  env: Env | null;
}

/** What `/api/quota` answers: the report and when it was made. */
export type QuotaAnswer = { generatedAt: string } & QuotaReport;

export function quotaRoutes<E extends HonoEnv>(app: Hono<E>, d: QuotaDeps): void {
  app.get('/api/quota', async (c) => {
    c.header('Cache-Control', 'no-store');
    await d.ready();
    const nowMs = Date.now();
    const doc = d.live.document;
    const report: QuotaReport =
      d.env === null || doc === null
        ? { quota: [], pace: [], problems: [] }
        : gatherQuota({
            env: d.env,
            sessions: doc.sessions,
            usage: d.live.usage(),
            providers: null,
            nowMs,
            startOfTodayMs: startOfToday(d.live.localTime, nowMs),
          });
    return c.json({ generatedAt: new Date(nowMs).toISOString(), ...report } satisfies QuotaAnswer);
  });
}
