/**
 * What a session is doing, as far as its files say.
 *
 * `working` lapses to `idle` when nothing has been written for a while, so a session abandoned
 * mid-tool-call weeks ago does not read as busy; `waiting` (a question to the user) never lapses,
 * since the question is still open however long it waits.
 */

export type SessionState = 'working' | 'waiting' | 'error' | 'idle';

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

/** How long a file may stay quiet before `working` is read as `idle`. */
export const WORKING_TTL_MS = 15 * 60 * 1000;

/**
 * Resolve the state shown now from the newest signal and when the session was last active: the
 * older of the file's mtime and its newest record, so a transcript copied or restored today does
 * not make last year's session read as busy.
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
