/**
 * One document from this machine's and other machines' sessions: the remote rows beside the local
 * ones (newest activity first, as every document orders them), totals over all of them, and `hosts`
 * saying how each machine answered. The local document is not changed.
 *
 * Not here: reading the hosts (`read.ts`, `poller.ts`). Collisions stay this machine's: two sessions
 * on different machines never write the same file.
 */
import type { HostStatus, SessionDoc, SessionDocument } from '../model/document.js';
import { totalsOf } from '../model/totals.js';
import { explain } from './failure.js';
import type { HostReading } from './read.js';

/** One host as a view shows it: how it answered, and the rows it has (its last answer's). */
export interface HostView {
  status: HostStatus;
  sessions: SessionDoc[];
}

const activity = (s: SessionDoc): number => {
  const ms = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
};

/** A one-shot reading as a view: a failed host has no rows. */
export function viewOf(r: HostReading, nowIso: string): HostView {
  switch (r.kind) {
    case 'read':
      return {
        status: { host: r.host.name, ok: true, sessions: r.sessions.length, error: null, answeredAt: nowIso },
        sessions: r.sessions,
      };
    case 'failed':
      return {
        status: {
          host: r.host.name,
          ok: false,
          sessions: 0,
          error: explain(r.host.name, r.failure),
          answeredAt: null,
        },
        sessions: [],
      };
  }
}

/** `local` with the hosts' rows beside its own, totals over all of them, and each host's status. */
export function withHostViews(local: SessionDocument, views: readonly HostView[]): SessionDocument {
  const remote = views.flatMap((v) => v.sessions);
  // A stable sort: local rows first among equals, then hosts in the order given.
  const sessions = [...local.sessions, ...remote].sort((a, b) => activity(b) - activity(a) || 0);
  return { ...local, sessions, totals: totalsOf(sessions), hosts: views.map((v) => v.status) };
}

/** `withHostViews` for one-shot readings, answered at `nowIso`. */
export function withHosts(
  local: SessionDocument,
  readings: readonly HostReading[],
  nowIso: string,
): SessionDocument {
  return withHostViews(
    local,
    readings.map((r) => viewOf(r, nowIso)),
  );
}
