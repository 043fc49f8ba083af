/**
 * Which sessions have just started waiting on their user or stopped on an error. Notifying is on the
 * edge, not the level: a session rings once when it crosses into waiting (known or probably) or
 * error, not on every refresh while it stays there, and not when cctop starts and finds it so. The rule itself is
 * `notify/crossings.ts`'s, shared with the desktop and webhook notices.
 *
 * The alerts (budgets, stalls, burns, error loops) are found by `live/alerts.ts`; they ring the
 * same way, through `alertNotification`.
 */
import type { Alert } from '../../live/alerts.js';
import type { Collision } from '../../model/collision.js';
import type { SessionDoc } from '../../model/document.js';
import { StateCrossings } from '../../notify/crossings.js';
import { alertLine } from '../alert-text.js';
import { collisionLine } from '../collision-text.js';
import { safeLine } from '../terminal-text.js';

export interface Crossing {
  session: SessionDoc;
  into: 'waiting' | 'probably-waiting' | 'error';
}

/** The sessions that crossed into waiting or error, by the rule the desktop and webhook notices follow. */
export class WaitWatcher {
  private readonly crossings: StateCrossings;

  constructor(keyOf: (s: SessionDoc) => string) {
    this.crossings = new StateCrossings(keyOf);
  }

  /** The sessions that crossed since the previous call. */
  update(sessions: readonly SessionDoc[]): Crossing[] {
    return this.crossings.update(sessions).map((c) => ({
      session: c.session,
      into: c.into === 'error' ? 'error' : c.probably ? 'probably-waiting' : 'waiting',
    }));
  }
}

/** The bell and an OSC 9 desktop notification, with the session's words made safe for a terminal. */
export function notification(c: Crossing): string {
  const who = c.session.title ?? c.session.id;
  const what =
    c.into === 'error'
      ? `stopped on an error${c.session.stateDetail ? `: ${c.session.stateDetail}` : ''}`
      : c.into === 'waiting'
        ? 'waiting for you'
        : 'probably waiting for you';
  return ring(`${who} ${c.into === 'error' ? what : `is ${what}`}`);
}

/** The same for an alert (a budget crossed, a stall, a burn, an error loop). */
export function alertNotification(a: Alert): string {
  return ring(alertLine(a));
}

/** The same for a new collision (two running sessions wrote the same file). */
export function collisionNotification(c: Collision): string {
  return ring(collisionLine(c));
}

function ring(what: string): string {
  // Cut before making safe: a cut through an escape sequence leaves a piece that is still marked.
  const safe = safeLine(what.slice(0, NOTIFICATION_CHARS));
  return `\u0007\u001b]9;cctop: ${safe}\u0007`;
}

/** The longest notification text; desktop notifiers cut long ones anyway. */
const NOTIFICATION_CHARS = 200;
