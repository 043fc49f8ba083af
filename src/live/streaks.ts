/**
 * The failing streak each agent of a session ends on: the calls at the end of its log that failed
 * one after another with the same tool and the same input. The error-loop alert counts these
 * (`alerts.ts`); a success, or any other call, ends a streak.
 *
 * Each agent (the main thread, each subagent) is its own row of calls: a subagent looping on a
 * failing command is a loop even while the main thread waits for it.
 *
 * Not here: how long a streak must be to alert, or reading the log (`DeepReader`).
 */
import type { Call, CallLog } from '../model/calls.js';

export interface Streak {
  /**
   * Names the streak for as long as it runs: its agent, tool and first call (when it started, or
   * where it sits in the log when the harness wrote no time). A new streak of the same call, after a
   * success, is another streak.
   */
  id: string;
  origin: string;
  name: string;
  argument: string;
  count: number;
}

/** A call still running: neither its end nor its result is known, so it has not failed yet. */
const running = (c: Call): boolean => c.endMs === null && c.result === null && !c.failed;

/** The trailing failed streak of each agent that ends on one. */
export function trailingStreaks(log: CallLog): Streak[] {
  const byOrigin = new Map<string, number[]>();
  log.calls.forEach((c, i) => {
    let at = byOrigin.get(c.origin);
    if (at === undefined) {
      at = [];
      byOrigin.set(c.origin, at);
    }
    at.push(i);
  });
  const out: Streak[] = [];
  for (const [origin, at] of byOrigin) {
    let end = at.length - 1;
    while (end >= 0 && running(log.calls[at[end]!]!)) end--;
    const last = end >= 0 ? log.calls[at[end]!]! : null;
    if (last === null || !last.failed) continue;
    // The same call tried again and still running does not end the streak; any other call does.
    const after = at.slice(end + 1).map((i) => log.calls[i]!);
    if (after.some((c) => c.name !== last.name || c.argument !== last.argument)) continue;
    let first = end;
    while (first > 0) {
      const c = log.calls[at[first - 1]!]!;
      if (!c.failed || c.name !== last.name || c.argument !== last.argument) break;
      first--;
    }
    const start = log.calls[at[first]!]!;
    const where = start.startMs ?? `#${log.dropped + at[first]!}`;
    out.push({
      id: `${origin}\u0000${last.name}\u0000${where}`,
      origin,
      name: last.name,
      argument: last.argument,
      count: end - first + 1,
    });
  }
  return out;
}
