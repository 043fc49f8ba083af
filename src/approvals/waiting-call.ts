/**
 * Which call a session's hooks say waits on its person, for an agent whose approval prompt cctop
 * answers by pressing its key in the session's terminal (Codex: its hook runs before its prompt, so
 * nothing is held; see `act/answer-keys.ts`). The hooks only watch here: the newest event of the
 * session that says anything about its state must be a permission request, and it names the command
 * that the prompt on the screen must show before any key is pressed.
 *
 * Such an answer is journaled beside the held ones (`approvals.jsonl`), under a request made from the
 * hook's event, so `cctop explain` tells it with the rest.
 *
 * Not here: reading the hooks' journal (`hooks/journal.ts`), the screen or the keys (`act/`).
 */
import { randomBytes } from 'node:crypto';
import type { HookAgent, HookEvent } from '../hooks/types.js';
import { meaningOf } from '../live/hook-state.js';
import { APPROVAL_VERSION, type ApprovalRequest } from './types.js';

/**
 * The agents whose approval prompt cctop answers by its keys (`act/answer-keys.ts` reads their
 * screens): their hooks run before the prompt, so none is held.
 */
export const KEYED_AGENTS: readonly HookAgent[] = ['codex'];

/** What the hooks say of the session a query names. */
export type WaitingPick =
  /** Its newest word is a permission request for `event.input`. */
  | { kind: 'waiting'; session: string; event: HookEvent & { session: string; input: string } }
  /** Its hooks were heard, but the newest of them is not a request (`said`: what it is). */
  | { kind: 'not-waiting'; session: string; said: string }
  /** A request whose event names no command: cctop cannot tell which call its prompt must show. */
  | { kind: 'unnamed'; session: string }
  /** No session of those agents' hooks is named so. */
  | { kind: 'none' }
  | { kind: 'ambiguous'; sessions: string[] };

/**
 * The session of `agents` whose id is `query` (or starts with it), and whether a call of it waits, as
 * the newest of its `events` (oldest first, as the journal gives them) says. A start of an id that
 * several sessions share names the one of them that waits, as `cctop approve` names a session with an
 * open request: Codex starts a side session beside each, whose id begins alike.
 */
export function waitingCall(
  events: readonly HookEvent[],
  agents: readonly HookAgent[],
  query: string,
): WaitingPick {
  const newest = newestWords(events, agents);
  const said = (session: string): WaitingPick => pickOf(session, newest.get(session)!);
  if (newest.has(query)) return said(query);
  const near = [...newest.keys()].filter((id) => query.length > 0 && id.startsWith(query));
  if (near.length === 0) return { kind: 'none' };
  if (near.length === 1) return said(near[0]!);
  const asking = near.filter((id) => said(id).kind !== 'not-waiting');
  if (asking.length === 1) return said(asking[0]!);
  return { kind: 'ambiguous', sessions: asking.length > 1 ? asking : near };
}

/** A call waiting at a prompt answered by keys, as `cctop pending` lists it. */
export type WaitingCall = Extract<WaitingPick, { kind: 'waiting' }>;

/**
 * Every session of `agents` whose hooks' newest word is a permission request that names its command,
 * the oldest ask first: the calls `cctop pending` lists beside the held requests.
 */
export function waitingCalls(events: readonly HookEvent[], agents: readonly HookAgent[]): WaitingCall[] {
  const out: WaitingCall[] = [];
  for (const [session, e] of newestWords(events, agents)) {
    const pick = pickOf(session, e);
    if (pick.kind === 'waiting') out.push(pick);
  }
  return out.sort((a, b) => a.event.at - b.event.at);
}

/** Each session of `agents` with the newest of its events that says anything about its state. */
function newestWords(events: readonly HookEvent[], agents: readonly HookAgent[]): Map<string, HookEvent> {
  const newest = new Map<string, HookEvent>();
  for (const e of events) {
    if (e.session === null || !agents.includes(e.agent)) continue;
    const seen = newest.get(e.session);
    // Every session heard of is kept; its newest word about its state decides. The journal is in the
    // order the hooks finished; the events' own times order them.
    if (seen === undefined) newest.set(e.session, e);
    else if (meaningOf(e) !== 'none' && (meaningOf(seen) === 'none' || e.at >= seen.at))
      newest.set(e.session, e);
  }
  return newest;
}

/** What the newest word `e` of `session` says. */
function pickOf(session: string, e: HookEvent): WaitingPick {
  const meaning = meaningOf(e);
  if (meaning === 'none') return { kind: 'not-waiting', session, said: 'nothing about its state' };
  if (meaning !== 'waiting') return { kind: 'not-waiting', session, said: `${e.event} (${meaning})` };
  if (e.input === null) return { kind: 'unnamed', session };
  return { kind: 'waiting', session, event: { ...e, session, input: e.input } };
}

/**
 * The request a waiting hook event stands for in the journal of answers: nothing is held, so it has
 * no hold (it ends when it was asked) and its process is the agent's.
 */
export function requestOfEvent(e: HookEvent & { session: string }, agentPid: number): ApprovalRequest {
  return {
    v: APPROVAL_VERSION,
    // Shaped as a held request's id, though no file is ever named by it.
    id: randomBytes(16).toString('hex'),
    agent: e.agent,
    session: e.session,
    cwd: e.cwd,
    tool: e.tool,
    input: e.input,
    kind: 'permission',
    questions: [],
    at: e.at,
    expiresAt: e.at,
    pid: agentPid,
  };
}
