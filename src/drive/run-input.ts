/**
 * What a caller says into a running agent, and the checks it passes before it reaches the agent's
 * pipes: an answer to an approval request (`Run.respond`) and a message mid-run (`Run.send`). Each
 * is refused with a `DriveError` when the run was not started for it, is over, or (an answer) when
 * nothing with that id waits; every refusal names the agent as its request named it (an ACP agent
 * by the name the request gave it).
 *
 * What it does not do: speak the agent's protocol (the conversation does, `conversation.ts`), or
 * keep the run's state (the runner's, `run.ts`, which says where the run stands through `Live`).
 */
import { checkAcp } from './acp/index.js';
import type { Conversation } from './conversation.js';
import { DriveError } from './errors.js';
import type { AgentId, Decision } from './events.js';
import type { Plan, Request } from './request.js';

/** Where a run stands, as far as its caller's input cares. */
export interface Live {
  agent: AgentId;
  bin: string;
  /** The run's plan; null until it was made (a run that failed before is refused as over). */
  plan: Plan | null;
  /** The run finished or is being stopped. */
  over: boolean;
  conversation: Conversation;
  /** The name the run's errors give the agent (`shownName`). */
  shown: string | null;
}

/** Answer an approval request the agent is waiting on. */
export function answer(live: Live, id: string, decision: Decision): void {
  naming(live.shown, () => {
    if (live.plan !== null && !live.plan.approvals) {
      throw new DriveError({
        kind: 'unsupported',
        agent: live.agent,
        what: 'approvals on a run started without approvals: true',
      });
    }
    if (live.over || !live.conversation.open) {
      throw new DriveError({ kind: 'cancelled', agent: live.agent, bin: live.bin });
    }
    if (!live.conversation.answer(id, decision)) {
      throw new DriveError({
        kind: 'invalid_request',
        what: `no approval request "${id.slice(0, 80)}" is waiting`,
      });
    }
  });
}

/** Send the agent another message mid-run. */
export function say(live: Live, text: string): void {
  naming(live.shown, () => {
    if (live.plan !== null && !live.plan.interactive) {
      throw new DriveError({
        kind: 'unsupported',
        agent: live.agent,
        what: 'mid-run input on a run started without interactive: true',
      });
    }
    if (live.over || !live.conversation.open) {
      // The turn settled: a new message is a new run that resumes the session.
      throw new DriveError({ kind: 'cancelled', agent: live.agent, bin: live.bin });
    }
    live.conversation.send(text);
  });
}

/** What `fn` throws, naming the agent as the request named it. */
function naming(shown: string | null, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    throw e instanceof DriveError ? e.naming(shown) : e;
  }
}

/** The name an ACP run's errors go by: the one its request gives, when that is usable; else null. */
export function shownName(request: Request): string | null {
  if (request.agent !== 'acp') return null;
  try {
    return checkAcp(request.acp).name;
  } catch {
    // A malformed ACP request fails on its own, in words that need no agent's name.
    return null;
  }
}
