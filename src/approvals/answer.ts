/**
 * Answering a held request from outside the agent's own dialog: `cctop approve`, the live table, the
 * dashboard and a notification's signed link all come here. An answer is checked against the request
 * (still open, the kind of answer it can take), written once (the first wins), and then confirmed by
 * the holding hook, which alone settles: it delivers the answer, or refuses it because the agent's
 * own dialog was answered first. Every refusal is journaled with who was refused and why.
 *
 * Not here: the files (`store.ts`), the hook's wait (`hold.ts`).
 */
import {
  answerOf,
  appendApprovalJournal,
  closedWhy,
  openRequests,
  putAnswer,
  settlementOf,
} from './store.js';
import { type Answer, type ApprovalRequest, settledWords, verdictWords } from './types.js';

/**
 * How long an answerer waits for the holding hook to settle its answer. The hook looks every
 * `HOLD_POLL_MS` (a fifth of a second); ten times that leaves room for a machine so loaded that the
 * hook's timer runs late, and is still short enough for a command a person waits on.
 */
export const ANSWER_CONFIRM_MS = 2_000;

/** Why an answer was not delivered. */
export type RefusedWhy =
  /** No open request of that session (or at that link). */
  | 'none-open'
  /** Another answer was taken first. */
  | 'taken'
  /** The request ended before this answer (its hold ran out, its own dialog was answered, …). */
  | 'closed'
  /** The request cannot take this kind of answer (words for a yes/no, a bare allow for a question). */
  | 'unusable';

export type AnswerOutcome =
  | { kind: 'delivered'; request: ApprovalRequest }
  /** Written, but the hook had not settled it when the wait ended (it will, or its hold ends). */
  | { kind: 'unconfirmed'; request: ApprovalRequest }
  | { kind: 'refused'; why: RefusedWhy; words: string; request: ApprovalRequest | null };

export interface AnswerIo {
  dir: string;
  runtime: string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** How long to wait for the hook (`ANSWER_CONFIRM_MS`). */
  confirmMs: number;
}

/** Whether a request can take an answer: null when it can, else why not. */
export function unusableWhy(request: ApprovalRequest, answer: Answer): string | null {
  const v = answer.verdict;
  switch (request.kind) {
    case 'permission':
      return v.kind === 'text'
        ? 'it asks to allow or deny a tool call, not for words (use allow, or deny --reason TEXT)'
        : null;
    case 'question':
      return v.kind === 'allow'
        ? 'it asks a question: answer it with words (--answer TEXT), or deny it'
        : null;
    case 'plan':
      return null;
  }
}

/** Answer `request`; see the module's comment for the steps. */
export async function answerRequest(
  io: AnswerIo,
  request: ApprovalRequest,
  answer: Answer,
): Promise<AnswerOutcome> {
  const refuse = (why: RefusedWhy, words: string): AnswerOutcome => {
    appendApprovalJournal(io.runtime, { kind: 'refused', request, answer, why: words });
    return { kind: 'refused', why, words, request };
  };
  const closed = closedWhy(io.dir, request, io.now());
  if (closed !== null) return refuse('closed', closedWords(io.dir, request, closed));
  const unusable = unusableWhy(request, answer);
  if (unusable !== null) return refuse('unusable', `not taken: ${unusable}`);
  if (!putAnswer(io.dir, request.id, answer)) {
    const first = answerOf(io.dir, request.id);
    return refuse(
      'taken',
      first === null
        ? 'already answered'
        : `already answered (${verdictWords(first.verdict)}) by ${first.by.who} via ${first.by.via}`,
    );
  }
  const until = io.now() + io.confirmMs;
  for (;;) {
    const s = settlementOf(io.dir, request.id);
    if (s !== null) {
      if (s.kind === 'delivered' && s.answer.at === answer.at && s.answer.by.via === answer.by.via)
        return { kind: 'delivered', request };
      return refuse('closed', `not taken: ${settledWords(s)}`);
    }
    if (io.now() >= until) return { kind: 'unconfirmed', request };
    await io.sleep(50);
  }
}

function closedWords(dir: string, request: ApprovalRequest, closed: string): string {
  const s = settlementOf(dir, request.id);
  if (s !== null) return `no longer open: ${settledWords(s)}`;
  return closed === 'expired'
    ? 'no longer open: its hold ran out, only the agent’s own dialog can answer it now'
    : 'no longer open: its hook is gone (the agent stopped waiting for it)';
}

/** Which session's open requests `pickSession` found. */
export type SessionPick =
  | { kind: 'found'; requests: ApprovalRequest[] }
  | { kind: 'none' }
  | { kind: 'ambiguous'; sessions: string[] };

/** The open requests of the session `query` names (its whole id, or a prefix of one session's), oldest first. */
export function pickSession(dir: string, query: string, now: number): SessionPick {
  const open = openRequests(dir, now);
  const exact = open.filter((r) => r.session === query);
  if (exact.length > 0) return { kind: 'found', requests: exact };
  const near = open.filter((r) => query.length > 0 && r.session.startsWith(query));
  const sessions = [...new Set(near.map((r) => r.session))];
  if (sessions.length === 0) return { kind: 'none' };
  if (sessions.length > 1) return { kind: 'ambiguous', sessions };
  return { kind: 'found', requests: near };
}
