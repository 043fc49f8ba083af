/**
 * Each session's token rate as the live table shows it (TOK/M): the change of its token total
 * between refreshes, per minute, smoothed. A total that fell is not a rate: the transcript was
 * rewritten (the demo's replay starting over, a file truncated and written again), so the rate
 * starts over from that sample rather than going negative.
 *
 * Not here: how the rate is drawn (the table's columns), or the session's total (`model/usage.ts`).
 */
import type { SessionDoc } from '../model/document.js';
import { totalTokens } from '../model/usage.js';

/** Weight of the newest sample in the average: a rate follows a change within a few refreshes. */
export const RATE_SMOOTHING = 0.4;

const MINUTE_MS = 60_000;

/** A session's token total at the last refresh, to tell its rate from the next. */
export interface Sample {
  tokens: number;
  at: number;
}

/** Fold a refresh into each session's smoothed token rate (tokens a minute), keyed by `keyOf`. */
export function updateRates(
  rates: Map<string, number>,
  previous: Map<string, Sample>,
  sessions: readonly SessionDoc[],
  now: number,
  keyOf: (s: SessionDoc) => string,
): void {
  for (const s of sessions) {
    const key = keyOf(s);
    const total = totalTokens(s.tokens) ?? 0;
    const before = previous.get(key);
    if (before !== undefined && total < before.tokens) rates.delete(key);
    else if (before !== undefined && now > before.at) {
      const perMinute = ((total - before.tokens) / (now - before.at)) * MINUTE_MS;
      const old = rates.get(key) ?? perMinute;
      rates.set(key, old + RATE_SMOOTHING * (perMinute - old));
    }
    previous.set(key, { tokens: total, at: now });
  }
}
