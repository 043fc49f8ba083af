// @ts-check
// The session page's box that types a line into the session's own terminal, as `cctop send` does:
// the tmux pane proven to hold its agent. The server takes it only with the full token and from this
// page's own origin, and says why when it cannot prove the pane; the box shows that sentence.

import { h } from './dom.js';

/** The longest line the server types (`MAX_SEND_CHARS` in src/act/typing.ts). */
const MAX_SEND_CHARS = 4000;

/**
 * Type `text` into session `id`; the server's word on it, as a sentence.
 * @param {string} id
 * @param {string} text
 * @returns {Promise<string>}
 */
async function send(id, text) {
  const res = await fetch(`/api/sessions/${encodeURIComponent(id)}/send`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ text }),
  });
  /** @type {unknown} */
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const field = (/** @type {string} */ k) =>
    typeof body === 'object' && body !== null && k in body
      ? /** @type {Record<string, unknown>} */ (body)[k]
      : undefined;
  if (res.ok) return `Typed into ${String(field('where') ?? 'its terminal')}.`;
  const error = field('error');
  return `Not typed: ${typeof error === 'string' ? error : `HTTP ${res.status}`}.`;
}

/**
 * The box, for the session `id()` names when its button is pressed.
 * @param {() => string} id
 * @returns {HTMLElement}
 */
export function sendBox(id) {
  const input = h('input', {
    type: 'text',
    class: 'send-text',
    maxlength: MAX_SEND_CHARS,
    'aria-label': "A line to type into the session's terminal",
    placeholder: 'A line to type, then Enter',
  });
  const status = h('p', { class: 'send-status dim', role: 'status' });
  const button = h('button', { type: 'submit', class: 'send-button' }, 'Send');
  const form = h('form', { class: 'send-form' }, input, button);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const field = /** @type {HTMLInputElement} */ (input);
    if (field.value === '') return;
    /** @type {HTMLButtonElement} */ (button).disabled = true;
    status.textContent = 'Sending…';
    status.textContent = await send(id(), field.value);
    if (status.textContent.startsWith('Typed')) field.value = '';
    /** @type {HTMLButtonElement} */ (button).disabled = false;
  });
  return h(
    'section',
    { class: 'send card' },
    h('h2', null, 'Type into its terminal'),
    h('p', { class: 'dim' }, "The line and Enter go to the tmux pane that runs this session's agent."),
    form,
    status,
  );
}
