/**
 * Codex's rate-limit snapshot (the newest `token_count`'s `rate_limits`, kept raw in a session's
 * facts) as the status line's quota: the window of five hours and the one of seven days, each its
 * used percent and when it resets. Codex names its windows `primary` and `secondary` and says how
 * long each is (`window_minutes`), so each is placed by its length, not its name. Not here: showing
 * them (`statusline/line.ts`).
 */
import { count, type JsonObject, obj } from '../../model/json.js';
import type { Limits, LimitWindow } from '../../statusline/input.js';

const FIVE_HOURS_MIN = 300;
const SEVEN_DAYS_MIN = 10_080;

function windowOf(w: JsonObject): LimitWindow | null {
  const used = typeof w.used_percent === 'number' && Number.isFinite(w.used_percent) ? w.used_percent : null;
  if (used === null) return null;
  const at = count(w.resets_at);
  return { usedPercent: Math.min(100, Math.max(0, used)), resetsAtMs: at === null ? null : at * 1000 };
}

/** The quota a Codex session last reported, or null when it reported none Codex sized. */
export function codexLimits(raw: unknown): Limits | null {
  const r = obj(raw);
  if (r === null) return null;
  const out: Limits = { fiveHour: null, sevenDay: null };
  for (const w of [obj(r.primary), obj(r.secondary)]) {
    if (w === null) continue;
    const minutes = count(w.window_minutes);
    if (minutes === FIVE_HOURS_MIN) out.fiveHour = windowOf(w);
    else if (minutes === SEVEN_DAYS_MIN) out.sevenDay = windowOf(w);
  }
  return out.fiveHour === null && out.sevenDay === null ? null : out;
}
