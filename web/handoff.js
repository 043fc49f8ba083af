// @ts-check
// The session page's Hand off button: it asks the server for the line that hands this session to
// another harness (`cctop handoff ID --to HARNESS --run`), and shows it with a choice of harness and
// a Copy button. Showing a command runs nothing, so a read-only link sees it too; the brief is written
// when the line is run, in a terminal on the machine cctop serve reads.

/** @import { HandoffAnswer } from '../src/views/serve/api.js' */

import { h } from './dom.js';

const enc = encodeURIComponent;

/**
 * @param {unknown} v
 * @returns {v is HandoffAnswer}
 */
const isHandoff = (v) =>
  typeof v === 'object' &&
  v !== null &&
  'to' in v &&
  typeof v.to === 'string' &&
  'targets' in v &&
  Array.isArray(v.targets) &&
  'command' in v &&
  (typeof v.command === 'string' || v.command === null);

/**
 * The server's line for handing `id` to `to` (null: its default), or why there is none.
 * @param {string} id
 * @param {string | null} to
 * @returns {Promise<HandoffAnswer | string>}
 */
async function fetchHandoff(id, to) {
  const res = await fetch(`/api/handoff/${enc(id)}${to ? `?to=${enc(to)}` : ''}`, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  /** @type {unknown} */
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok && isHandoff(body)) return body;
  const error =
    typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string'
      ? body.error
      : `HTTP ${res.status}`;
  return `No handoff command: ${error}.`;
}

/**
 * The Hand off button, and under it, once pressed, the harness to hand to and the command.
 * @param {() => string} id the session's id (its full id once the report has come)
 * @returns {HTMLElement}
 */
export function handoffBar(id) {
  const select = h('select', { class: 'handoff-to', 'aria-label': 'Hand off to' });
  const command = h('code', { class: 'handoff-command' });
  const status = h('span', { class: 'handoff-status dim', role: 'status' });
  const copy = h('button', { type: 'button', class: 'handoff-copy' }, 'Copy');
  const panel = h(
    'div',
    { class: 'handoff-panel', hidden: true },
    h('label', null, 'To ', select),
    command,
    copy,
    status,
    h(
      'p',
      { class: 'dim' },
      'Run it in a terminal: it writes a brief of this session and starts the other agent on it.',
    ),
  );
  /** @param {string | null} to */
  const show = async (to) => {
    status.textContent = '';
    const a = await fetchHandoff(id(), to);
    if (typeof a === 'string') {
      command.textContent = '';
      status.textContent = a;
      return;
    }
    if (select.options.length === 0) for (const t of a.targets) select.append(h('option', { value: t }, t));
    select.value = a.to;
    command.textContent = a.command ?? '';
    if (a.command === null) status.textContent = 'This session id cannot be passed safely on a command line.';
  };
  select.addEventListener('change', () => show(select.value));
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(command.textContent ?? '');
      status.textContent = 'Copied.';
    } catch {
      // No clipboard outside a secure context: select the line, for Ctrl-C.
      getSelection()?.selectAllChildren(command);
      status.textContent = 'Selected: copy it with Ctrl-C.';
    }
  });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'handoff-button',
      title: 'the command that hands this session to another harness',
      onclick: () => {
        panel.hidden = !panel.hidden;
        if (!panel.hidden) show(select.value || null);
      },
    },
    'Hand off…',
  );
  return h('section', { class: 'handoff' }, button, panel);
}
