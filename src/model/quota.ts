/**
 * The quota a subscription runs out of: how much of each rate-limit window an account has used, when
 * the window starts again, where the figure came from and how old it is; and the pace, cctop's own
 * estimate of when the window runs out at today's burn.
 *
 * The figures are the agents' own (Claude Code's cache in `.claude.json`, what it sends a status line,
 * Codex's `rate_limits` in a rollout); the providers read them (`providers/claude/quota.ts`,
 * `providers/codex/quota.ts`). This module only names them, says which is current, and projects.
 *
 * Two meanings are kept apart: `usedPercent` is always the agent's word; the pace is always labelled
 * as cctop's estimate. A figure whose window has reset since it was read is `stale`: it says what was
 * used in a window that no longer exists, so no view shows it as the current figure.
 *
 * Not here: reading files (the providers), printing (`views/cli/quota.ts`).
 */
import type { ProviderId } from './facts.js';

/** The windows by the names every view and the JSON use. */
export const QUOTA_WINDOWS = ['5h', '7d', '7d-opus', '7d-sonnet', 'extra'] as const;
export type QuotaWindow = (typeof QUOTA_WINDOWS)[number];

/**
 * Where a figure came from:
 * - `agent-cache`: the agent's own cache of the account's meter (Claude Code's `.claude.json`);
 * - `statusline`: what Claude Code last sent cctop's status line (fresher, while a session runs);
 * - `rollout`: the newest `rate_limits` a Codex session wrote;
 * - `estimate`: cctop's own arithmetic (the pace), never a used percentage.
 */
export type QuotaSource = 'agent-cache' | 'statusline' | 'rollout' | 'estimate';

/** How each source is named to a person. */
export const SOURCE_LABEL: Record<QuotaSource, string> = {
  'agent-cache': "agent's cache",
  statusline: 'statusline',
  rollout: 'rollout',
  estimate: "cctop's estimate",
};

