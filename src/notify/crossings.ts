/**
 * Which sessions have just crossed into a state someone should hear about: waiting on its user, or
 * stopped on an error. Notifying is on the edge, not the level: a session is told once when it
 * crosses, not on every refresh while it stays there, and again only after it left and came back.
 *
 * A session seen for the first time is not told, whatever its state: cctop just started, or took
 * over from another cctop that already told it, or the session was created in that state. None of
 * these is news. The live table's bell (`views/tui/notify.ts`) rings by the same rule, from here.
 *
 * What is read is the state as shown (`SessionDoc.state`, settled by the live state: hooks, the
 * agents' registries, the process table), with an inferred wait (`probably-waiting`) counted as a
 * wait: a known wait following an inferred one is the same wait, not a second crossing.
 *
 * Not here: the alerts (`live/alerts.ts`) or what a crossing says (`notice.ts`).
 */
import type { SessionDoc } from '../model/document.js';

/** What a session's state reads as for notifying; null for states nobody is told about. */
type Told = 'waiting' | 'error';

export interface StateCrossing {
  session: SessionDoc;
  into: Told;
  /** For a wait: cctop inferred it (a pending call, a quiet file, an idle process); the agent did not say. */
  probably: boolean;
}

function toldOf(s: SessionDoc): Told | null {
  if (s.deleted) return null;
  if (s.state === 'error') return 'error';
  if (s.state === 'waiting' || s.inferred === 'probably-waiting') return 'waiting';
  return null;
}

export class StateCrossings {
  /** Each present session's state as last seen; a key absent means the session was never seen. */
  private last = new Map<string, Told | null>();

  constructor(private readonly keyOf: (s: SessionDoc) => string) {}

  /**
   * The sessions that crossed since the previous call. Sessions absent from `sessions` are forgotten:
   * one that comes back (a filter lifted) is seen for the first time again, and not told.
   */
  update(sessions: readonly SessionDoc[]): StateCrossing[] {
    const out: StateCrossing[] = [];
    const next = new Map<string, Told | null>();
    for (const s of sessions) {
      const key = this.keyOf(s);
      const now = toldOf(s);
      next.set(key, now);
      if (!this.last.has(key)) continue;
      const was = this.last.get(key) ?? null;
      if (now !== null && now !== was)
        out.push({ session: s, into: now, probably: now === 'waiting' && s.state !== 'waiting' });
    }
    this.last = next;
    return out;
  }
}
