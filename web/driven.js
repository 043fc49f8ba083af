// @ts-check
// A session that cctop/drive drives, on its page: which program drives it, the approval it waits
// on (the tool and its whole input, as text), and, when the program takes answers from here
// (`approvals: 'remote'`), Allow and Deny. An answer is a POST the server takes only with the full
// token and from this page's own origin; the first answer wins, and the card then says who gave it.

/** @import { SessionDoc } from '../src/model/document.js' */

import { h } from './dom.js';

const enc = encodeURIComponent;

/**
 * Send an answer; the server's word on it, as a sentence.
 * @param {string} run
 * @param {string} request
 * @param {'allow' | 'deny'} behavior
 * @returns {Promise<string>}
 */
async function answer(run, request, behavior) {
  const res = await fetch(`/api/runs/${enc(run)}/answer`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ request, behavior }),
  });
  if (res.ok) return behavior === 'allow' ? 'Allowed.' : 'Denied.';
  /** @type {unknown} */
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const error =
    typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string'
      ? body.error
      : `HTTP ${res.status}`;
  return `Not answered: ${error}.`;
}

/**
 * The card for a driven session, or null for any other.
 * @param {SessionDoc} s
 * @returns {HTMLElement | null}
 */
export function drivenCard(s) {
  const d = s.driven;
  if (!d) return null;
  const asked = d.pending[0];
  const status = h('p', { class: 'driven-status', role: 'status' });
  /** @param {'allow' | 'deny'} behavior */
  const send = (behavior) => async () => {
    if (!asked) return;
    for (const b of buttons) b.disabled = true;
    status.textContent = 'Sending…';
    status.textContent = await answer(d.id, asked.id, behavior);
  };
  const buttons =
    asked && d.remote
      ? [
          h('button', { type: 'button', class: 'allow', onclick: send('allow') }, 'Allow'),
          h('button', { type: 'button', class: 'deny', onclick: send('deny') }, 'Deny'),
        ]
      : [];
  return h(
    'section',
    { class: 'driven card' },
    h('h2', null, `Driven by ${d.program}`),
    h('p', { class: 'dim' }, `${d.agent} run, driving process ${d.pid}`),
    asked
      ? h(
          'div',
          { class: 'driven-ask' },
          h('p', null, 'Waits for an answer: ', h('strong', null, asked.tool)),
          h('pre', { class: 'driven-input' }, asked.input),
          d.remote
            ? h('p', { class: 'driven-actions' }, ...buttons)
            : h('p', { class: 'dim' }, `${d.program} answers its own approvals.`),
          d.pending.length > 1 ? h('p', { class: 'dim' }, `and ${d.pending.length - 1} more waiting`) : null,
        )
      : h('p', null, 'Nothing waits for an answer.'),
    d.answered
      ? h(
          'p',
          { class: 'driven-answered' },
          `Last answered: ${d.answered.behavior === 'allow' ? 'allowed' : 'denied'} ${d.answered.tool}, by ${d.answered.by}.`,
        )
      : null,
    status,
  );
}
