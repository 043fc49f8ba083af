// @ts-check
// cctop's page: one document, three views (the dashboard at `/`, a session at `/session/<id>`, or
// `/session/<id>?host=H` for another machine's, the Spend screen at `/spend`), switched without
// reloading so the event stream stays open.

/** @import { SessionDocument } from '../src/model/document.js' */
/** @import { LinkStatus } from './live.js' */

import { Dashboard } from './dashboard.js';
import { fill, h, setText, targetOf } from './dom.js';
import { follow } from './live.js';
import { Notifier } from './notify.js';
import { SessionView } from './session.js';
import { SpendView } from './spend.js';

/** How often the dashboard is drawn again with no update, so "3m ago" keeps moving on a quiet machine. */
const TICK_MS = 15_000;

/**
 * The page's element with `id`, which index.html always has.
 * @template {HTMLElement} E
 * @param {string} id
 * @param {new () => E} kind
 * @returns {E}
 */
function byId(id, kind) {
  const el = document.getElementById(id);
  if (!(el instanceof kind)) throw new Error(`index.html has no #${id}; reinstall cctop`);
  return el;
}

const app = byId('app', HTMLElement);
const status = byId('status', HTMLElement);
/** @type {Dashboard | SessionView | SpendView | null} */
let view = null;
/** @type {SessionDocument | null} */
let doc = null;

function route() {
  if (view !== null) view.destroy();
  const m = /^\/session\/([^/]+)$/.exec(location.pathname);
  if (m?.[1]) {
    const q = new URLSearchParams(location.search);
    view = new SessionView(decodeURIComponent(m[1]), q.get('agent'), navigate, q.get('host'));
  } else if (location.pathname === '/spend') {
    view = new SpendView(navigate);
    document.title = 'Spend · cctop';
  } else {
    view = new Dashboard(navigate);
    document.title = 'cctop';
  }
  fill(app, view.el);
  for (const a of document.querySelectorAll('.top .nav-link')) {
    if (a.getAttribute('href') === location.pathname) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (doc) view.update(doc);
  if (!location.hash) window.scrollTo(0, 0);
}

/** @param {string} href */
export function navigate(href) {
  if (href === `${location.pathname}${location.search}${location.hash}`) return;
  history.pushState(null, '', href);
  route();
}

document.addEventListener('click', (e) => {
  const a = targetOf(e)?.closest('a[data-nav]');
  const href = a?.getAttribute('href');
  if (!href || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
    return;
  e.preventDefault();
  navigate(href);
});
window.addEventListener('popstate', route);
window.addEventListener('hashchange', () => {
  if (view instanceof SessionView) view.reachHash();
});

const notifier = new Notifier(byId('notify', HTMLInputElement), navigate);

/** @type {Record<LinkStatus, string>} */
const STATUS_TEXT = {
  live: 'live',
  reconnecting: 'reconnecting…',
  polling: 'polling',
  denied: 'link expired',
};

follow(
  (next) => {
    doc = next;
    notifier.observe(next);
    const waiting = next.sessions.filter((s) => s.state === 'waiting').length;
    const base = document.title.replace(/^\(\d+\) /, '');
    document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
    view?.update(next);
    setText(status, `live · ${new Date(next.generatedAt).toLocaleTimeString()}`);
  },
  (st) => {
    status.className = `status ${st}`;
    if (st !== 'live') setText(status, STATUS_TEXT[st]);
    if (st === 'denied')
      fill(
        app,
        h(
          'p',
          { class: 'error' },
          'This page needs the link cctop serve printed when it started (the token changes with every run).',
        ),
      );
  },
);

setInterval(() => {
  if (doc && view instanceof Dashboard) view.update(doc);
}, TICK_MS);

route();
