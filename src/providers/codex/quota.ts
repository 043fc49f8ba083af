/**
 * Codex's quota, from the `rate_limits` it writes on its `token_count` events (kept raw on each
 * session as `rateLimits`). What Codex has written over its versions:
 *
 *   0.5x–0.169: { primary, secondary: { used_percent, window_minutes, resets_at: epoch s } | null,
 *                 credits, plan_type, limit_id, … }            (0.169 names the weekly window primary)
 *   older:      { primary, secondary: { used_percent, window_minutes, resets_in_seconds } }
 *   oldest:     { primary_used_percent, secondary_used_percent, primary_window_minutes, … }
 *
 * A window is named by its length, not by primary/secondary: 300 minutes is `5h`, 10080 is `7d`
 * (a minute either way, as old versions wrote 299 and 10079). The account's figure is the newest
 * snapshot across sessions; one whose reset time has passed is stale.
 *
 * Not here: finding the snapshots (the Codex parser keeps each session's newest), or printing.
 */
import { num, obj, str, text } from '../../model/json.js';
import { type QuotaFigure, type QuotaWindow, resetPassed } from '../../model/quota.js';

/** Window lengths Codex uses, in minutes, and their names; a minute either side is the same window. */
const LENGTHS: readonly [number, QuotaWindow][] = [
  [300, '5h'],
  [7 * 24 * 60, '7d'],
];

/** Seconds since the epoch below this are seconds; above, milliseconds. */
const SECONDS_BELOW = 1e10;

/** The longest plan name kept (Codex's are `plus`, `pro`, `team`, …). */
const MAX_PLAN_CHARS = 64;

const windowOf = (minutes: number | null): QuotaWindow | null =>
  minutes === null ? null : (LENGTHS.find(([m]) => Math.abs(m - minutes) <= 1)?.[1] ?? null);

/** The plan a snapshot names (`plus`, `pro`), as its account's label; null when unsaid. */
export function codexPlan(rateLimits: unknown): string | null {
  const p = text(obj(rateLimits)?.plan_type);
  return p !== null && p.length <= MAX_PLAN_CHARS ? p : null;
}

/**
 * The figures in one snapshot, written at `writtenMs` (the session's last activity: the snapshot is
 * its newest). Windows of a length cctop has no name for are left out.
 */
export function codexQuota(rateLimits: unknown, writtenMs: number | null, nowMs: number): QuotaFigure[] {
  const rl = obj(rateLimits);
  if (rl === null) return [];
  const fetchedAt = writtenMs === null ? null : new Date(writtenMs).toISOString();
  const plan = codexPlan(rl);
  const out: QuotaFigure[] = [];
  const add = (used: number | null, minutes: number | null, resetMs: number | null) => {
    const window = windowOf(minutes);
    if (window === null || used === null || used < 0) return;
    const resetsAt = resetMs === null ? null : new Date(resetMs).toISOString();
    out.push({
      harness: 'codex',
      account: null,
      plan,
      window,
      usedPercent: used,
      resetsAt,
      source: 'rollout',
      fetchedAt,
      stale: resetPassed(resetsAt, nowMs),
    });
  };
  for (const side of ['primary', 'secondary'] as const) {
    const w = obj(rl[side]);
    if (w !== null) {
      add(num(w.used_percent), num(w.window_minutes), resetOf(w, writtenMs));
      continue;
    }
    // The oldest, flat spelling: no reset time at all.
    add(num(rl[`${side}_used_percent`]), num(rl[`${side}_window_minutes`]), null);
  }
  return out;
}

function resetOf(w: Record<string, unknown>, writtenMs: number | null): number | null {
  const at = num(w.resets_at) ?? num(w.reset_at);
  if (at !== null && at > 0) return at < SECONDS_BELOW ? at * 1000 : at;
  const iso = str(w.resets_at);
  if (iso !== null && iso.length <= 40 && Number.isFinite(Date.parse(iso))) return Date.parse(iso);
  const inSeconds = num(w.resets_in_seconds);
  return inSeconds !== null && inSeconds >= 0 && writtenMs !== null ? writtenMs + inSeconds * 1000 : null;
}

/**
 * The account's figures: the newest snapshot across `sessions` that holds any (a session that wrote
 * none, or an all-null one, as an API-key login does, says nothing about the account).
 */
export function newestCodexQuota(
  sessions: readonly { rateLimits: unknown; lastActiveAt: string | null }[],
  nowMs: number,
): QuotaFigure[] {
  let best: { figures: QuotaFigure[]; ms: number } | null = null;
  for (const s of sessions) {
    const ms = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
    if (!Number.isFinite(ms) || (best !== null && ms <= best.ms)) continue;
    const figures = codexQuota(s.rateLimits, ms, nowMs);
    if (figures.length > 0) best = { figures, ms };
  }
  return best?.figures ?? [];
}
