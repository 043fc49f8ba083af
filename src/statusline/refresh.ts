/**
 * The status line's background refresh: one refresh of the session index (kept, patched or built,
 * whichever answers, exactly as `cctop --json` would), then the digest the status line reads
 * (`digest.ts`) made from its sessions and written in one step. Runs in the detached process
 * `refresh-main.ts` starts, never in the status line itself, which must not wait for it.
 *
 * Each run adds a line to `statusline-refresh.log` in cctop's cache (when, how long, how the index
 * answered, or why it failed): a refresh nobody waits for has no other way to say it went wrong.
 *
 * Not here: the lock that keeps refreshes to one at a time (`refresh-lock.ts`).
 */
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { budgetStates, loadConfig, periodDays } from '../config/index.js';
import type { SessionIndex } from '../index/session-index.js';
import { writeAtomically } from '../install/atomic.js';
import type { SessionDoc } from '../model/document.js';
import { money } from '../model/money.js';
import type { LocalTime } from '../model/time.js';
import { cacheDir } from '../paths.js';
import { PRIVATE_FILE_MODE, privateDir } from '../private.js';
import type { Env } from '../providers/types.js';
import { activeBlock, BLOCK_MS, blockReport } from '../spend/blocks.js';
import { spentOver } from '../spend/spent.js';
import { DIGEST_VERSION, type Digest, type DigestSession, digestPath } from './digest.js';

/**
 * The most sessions the digest names. The status line asks for the sessions Claude Code runs now,
 * which were active lately: the 200 newest cover any day's work, and keep the file a few tens of KiB.
 * An older session resumed before the next refresh is read from its transcript's tail meanwhile.
 */
export const DIGEST_SESSIONS = 200;

export const REFRESH_LOG = 'statusline-refresh.log';

/**
 * The log is cut back to its last lines once it passes this size: a refresh a minute for a year
 * would otherwise be 30 MiB. 64 KiB holds several hundred refreshes, enough to see a pattern.
 */
const MAX_LOG_BYTES = 64 * 1024;
const LOG_LINES_KEPT = 200;

/** The digest of `sessions` (newest first, as the index lists them), built at `builtAtMs`. */
export function digestOf(
  sessions: readonly SessionDoc[],
  time: LocalTime,
  builtAtMs: number,
  spend: { block: Digest['block']; budget: Digest['budget'] } = { block: null, budget: null },
): Digest {
  const day = time.dayNumber(builtAtMs);
  let today: number | null = null;
  for (const s of sessions) {
    const spent = s.cost.byDay?.usd.at(-1);
    if (spent !== undefined) today = (today ?? 0) + spent;
  }
  const kept: Record<string, DigestSession> = {};
  let n = 0;
  for (const s of sessions) {
    if (s.provider !== 'claude') continue;
    if (n++ >= DIGEST_SESSIONS) break;
    kept[s.id] = {
      model: s.model,
      usd: s.cost.usd,
      contextUsed: s.context.used,
      compactAt: s.context.compactAt,
    };
  }
  return {
    version: DIGEST_VERSION,
    builtAtMs,
    today: {
      startMs: time.dayStartMs(day),
      endMs: time.dayStartMs(day + 1),
      usd: today === null ? null : money(today),
    },
    sessions: kept,
    block: spend.block,
    budget: spend.budget,
  };
}

export interface Refreshed {
  strategy: string;
  sessions: number;
}

/** Keep `d` in `cacheDir`, replacing the last one in one step (a reader never sees half of it). */
export function writeDigest(cacheDir: string, d: Digest): void {
  privateDir(cacheDir);
  // Private: the digest names sessions, models and spend.
  writeAtomically(digestPath(cacheDir), JSON.stringify(d), PRIVATE_FILE_MODE);
}

/** Refresh the index under `env` and keep the digest of what it answered. */
export async function refreshDigest(env: Env, nowMs: number = Date.now()): Promise<Refreshed> {
  const { SessionIndex } = await import('../index/session-index.js');
  const index = SessionIndex.open({
    env,
    plan: 'retail',
    providers: null,
    sinceMs: null,
    untilMs: null,
    oneRefresh: true,
  });
  let strategy: string;
  try {
    strategy = (await index.refresh()).strategy;
  } finally {
    index.close();
  }
  const sessions = index.sessions();
  const spend = { block: blockNow(index, nowMs), budget: nearestBudget(index, env, nowMs) };
  writeDigest(cacheDir(env), digestOf(sessions, index.localTime, nowMs, spend));
  return { strategy, sessions: sessions.length };
}

type Index = Pick<SessionIndex, 'usage' | 'localTime'>;

const activeSince = (ms: number) => (s: { lastActiveAt: string | null }) =>
  s.lastActiveAt !== null && Date.parse(s.lastActiveAt) >= ms;

/**
 * Claude Code's block running now: only sessions active in the last block's span can hold it, so
 * only their cells are decoded.
 */
function blockNow(index: Index, nowMs: number): Digest['block'] {
  const recent = activeSince(nowMs - 2 * BLOCK_MS);
  const claude = index.usage((s) => s.provider === 'claude' && recent(s));
  const b = activeBlock(blockReport(claude, { nowMs, included: () => false, tokenLimit: null }));
  return b === null || b.cost.usd === null ? null : { usd: b.cost.usd, endsAtMs: b.endMs };
}

/** The budget of the config file nearest its limit (by share), or null when none is set or known. */
function nearestBudget(index: Index, env: Env, nowMs: number): Digest['budget'] {
  const { config } = loadConfig(env);
  if (config.budgets.length === 0) return null;
  const time = index.localTime;
  // A month is the longest period: a session last active before it began spent nothing in any.
  const since = time.dayStartMs(periodDays('month', nowMs, time, config.reports.startOfWeek).fromDay - 7);
  const spent = spentOver(index.usage(activeSince(since)));
  let nearest: Digest['budget'] = null;
  for (const b of budgetStates(config.budgets, spent, nowMs, time, config.reports.startOfWeek))
    if (b.share !== null && (nearest === null || b.share > nearest.share))
      nearest = { name: b.budget.name, share: b.share };
  return nearest;
}

/** Add a line to the refresh log, cutting it back to its last lines when it has grown past its bound. */
export function logRefresh(dir: string, line: string): void {
  const path = join(dir, REFRESH_LOG);
  try {
    privateDir(dir);
    if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES) {
      const kept = readFileSync(path, 'utf8').split('\n').filter(Boolean).slice(-LOG_LINES_KEPT);
      writeAtomically(path, `${kept.join('\n')}\n`, PRIVATE_FILE_MODE);
    }
    appendFileSync(path, `${line}\n`, { mode: PRIVATE_FILE_MODE });
  } catch {
    // A log that cannot be written loses a line, nothing else.
  }
}
