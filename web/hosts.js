// @ts-check
// The other machines the server reads (`cctop serve --host`), on the dashboard: a line each saying
// how it answers (its sessions and when it last answered, or since when it has not and ssh's trouble
// with the fix), and which machines' rows are their last answer's, to grey them. A remote session is
// shown, never acted on; the session page says where to act on it (session.js).

/** @import { HostStatus } from '../src/model/document.js' */

import { h } from './dom.js';
import { ago, clean, counted, ms } from './format.js';

/**
 * The machines that stopped answering but whose last rows are still shown.
 * @param {HostStatus[]} hosts
 * @returns {Set<string>}
 */
export function silentHosts(hosts) {
  return new Set(hosts.filter((x) => !x.ok && x.error !== null).map((x) => x.host));
}

/**
 * @param {number} n
 */
const sessions = (n) => counted(n, 'session');

/**
 * One machine's line.
 * @param {HostStatus} x
 * @param {number} now
 */
function hostLine(x, now) {
  const name = h('strong', { class: 'host-name' }, clean(x.host));
  const answered = ms(x.answeredAt);
  if (x.ok)
    return h(
      'li',
      { class: 'host ok', dataset: { host: x.host } },
      name,
      ` · ${sessions(x.sessions)} · answered ${ago(answered, now)} ago`,
    );
  if (x.error === null)
    return h('li', { class: 'host waiting', dataset: { host: x.host } }, name, ' · connecting…');
  return h(
    'li',
    { class: 'host silent', dataset: { host: x.host }, role: 'status' },
    name,
    answered === null
      ? ' · has not answered: '
      : ` · last answer ${ago(answered, now)} ago (${sessions(x.sessions)} greyed): `,
    h('span', { class: 'host-error' }, clean(x.error)),
  );
}

/**
 * The lines of the dashboard's "Other machines" strip.
 * @param {HostStatus[]} hosts
 * @param {number} now
 */
export function hostLines(hosts, now) {
  if (hosts.length === 0) return [];
  return [
    h('h2', null, 'Other machines'),
    h(
      'ul',
      { class: 'host-list' },
      hosts.map((x) => hostLine(x, now)),
    ),
  ];
}
