/**
 * The live table's `a`/`d` on a session whose agent holds a permission request (`cctop hooks install
 * --approvals`, docs/act.md): `a` shows the call and asks for `y`; `d` shows it and takes an optional
 * reason, typed on the hint line, sent with Enter. Esc (or any other key after `a`) cancels. The
 * agent's own dialog stays up meanwhile; whichever answers first decides, and the table says which.
 *
 * A session that holds nothing, of an agent whose prompt cctop answers by its keys (Codex in a tmux
 * pane), is asked the same way when its hooks say a call waits: the answer presses the prompt's key
 * once its screen proves it (`act/keyed-answer.ts`); a deny's reason cannot reach it, and the status
 * line says so.
 *
 * The driven runs' `a`/`d` (`input.ts`) come first: this is asked only for a session that is not one.
 *
 * Not here: the answer itself (the app's `answerHeld`, through `approvals/answer.ts`; `answerKeyed`).
 */
import type { ApprovalRequest, Verdict } from '../../approvals/types.js';
import { MAX_ANSWER_CHARS } from '../../approvals/types.js';
import type { SessionDoc } from '../../model/document.js';
import { safeLine } from '../terminal-text.js';
import type { Key } from './keys.js';
import type { ViewState } from './state.js';

/** An answer to a held request (or a prompt answered by its keys) being made on the hint line. */
export interface HeldAsk {
  request: ApprovalRequest;
  /** The session whose prompt is answered by its own keys (Codex: nothing is held), or null when held. */
  keys: SessionDoc | null;
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
  /**
   * The call the hooks of `s` say waits at its prompt, for an agent whose prompt is answered by its
   * keys (`act/keyed-answer.ts`), or null.
   */
  keyed(s: SessionDoc): ApprovalRequest | null;
  /** Press the key of `s`'s prompt once its screen proves it; the app says how it went. */
  answerKeyed(s: SessionDoc, verdict: Verdict): void;
}

/**
 * `a`/`d` on a session: start an answer when its agent holds a request, or (holding none) when its
 * hooks say a call waits at a prompt answered by its keys; false when neither.
 */
export function askHeld(
  v: ViewState,
  s: SessionDoc | undefined,
  behavior: 'allow' | 'deny',
  c: HeldContext,
): boolean {
  if (s === undefined) return false;
  const held = c.held(s.provider, s.id);
  const keyed = held === null ? c.keyed(s) : null;
  if (keyed !== null) {
    v.heldAsk = { request: keyed, keys: s, behavior, reason: '' };
    return true;
  }
  const request = held;
  if (request === null) return false;
  if (request.kind === 'question' && behavior === 'allow') {
    c.say('it asks a question that wants words: cctop approve ID --answer TEXT, or d to deny it');
    return true;
  }
  v.heldAsk = { request, keys: null, behavior, reason: '' };
  return true;
}

/** While an answer is made: `y` sends an allow; for a deny, keys type the reason and Enter sends. */
export function heldKey(v: ViewState, k: Key, c: HeldContext): void {
  const ask = v.heldAsk;
  if (ask === null) return;
  if (ask.behavior === 'allow') {
    v.heldAsk = null;
    if (k.kind === 'char' && k.ch === 'y') send(ask, { kind: 'allow' }, c);
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
      send(ask, { kind: 'deny', reason: reason === '' ? null : reason }, c);
      return;
    }
    default:
      v.heldAsk = null;
      c.say('not answered');
  }
}

function send(ask: HeldAsk, verdict: Verdict, c: HeldContext): void {
  if (ask.keys === null) c.answerHeld(ask.request, verdict);
  else c.answerKeyed(ask.keys, verdict);
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
