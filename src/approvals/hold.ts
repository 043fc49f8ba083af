/**
 * The hook's side of a held request: register it, then wait for the first of: an answer from cctop
 * (delivered to the agent, unless the session moved on meanwhile), the agent's own dialog answered
 * (the session's record shows the call ran or was refused), the agent gone, or the bound. Whatever
 * ends it is written once as the request's settlement and journaled; a hold that ends without an
 * answer prints nothing, so the agent's own dialog decides as if cctop were not there.
 *
 * It looks every `HOLD_POLL_MS` rather than watching the folder: a file's presence is the whole
 * signal, watchers miss events on some file systems, and five looks a second cost nothing beside the
 * agent waiting on a person.
 *
 * Not here: what the agent prints for an answer, or how its record shows the call moved on (the
 * provider's `decide.ts`); answering (`answer.ts`).
 */
import { pidRuns } from '../pid.js';
import { answerOf, appendApprovalJournal, putSettlement, registerRequest, settlementOf } from './store.js';
import type { Answer, ApprovalRequest, ReleaseWhy, Settlement } from './types.js';

/** How often a hold looks for an answer or a sign the session moved on (see above). */
export const HOLD_POLL_MS = 200;

/** What a hold ended with. */
export type HoldResult =
  | { kind: 'delivered'; answer: Answer; output: string }
  | { kind: 'released'; why: ReleaseWhy };

export interface HoldIo {
  /** The approvals folder (`store.approvalsDir`), and the runtime directory for the journal. */
  dir: string;
  runtime: string;
  request: ApprovalRequest;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** The agent's process (the hook's parent); null when unknown. */
  agentPid: number | null;
  /** Whether the session moved on since the request was registered (its own dialog was answered). */
  movedOn: () => boolean;
  /** What the agent must read for an answer, or null when it cannot take this one. */
  render: (answer: Answer) => string | null;
}

/** A hold under way. */
export interface Hold {
  done: Promise<HoldResult>;
  /** End the hold now, from a signal or the process's deadline; synchronous. */
  stop(why: ReleaseWhy): void;
}

export function startHold(io: HoldIo): Hold {
  const { dir, request } = io;
  registerRequest(dir, request, io.now());
  let over: HoldResult | null = null;

  const settle = (s: Settlement, result: HoldResult): HoldResult => {
    if (over !== null) return over;
    if (!putSettlement(dir, request.id, s)) {
      // Settled already: only this process settles, so this is a second call racing the first.
      const kept = settlementOf(dir, request.id);
      over = kept?.kind === 'released' ? { kind: 'released', why: kept.why } : result;
      return over;
    }
    appendApprovalJournal(io.runtime, { kind: 'settled', request, settlement: s });
    over = result;
    return over;
  };
  const release = (why: ReleaseWhy): HoldResult =>
    settle({ kind: 'released', why, at: io.now() }, { kind: 'released', why });

  const look = (): HoldResult | null => {
    const answer = answerOf(dir, request.id);
    if (answer !== null) {
      // The person at the terminal may have answered in the moment before: theirs stands.
      if (io.movedOn()) return release('moved-on');
      const output = io.render(answer);
      if (output === null) return release('unusable');
      return settle({ kind: 'delivered', answer, at: io.now() }, { kind: 'delivered', answer, output });
    }
    if (io.movedOn()) return release('moved-on');
    if (io.agentPid !== null && !pidRuns(io.agentPid)) return release('agent-gone');
    if (io.now() >= request.expiresAt) return release('timeout');
    return null;
  };

  const done = (async (): Promise<HoldResult> => {
    for (;;) {
      if (over !== null) return over;
      const r = look();
      if (r !== null) return r;
      await io.sleep(Math.max(1, Math.min(HOLD_POLL_MS, request.expiresAt - io.now())));
    }
  })();

  return {
    done,
    stop: (why) => {
      if (over === null) release(why);
    },
  };
}
