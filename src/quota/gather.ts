/**
 * Every quota figure this machine holds, gathered for a view: Claude Code's own cache
 * (`providers/claude/quota.ts`), what the status line last received (`statusline/quota-note.ts`),
 * Codex's newest rollout snapshot (`providers/codex/quota.ts`, over the sessions cctop already
 * indexed), one current figure per window (`model/quota.ts`), and cctop's pace for each.
 *
 * Not here: reading transcripts (the sessions and their hourly tokens come from the index the caller
 * holds), or printing.
 */
import type { SessionDoc } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import {
  currentFigures,
  paceOf,
  type QuotaFigure,
  type QuotaPace,
  type SpentTokens,
} from '../model/quota.js';
import type { LocalTime } from '../model/time.js';
import { totalTokens } from '../model/usage.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { cacheDir } from '../paths.js';
import { claudeConfigFile, readClaudeQuota } from '../providers/claude/quota.js';
import { newestCodexQuota } from '../providers/codex/quota.js';
import type { Env } from '../providers/types.js';
import { readLimitsNote } from '../statusline/quota-note.js';

export interface QuotaReport {
  /** One current figure per harness, account and window. */
  quota: QuotaFigure[];
  /** cctop's estimate for each current figure it can project. */
  pace: QuotaPace[];
  /** Sources that are there but could not be read, with why (a FIFO, a file past its bound). */
  problems: string[];
}

export interface QuotaInputs {
  env: Env;
  /** The indexed sessions (only `provider`, `id`, `running`, `rateLimits`, `lastActiveAt` are read). */
  sessions: readonly Pick<SessionDoc, 'provider' | 'id' | 'running' | 'rateLimits' | 'lastActiveAt'>[];
  /** Their requests' tokens per hour. */
  usage: readonly SessionUsage[];
  /** Only these harnesses; null for every one. */
  providers: readonly ProviderId[] | null;
  nowMs: number;
  startOfTodayMs: number;
}

const DAY = 86_400_000;

/** The start of the local day holding `nowMs`, in `time`'s zone: where "today's burn" starts. */
export function startOfToday(time: LocalTime, nowMs: number): number {
  return time.dayNumber(nowMs) * DAY - time.offsetMinutes(nowMs) * 60_000;
}

const wants = (providers: readonly ProviderId[] | null, p: ProviderId) =>
  providers === null || providers.includes(p);

export function gatherQuota(i: QuotaInputs): QuotaReport {
  const all: QuotaFigure[] = [];
  const problems: string[] = [];
  if (wants(i.providers, 'claude')) {
    const path = claudeConfigFile(i.env);
    const read = readClaudeQuota(path, i.nowMs);
    if (read.kind === 'figures') all.push(...read.figures);
    if (read.kind === 'refused') problems.push(`${path} is ${read.why}: its quota is not read`);
    all.push(...adoptAccount(readLimitsNote(cacheDir(i.env), i.nowMs), all));
  }
  if (wants(i.providers, 'codex'))
    all.push(
      ...newestCodexQuota(
        i.sessions.filter((s) => s.provider === 'codex'),
        i.nowMs,
      ),
    );
  const quota = currentFigures(all);
  const running = new Set(i.sessions.filter((s) => s.running === true).map((s) => `${s.provider}:${s.id}`));
  const spent: SpentTokens[] = i.usage.map((u) => ({
    provider: u.provider,
    id: u.id,
    running: running.has(`${u.provider}:${u.id}`),
    spans: u.cells.map((c) => ({ firstMs: c.firstMs, lastMs: c.lastMs, tokens: totalTokens(c.tokens) ?? 0 })),
  }));
  const pace = quota
    .map((f) => paceOf(f, spent, i.nowMs, i.startOfTodayMs))
    .filter((p): p is QuotaPace => p !== null);
  return { quota, pace, problems };
}

/**
 * The status line does not say which account it is: when Claude Code's cache names exactly one,
 * the status line's figures are that account's (one login per config directory, and the note is
 * written by the one Claude Code that runs cctop's status line). With none or several, they stay
 * unattributed.
 */
function adoptAccount(note: QuotaFigure[], cached: readonly QuotaFigure[]): QuotaFigure[] {
  const accounts = new Set(cached.filter((f) => f.harness === 'claude').map((f) => f.account));
  const only = accounts.size === 1 ? [...accounts][0]! : null;
  return only === null ? note : note.map((f) => ({ ...f, account: only }));
}
