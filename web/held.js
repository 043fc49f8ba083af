// @ts-check
// Requests an agent holds for an answer from cctop (`cctop hooks install --approvals`, docs/act.md):
// on the dashboard, a "Needs you" list across sessions; on a session page, that session's card.
// Allow, Deny (a reason optional: what the model is told) or words for a question. An answer is a
// POST the server takes only with the full token and from this page's own origin; the agent's own
// dialog stays up meanwhile, and whichever answers first decides: the card says what happened.

/** @import { ApprovalRequest } from '../src/approvals/types.js' */

import { h, navLink, sessionHref } from './dom.js';

/** How often the open requests are asked for while the page is shown: a person waits on them. */
const POLL_MS = 2000;

/**
 * Send an answer; the server's word on it, as a sentence.
 * @param {string} id
 * @param {{ verdict: 'allow' } | { verdict: 'deny', reason: string } | { verdict: 'text', text: string }} body
 * @returns {Promise<string>}
 */
async function answer(id, body) {
  const res = await fetch(`/api/held/${encodeURIComponent(id)}/answer`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  /** @type {unknown} */
  let reply = null;
  try {
    reply = await res.json();
  } catch {
    reply = null;
  }
  if (res.status === 200)
    return body.verdict === 'allow' ? 'Allowed.' : body.verdict === 'deny' ? 'Denied.' : 'Answered.';
  if (res.status === 202) return 'Sent; the agent has not taken it yet.';
  const error =
    typeof reply === 'object' && reply !== null && 'error' in reply && typeof reply.error === 'string'
      ? reply.error
      : `HTTP ${res.status}`;
  return `Not answered: ${error}.`;
}

/**
 * One request's card: what it asks, and the ways to answer it.
 * @param {ApprovalRequest} r
 * @param {boolean} link whether to link to its session's page (the list across sessions)
 */
function requestCard(r, link) {
  const status = h('p', { class: 'held-status', role: 'status' });
  const words = h('input', {
    type: 'text',
    class: 'held-words',
    maxlength: 4000,
    placeholder: r.kind === 'question' ? 'Your answer' : 'Reason (optional): what the model is told',
    'aria-label': r.kind === 'question' ? 'answer' : 'reason',
  });
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @param {() => Promise<string>} act */
  const send = (act) => async () => {
    for (const b of buttons) b.disabled = true;
    status.textContent = 'Sending…';
    status.textContent = await act();
  };
  if (r.kind !== 'question')
    buttons.push(
      h(
        'button',
        { type: 'button', class: 'allow', onclick: send(() => answer(r.id, { verdict: 'allow' })) },
        'Allow',
      ),
    );
  buttons.push(
    h(
      'button',
      {
        type: 'button',
        class: 'deny',
        onclick: send(() => answer(r.id, { verdict: 'deny', reason: words.value })),
      },
      'Deny',
    ),
  );
  if (r.kind !== 'permission')
    buttons.push(
      h(
        'button',
        {
          type: 'button',
          class: 'answer',
          onclick: send(() => answer(r.id, { verdict: 'text', text: words.value })),
        },
        r.kind === 'question' ? 'Answer' : 'Send back with these words',
      ),
    );
  return h(
    'div',
    { class: 'held card', dataset: { request: r.id } },
    h(
      'p',
      null,
      link ? navLink(sessionHref(r.session), null, `${r.agent} ${r.session.slice(0, 8)}`) : null,
      link ? ' waits: ' : 'Waits for an answer: ',
      h('strong', null, r.tool ?? 'a request'),
    ),
    r.kind === 'question'
      ? r.questions.map((q) => h('p', null, q))
      : h('pre', { class: 'held-input' }, r.input ?? ''),
    h('p', { class: 'held-actions' }, words, ...buttons),
    status,
  );
}

/** The open requests, polled while shown; all of them, or one session's. */
export class HeldRequests {
  /** @param {{ provider: string, id: string } | null} only one session's requests, or all */
  constructor(only) {
    this.only = only;
    this.el = h('section', { class: 'held-requests', 'aria-label': 'requests waiting for you' });
    /** @type {string} the ids as last drawn: a card is redrawn only when the list changed */
    this.sig = '';
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.gone = false;
    this.poll();
  }

  async poll() {
    if (this.gone) return;
    try {
      if (document.visibilityState !== 'hidden') {
        const res = await fetch('/api/held', {
          credentials: 'same-origin',
          headers: { Accept: 'application/json' },
        });
        if (res.ok) this.draw(/** @type {{ requests: ApprovalRequest[] }} */ (await res.json()).requests);
      }
    } catch {
      // The server is restarting or gone: the next poll tries again.
    }
    if (!this.gone) this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  /** @param {ApprovalRequest[]} requests */
  draw(requests) {
    const mine = this.only
      ? requests.filter((r) => r.agent === this.only?.provider && r.session === this.only?.id)
      : requests;
    const sig = mine.map((r) => r.id).join(' ');
    if (sig === this.sig) return;
    this.sig = sig;
    this.el.replaceChildren(
      ...(mine.length > 0 && !this.only ? [h('h2', null, `Needs you: ${mine.length}`)] : []),
      ...mine.map((r) => requestCard(r, this.only === null)),
    );
  }

  destroy() {
    this.gone = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }
}
