/**
 * Which sessions have just started waiting on their user. Notifying is on the edge, not the level:
 * a session rings once when it crosses into waiting (known or probably), not on every refresh while
 * it stays there, and not when cctop starts and finds it already waiting.
 *
 * The alerts (budgets, stalls, burns, error loops) are found by `live/alerts.ts`; they ring the
 * same way, through `alertNotification`.
 */
import type { Alert } from '../../live/alerts.js';
import type { SessionDoc } from '../../model/document.js';
import { alertLine } from '../alert-text.js';
import { safeLine } from '../terminal-text.js';

type Waiting = 'waiting' | 'probably-waiting';

/** What a session's state reads as for notifying: its known wait, else the inferred one. */
function waitingOf(s: SessionDoc): Waiting | null {
  if (s.deleted) return null;
  if (s.state === 'waiting') return 'waiting';
  if (s.inferred === 'probably-waiting') return 'probably-waiting';
  return null;
}

export interface Crossing {
  session: SessionDoc;
  waiting: Waiting;
}

export class WaitWatcher {
  /** Each session's wait as last seen; a key absent means the session was never seen. */
  private readonly last = new Map<string, Waiting | null>();

  constructor(private readonly keyOf: (s: SessionDoc) => string) {}

  /** The sessions that crossed into waiting since the previous call. */
  update(sessions: readonly SessionDoc[]): Crossing[] {
    const out: Crossing[] = [];
    for (const s of sessions) {
      const key = this.keyOf(s);
      const now = waitingOf(s);
      const seen = this.last.has(key);
      const was = this.last.get(key) ?? null;
      // A session seen for the first time while already waiting does not ring: cctop just started,
      // or the session was created already waiting — neither is news.
      if (seen && now !== null && was === null) out.push({ session: s, waiting: now });
      this.last.set(key, now);
    }
    return out;
  }
}

/** The bell and an OSC 9 desktop notification, with the session's words made safe for a terminal. */
export function notification(c: Crossing): string {
  const who = c.session.title ?? c.session.id;
  return ring(`${who} is ${c.waiting === 'waiting' ? 'waiting for you' : 'probably waiting for you'}`);
}

/** The same for an alert (a budget crossed, a stall, a burn, an error loop). */
export function alertNotification(a: Alert): string {
  return ring(alertLine(a));
}

function ring(what: string): string {
  // Cut before making safe: a cut through an escape sequence leaves a piece that is still marked.
  const safe = safeLine(what.slice(0, NOTIFICATION_CHARS));
  return `\u0007\u001b]9;cctop: ${safe}\u0007`;
}

/** The longest notification text; desktop notifiers cut long ones anyway. */
const NOTIFICATION_CHARS = 200;
