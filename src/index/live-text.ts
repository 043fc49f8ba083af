/**
 * The text of what moves in a printed session: its live members (state, process, what is pending)
 * and its spend windows, in the order `JSON.stringify` of a session document writes them. One
 * declaration for both printers: the index's (`render.ts`) and the warm answer's
 * (`../warm-answer.ts`), which loads this, the clock and the windows and nothing else.
 *
 * Not here: the facts and costs around them (kept as printed text, `session-record.ts`), or the
 * document around the sessions (`render.ts`).
 */
import { type LiveSignal, shownState, stateNow } from '../model/state.js';
import type { LocalTime } from '../model/time.js';
import { DAYS_KEPT, HOURS_KEPT, type SpendBuckets, spendWindows } from '../model/windows.js';
import { membersOf } from './ascii.js';
import type { SessionLive } from './render.js';

/**
 * The spend windows' members (`"byHour":…,"byDay":…`) of a session at `nowMs`. Most sessions spent
 * nothing in the last 31 days: their windows are one text, made once per call of this, and their
 * spend buckets are never decoded (nothing a session spent is later than its last activity).
 */
export function windowsMembers(
  time: LocalTime,
  nowMs: number,
): (s: { tally: { usd: number | null }; lastActiveAt: string | null; spend(): SpendBuckets }) => string {
  const oldestDay = time.dayNumber(nowMs) - (DAYS_KEPT - 1);
  const oldestHour = time.hourStart(nowMs) - (HOURS_KEPT - 1) * HOUR_MS;
  const since = new Date(Math.min(oldestHour, time.dayStartMs(oldestDay))).toISOString();
  let quiet: string | null = null;
  const quietText = () => {
    quiet ??= membersOf(spendWindows({ hours: [], days: [] }, time, nowMs));
    return quiet;
  };
  return (s) => {
    // A session with no price has no windows (its `cost.usd` is null).
    if (s.tally.usd === null) return NO_WINDOWS;
    if (s.lastActiveAt !== null && s.lastActiveAt < since) return quietText();
    const spend = s.spend();
    const recent = spend.days.some(([d]) => d >= oldestDay) || spend.hours.some(([h]) => h >= oldestHour);
    return recent ? membersOf(spendWindows(spend, time, nowMs)) : quietText();
  };
}

export const NO_WINDOWS = '"byHour":null,"byDay":null';
const HOUR_MS = 3_600_000;

/** The text after the cost's members: made once per distinct windows text (most share one). */
const tails = new Map<string, string>();
export function windowsTail(windows: string): string {
  let t = tails.get(windows);
  if (t === undefined) {
    t = `,${windows}}}`;
    if (tails.size < MAX_SHARED_TEXTS) tails.set(windows, t);
  }
  return t;
}

/**
 * Distinct shared texts remembered by the printer. Only the common ones repeat (idle, no process;
 * quiet windows): a handful. The bound keeps a long-running view from remembering every text it
 * ever printed.
 */
const MAX_SHARED_TEXTS = 64;

/** Most sessions share their live fields (idle, no process, nothing pending): their text is made once. */
const commonLive = new Map<string, string>();

/** The live members between the facts and the cost (`,"state":…,"cost":{`). */
export function liveMembers(l: SessionLive): string {
  const common = l.stateDetail === null && l.pendingTool === null && l.process === null;
  const key = common ? `${l.state}|${l.stateSource}|${l.running}|${l.inferred}` : null;
  const known = key === null ? undefined : commonLive.get(key);
  if (known !== undefined) return known;
  const members = membersOf({
    state: l.state,
    stateDetail: l.stateDetail,
    stateSource: l.stateSource,
    running: l.running,
    process: l.process,
    pendingTool: l.pendingTool,
    inferred: l.inferred,
  });
  const text = `,${members},"cost":{`;
  if (key !== null) commonLive.set(key, text);
  return text;
}

/**
 * A session's live fields at `nowMs` when no process runs it: what `live/annotate.ts` settles when
 * it looked at the processes and matched none to the session (`running` false), or cannot look for
 * its harness's (`running` null), and no agent said anything of it. The warm document (`warm-doc.ts`)
 * prints these; anything else (a process that may run it, an agent's word) is the full route's.
 */
export function unrunLive(
  signal: LiveSignal | null,
  mtime: number,
  lastMs: number | null,
  lastActiveAt: string | null,
  running: false | null,
  nowMs: number,
): SessionLive {
  const fromFiles = stateNow(signal, mtime, lastMs, nowMs);
  return {
    state: shownState({ state: fromFiles, running, lastActiveAt }, nowMs),
    stateDetail: signal?.detail ?? null,
    stateSource: 'inferred',
    running,
    process: null,
    pendingTool: signal?.pendingTool ?? null,
    inferred: null,
  };
}