/** One window of one account, as one source last saw it (the `quota` list of `cctop quota --json`). */
export interface QuotaFigure {
  harness: ProviderId;
  /** The account it belongs to, as the agent names it (Claude's account UUID, Codex's plan); null when unsaid. */
  account: string | null;
  /** The plan the source names (Codex's `plan_type`: `plus`, `pro`); null when unsaid. */
  plan: string | null;
  window: QuotaWindow;
  /** 0–100, the agent's word; null when the source names the window without a figure. */
  usedPercent: number | null;
  /** When the window starts again (ISO); null when unsaid. */
  resetsAt: string | null;
  source: QuotaSource;
  /** When the source read it (ISO); null when unknown. */
  fetchedAt: string | null;
  /** The window has reset since the figure was read: it is history, not the current figure. */
  stale: boolean;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** How long each window runs; null where it is not a rolling span of time (`extra` is a monthly credit). */
export const WINDOW_MS: Record<QuotaWindow, number | null> = {
  '5h': 5 * HOUR,
  '7d': 7 * DAY,
  '7d-opus': 7 * DAY,
  '7d-sonnet': 7 * DAY,
  extra: null,
};

/** Whether a figure's window has reset by `nowMs` (a figure with no reset time cannot be proven stale). */
export function resetPassed(resetsAt: string | null, nowMs: number): boolean {
  if (resetsAt === null) return false;
  const ms = Date.parse(resetsAt);
  return Number.isFinite(ms) && ms <= nowMs;
}

const fetchedMs = (f: QuotaFigure): number => {
  const ms = f.fetchedAt === null ? Number.NaN : Date.parse(f.fetchedAt);
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
};

/**
 * One figure per harness, account and window: a current one over a stale one, then the newest read.
 * Order: as `QUOTA_WINDOWS` within a harness, harnesses as first met.
 */
export function currentFigures(all: readonly QuotaFigure[]): QuotaFigure[] {
  const best = new Map<string, QuotaFigure>();
  for (const f of all) {
    const key = `${f.harness}\u0000${f.account ?? ''}\u0000${f.window}`;
    const had = best.get(key);
    if (had === undefined || better(f, had)) best.set(key, f);
  }
  const harnesses = [...new Set(all.map((f) => f.harness))];
  return [...best.values()].sort(
    (a, b) =>
      harnesses.indexOf(a.harness) - harnesses.indexOf(b.harness) ||
      (a.account ?? '').localeCompare(b.account ?? '') ||
      QUOTA_WINDOWS.indexOf(a.window) - QUOTA_WINDOWS.indexOf(b.window),
  );
}

function better(f: QuotaFigure, than: QuotaFigure): boolean {
  if (f.stale !== than.stale) return !f.stale;
  return fetchedMs(f) > fetchedMs(than);
}

/** Tokens one session spent, at the time they were spent: what the pace is worked out from. */
export interface SpentTokens {
  provider: ProviderId;
  id: string;
  /** Whether a live process runs it now. */
  running: boolean;
  /** Its requests' tokens per span of time (cctop's index keeps them per hour). */
  spans: readonly { firstMs: number; lastMs: number; tokens: number }[];
}

/** cctop's estimate for one window (source `estimate`). */
export interface QuotaPace {
  harness: ProviderId;
  window: QuotaWindow;
  /** Tokens this harness's sessions spent inside the window so far. */
  windowTokens: number;
  /** Tokens per hour since the later of the window's start and the start of today. */
  burnPerHour: number | null;
  /** When the window runs out at that burn (ISO); null when it lasts until it resets, or cannot be told. */
  runsOutAt: string | null;
  /** Whether it runs out before it resets; null when that cannot be told. */
  beforeReset: boolean | null;
  /** The running session spending the window fastest, and its share of the window's tokens (0–1). */
  fastest: { provider: ProviderId; id: string; share: number } | null;
}

/**
 * The pace of one current figure: the tokens spent inside its window give tokens per percent; the
 * burn since the start of today (or of the window, if later) gives when the rest is gone.
 * Null for a stale figure, one without a figure or a reset time, or a window that is not a span.
 *
 * Known limit: the index keeps tokens per hour, so a window that starts inside an hour counts that
 * hour's requests whole if the hour's last request falls inside it. And the agent's meter counts the
 * account's use everywhere (claude.ai, another machine), cctop only this machine's transcripts: the
 * projection assumes this machine's share stays what it has been.
 */
export function paceOf(
  f: QuotaFigure,
  sessions: readonly SpentTokens[],
  nowMs: number,
  startOfTodayMs: number,
): QuotaPace | null {
  const span = WINDOW_MS[f.window];
  const resetMs = f.resetsAt === null ? Number.NaN : Date.parse(f.resetsAt);
  if (f.stale || span === null || f.usedPercent === null || !Number.isFinite(resetMs)) return null;
  const startMs = resetMs - span;
  const burnFromMs = Math.max(startMs, startOfTodayMs);
  let windowTokens = 0;
  let burnTokens = 0;
  let top: { provider: ProviderId; id: string; tokens: number } | null = null;
  for (const s of sessions) {
    if (s.provider !== f.harness) continue;
    let mine = 0;
    for (const c of s.spans) {
      if (c.lastMs < startMs || c.firstMs > nowMs) continue;
      mine += c.tokens;
      if (c.lastMs >= burnFromMs) burnTokens += c.tokens;
    }
    windowTokens += mine;
    if (s.running && mine > 0 && (top === null || mine > top.tokens))
      top = { provider: s.provider, id: s.id, tokens: mine };
  }
  const hours = (nowMs - burnFromMs) / HOUR;
  const burnPerHour = hours > 0 && burnTokens > 0 ? burnTokens / hours : null;
  let runsOutAt: string | null = null;
  let beforeReset: boolean | null = null;
  if (burnPerHour !== null && f.usedPercent > 0 && windowTokens > 0) {
    const left = Math.max(0, 100 - f.usedPercent) * (windowTokens / f.usedPercent);
    const outMs = nowMs + (left / burnPerHour) * HOUR;
    beforeReset = outMs < resetMs;
    runsOutAt = beforeReset ? new Date(Math.round(outMs)).toISOString() : null;
  }
  return {
    harness: f.harness,
    window: f.window,
    windowTokens,
    burnPerHour,
    runsOutAt,
    beforeReset,
    fastest:
      top === null || windowTokens === 0
        ? null
        : { provider: top.provider, id: top.id, share: top.tokens / windowTokens },
  };
}
