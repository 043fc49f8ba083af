/**
 * `cctop quota` wired to this machine: the index's sessions (with processes matched, for "running")
 * and their hourly tokens, the agents' quota files, and the clock. Printing is `quota.ts`.
 */
import { gatherQuota, startOfToday } from '../../quota/gather.js';
import { demoEnv } from './demo.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';
import { quotaJson, quotaText } from './quota.js';
import { snapshot } from './snapshots.js';

export async function quotaCommand(io: Io, o: CommonOptions, json: boolean): Promise<number> {
  // A window is the account's whatever the day range: every day is read, and only the harness filter applies.
  const s = await snapshot({ ...o, sinceMs: null, untilMs: null, filters: [] }, io.env);
  const nowMs = Date.now();
  const report = gatherQuota({
    env: o.demo ? demoEnv(io.env) : io.env,
    sessions: s.document.sessions,
    usage: s.index.usage(),
    providers: o.providers,
    nowMs,
    startOfTodayMs: startOfToday(s.time, nowMs),
  });
  io.out(json ? quotaJson(report, nowMs) : quotaText(report, nowMs));
  return 0;
}
