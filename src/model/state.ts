/**
 * What a session is doing: as far as its files say (`stateNow`), then as shown to a person once cctop
 * knows whether a process still runs it (`shownState`, the waiting rule).
 *
 * `working` lapses to `idle` when nothing has been written for a while, so a session abandoned
 * mid-tool-call weeks ago does not read as busy. `waiting` (a question to the user) does not lapse in
 * `stateNow`: the file cannot tell whether anyone can still answer, only the process table can, so
 * that half of the decision waits for it and lives in `shownState` alone. Every view shows and counts
 * what `shownState` decides; none decides again in its own words.
 */

export type SessionState = 'working' | 'waiting' | 'error' | 'idle';

/**
 * Where a session's shown state came from, best first: the agent's hooks said it (`hook`), the
 * agent's own registry of running sessions says it (`registry`, Claude Code), the program driving it
 * through `cctop/drive` says it (`driven`), or cctop read it from the transcript and the process
 * table (`inferred`). `live/hook-state.ts` decides between them.
 */
export type StateSource = 'hook' | 'registry' | 'driven' | 'inferred';

/** The newest record that says something about the session's state, as a provider read it. */
export interface LiveSignal {
  state: SessionState;
  /** When that record was written (ms since the epoch), or null when it carried no time. */
  atMs: number | null;
  /** A word on why: the ask tool's name, the error text, `turn_duration`. */
  detail: string | null;
  /** The newest tool call still waiting for its result, when that is where the session stands. */
  pendingTool?: string | null;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * How long a file may stay quiet before `working` is read as `idle`; also how long a question stays
 * open once cctop sees that no process runs its session (see `shownState`).
 */
export const WORKING_TTL_MS = 15 * MINUTE_MS;

/**
 * How long a `working` session stays working once cctop looked for its process and found none: a
 * run that was killed (a driven run's timeout, Ctrl-C, a crash) leaves its transcript mid-turn, and
 * reading that as busy for the whole `WORKING_TTL_MS` put a `●` on a session nothing ran. Two
 * minutes covers a process paired late (the table is read seconds after the files, and a process
 * that just started may not have written where it is yet), and is an eighth of the lapse it cuts.
 */
export const UNRUN_WORKING_GRACE_MS = 2 * MINUTE_MS;

/**
 * How long a question stays open when cctop cannot see whether a process could answer it: a harness
 * it does not match to processes, a machine whose process table it cannot read, the demo. A day
 * covers a question left open overnight; one older than that, with nothing in sight to answer it,
 * is history (shown under "Needs you" for months, it buried the questions that were not).
 */
export const UNSEEN_WAITING_TTL_MS = 24 * HOUR_MS;

/**
 * The state as the files give it now, from the newest signal and when the session was last active:
 * the older of the file's mtime and its newest record, so a transcript copied or restored today does
 * not make last year's session read as busy. What a person is shown is `shownState` of this.
 */
export function stateNow(
  signal: LiveSignal | null,
  fileMtimeMs: number,
  lastRecordMs: number | null,
  nowMs: number,
): SessionState {
  if (signal === null) return 'idle';
  const activeMs = lastRecordMs === null ? fileMtimeMs : Math.min(fileMtimeMs, lastRecordMs);
  switch (signal.state) {
    case 'working':
      return nowMs - activeMs > WORKING_TTL_MS ? 'idle' : 'working';
    case 'waiting':
    case 'error':
    case 'idle':
      return signal.state;
  }
}

/** What the waiting rule reads of a session. */
export interface ShownStateInputs {
  /** The state as the files give it (`stateNow`). */
  state: SessionState;
  /**
   * As `SessionDoc.running`: true when a process runs the session, false when cctop looked at the
   * harness's processes and none does, null when it cannot look.
   */
  running: boolean | null;
  lastActiveAt: string | null;
}

/**
 * The waiting rule, and the only place it lives: a session is waiting only while something can still
 * answer it. Its twin for `working`: a session cctop looked for a process of and found none is
 * working only within `UNRUN_WORKING_GRACE_MS` of its last write. A question whose process runs stays open however long it waits. One whose process cctop
 * looked for and did not find lapses to `idle` after `WORKING_TTL_MS` of quiet (the grace covers a
 * process matched late or run where cctop cannot see it); one whose process cctop cannot look for
 * lapses after `UNSEEN_WAITING_TTL_MS`. Other states pass through (`working` with a process, or where
cctop cannot look, has lapsed in `stateNow` already).
 *
 * Applying it again to what it returned changes nothing, so a view counting a document that was
 * already settled (or came from another machine) may apply it without harm.
 */
export function shownState(s: ShownStateInputs, nowMs: number): SessionState {
  if (s.state === 'working' && s.running === false) {
    const activeMs = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
    return Number.isFinite(activeMs) && nowMs - activeMs <= UNRUN_WORKING_GRACE_MS ? 'working' : 'idle';
  }
  if (s.state !== 'waiting' || s.running === true) return s.state;
  const lapse = s.running === false ? WORKING_TTL_MS : UNSEEN_WAITING_TTL_MS;
  const activeMs = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
  // known limit: a question with no time on it cannot be shown to be recent, so it is not shown as open.
  return Number.isFinite(activeMs) && nowMs - activeMs <= lapse ? 'waiting' : 'idle';
}

/** How many sessions are in each state, and how many of the working ones probably wait on a prompt. */
export type StateCounts = Record<SessionState, number> & { probablyWaiting: number };

/**
 * Sessions counted by the state `shownState` gives them: every view that shows a count (the live
 * table's header, the dashboard's) counts this way, so the counts agree with the marks in each row.
 */
export function countStates(
  sessions: Iterable<ShownStateInputs & { inferred: 'probably-waiting' | null }>,
  nowMs: number,
): StateCounts {
  const counts: StateCounts = { working: 0, waiting: 0, error: 0, idle: 0, probablyWaiting: 0 };
  for (const s of sessions) {
    counts[shownState(s, nowMs)]++;
    if (s.inferred === 'probably-waiting') counts.probablyWaiting++;
  }
  return counts;
}

/** Tool names with which an agent asks its user something and blocks on the answer. */
export const ASK_USER_TOOLS: ReadonlySet<string> = new Set([
  'askuserquestion',
  'ask_user_question',
  'ask_user',
  'askuser',
  'question',
  'request_user_input',
  // A plan waiting for the user's approval blocks the same way.
  'exitplanmode',
]);

export const isAskUserTool = (name: string): boolean => ASK_USER_TOOLS.has(name.toLowerCase());
