/**
 * One keyed answer, from the person's word to the journal line, shared by every view that offers it
 * (`cctop approve`, the live table's `a`/`d`): which call the session's hooks say waits
 * (`approvals/waiting-call.ts`), the request that stands for it in the journal of answers, the proof
 * and the key (`answer-keys.ts`), and the journal line of what was pressed or refused. It returns what
 * happened as an outcome; each view says it in its own words.
 *
 * Not here: finding the session's record (each view has its own: the CLI reads the agent's files, the
 * table has it on screen), the words and exit codes (the views).
 */
import { unusableWhy } from '../approvals/answer.js';
import { appendApprovalJournal } from '../approvals/store.js';
import type { Answerer, ApprovalRequest, Verdict } from '../approvals/types.js';
import { KEYED_AGENTS, requestOfEvent, waitingCall } from '../approvals/waiting-call.js';
import { type HookEvent, MAX_HOOK_FIELD_CHARS } from '../hooks/types.js';
import type { SessionDoc } from '../model/document.js';
import type { Env } from '../providers/types.js';
import { answerByKeys, type KeysIo } from './answer-keys.js';

export type KeyedOutcome =
  /** No session of an agent answered by keys is named so: the caller says nothing waits. */
  | { kind: 'none' }
  | { kind: 'ambiguous'; sessions: string[] }
  /** Its hooks were heard, but their newest word is not a request (`said`: what it is). */
  | { kind: 'not-waiting'; session: string; said: string }
  /** Its hook names no command, so no prompt can be proved to be about it. */
  | { kind: 'unnamed'; session: string }
  /** Nothing pressed, for `words`; journaled. */
  | { kind: 'refused'; request: ApprovalRequest; words: string }
  /** The key was pressed; journaled. */
  | {
      kind: 'pressed';
      request: ApprovalRequest;
      session: SessionDoc;
      verdict: 'allow' | 'deny';
      key: string;
      label: string;
      where: string;
      /** Whether the prompt was seen to close after the key. */
      closed: boolean;
      /** Whether the deny ends the agent's turn (Codex's esc). */
      endsTurn: boolean;
      /** A deny's reason was given, and the prompt takes no words: it was not delivered. */
      reasonDropped: boolean;
    };

export interface KeyedIo {
  env: Env;
  /** The runtime directory, where the journal of answers is. */
  runtime: string;
  /** The hooks' journal, oldest first (`hooks/journal.ts`). */
  events: readonly HookEvent[];
  /** The record of the session the hooks named, or null when cctop finds none to prove. */
  find(session: string, agent: HookEvent['agent']): Promise<SessionDoc | null>;
  /** A test's screen reader or wait (`answer-keys.ts`). */
  keys?: Omit<KeysIo, 'env'>;
}

/**
 * Answer the session `query` names (its id or the start of one) with `verdict`, by pressing its
 * prompt's own key once the screen proves the prompt asks about the call its hooks say waits.
 */
export async function answerKeyed(
  io: KeyedIo,
  query: string,
  verdict: Verdict,
  by: Answerer,
): Promise<KeyedOutcome> {
  const pick = waitingCall(io.events, KEYED_AGENTS, query);
  if (pick.kind !== 'waiting') return pick;
  // The hook ran in the agent's process: its parent is the agent, whose request this stands for.
  const request = requestOfEvent(pick.event, pick.event.ppid ?? 0);
  const answer = { verdict, by, at: Date.now() };
  const refuse = (words: string): KeyedOutcome => {
    appendApprovalJournal(io.runtime, { kind: 'refused', request, answer, why: words });
    return { kind: 'refused', request, words };
  };
  const unusable = unusableWhy(request, answer);
  if (unusable !== null || verdict.kind === 'text')
    return refuse(`not taken: ${unusable ?? 'it asks allow or deny'}`);
  const s = await io.find(pick.session, pick.event.agent);
  if (s === null)
    return refuse(
      `cctop finds no session ${pick.session} in the agents' files, so it cannot prove its terminal`,
    );
  const r = await answerByKeys(s, pick.event.input, MAX_HOOK_FIELD_CHARS, verdict.kind, {
    ...io.keys,
    env: io.env,
  });
  if (r.kind === 'refused') return refuse(`${r.why}; ${r.fix}`);
  appendApprovalJournal(io.runtime, {
    kind: 'typed',
    request,
    answer,
    where: r.where,
    key: r.key,
    closed: r.closed,
  });
  return {
    kind: 'pressed',
    request,
    session: s,
    verdict: verdict.kind,
    key: r.key,
    label: r.label,
    where: r.where,
    closed: r.closed,
    endsTurn: r.endsTurn,
    reasonDropped: verdict.kind === 'deny' && verdict.reason !== null,
  };
}
