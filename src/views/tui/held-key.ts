/**
 * The live table's `a`/`d` on a session whose agent holds a permission request (`cctop hooks install
 * --approvals`, docs/act.md): `a` shows the call and asks for `y`; `d` shows it and takes an optional
 * reason, typed on the hint line, sent with Enter. Esc (or any other key after `a`) cancels. The
 * agent's own dialog stays up meanwhile; whichever answers first decides, and the table says which.
 *
 * The driven runs' `a`/`d` (`input.ts`) come first: this is asked only for a session that is not one.
 *
 * Not here: the answer itself (the app's `answerHeld`, through `approvals/answer.ts`).
 */
import type { ApprovalRequest, Verdict } from '../../approvals/types.js';
import { MAX_ANSWER_CHARS } from '../../approvals/types.js';
import { safeLine } from '../terminal-text.js';
import type { Key } from './keys.js';
import type { ViewState } from './state.js';

/** An answer to a held request being made on the hint line. */
export interface HeldAsk {
  request: ApprovalRequest;
  behavior: 'allow' | 'deny';
  /** What is typed so far (deny only). */
  reason: string;
}

/** What the keys reach beyond the view. */
export interface HeldContext {
  say(text: string): void;
  /** The oldest open request of the session, or null. */
  held(provider: string, id: string): ApprovalRequest | null;
  /** Send an answer; the app says how it went. */
  answerHeld(request: ApprovalRequest, verdict: Verdict): void;
}

/** `a`/`d` on a session: start an answer when its agent holds a request; false when it holds none. */
export function askHeld(
  v: ViewState,
  s: { provider: string; id: string } | undefined,
  behavior: 'allow' | 'deny',
  c: HeldContext,
): boolean {
  const request = s === undefined ? null : c.held(s.provider, s.id);
  if (request === null) return false;
  if (request.kind === 'question' && behavior === 'allow') {
    c.say('it asks a question that wants words: cctop approve ID --answer TEXT, or d to deny it');
    return true;
  }
  v.heldAsk = { request, behavior, reason: '' };
  return true;
}

/** While an answer is made: `y` sends an allow; for a deny, keys type the reason and Enter sends. */
export function heldKey(v: ViewState, k: Key, c: HeldContext): void {
  const ask = v.heldAsk;
  if (ask === null) return;
  if (ask.behavior === 'allow') {
    v.heldAsk = null;
    if (k.kind === 'char' && k.ch === 'y') c.answerHeld(ask.request, { kind: 'allow' });
    else c.say('not answered');
    return;
  }
  switch (k.kind) {
    case 'char':
      if (ask.reason.length + k.ch.length <= MAX_ANSWER_CHARS) ask.reason += k.ch;
      return;
    case 'backspace':
      ask.reason = ask.reason.slice(0, -1);
      return;
    case 'enter': {
      v.heldAsk = null;
      const reason = ask.reason.trim();
      c.answerHeld(ask.request, { kind: 'deny', reason: reason === '' ? null : reason });
      return;
    }
    default:
      v.heldAsk = null;
      c.say('not answered');
  }
}

/** The hint line while an answer is made, or null. */
export function heldQuestion(v: ViewState): string | null {
  const ask = v.heldAsk;
  if (ask === null) return null;
  const what = `${safeLine(ask.request.tool ?? 'the request')}${ask.request.input ? `: ${safeLine(ask.request.input)}` : ''}`;
  return ask.behavior === 'allow'
    ? `Allow ${what}?  y: allow  any other key: cancel`
    : `Deny ${what}. Reason (optional): ${safeLine(ask.reason)}█  Enter: deny  Esc: cancel`;
}
