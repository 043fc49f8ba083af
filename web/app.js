// cctop's page: one document, two views (the dashboard at `/`, a session at `/session/<id>`),
// switched without reloading so the event stream stays open.

import { Dashboard } from './dashboard.js';
import { fill, h, setText } from './dom.js';
import { follow } from './live.js';
import { Notifier } from './notify.js';
import { SessionView } from './session.js';

const app = document.getElementById('app');
const status = document.getElementById('status');
let view = null;
let doc = null;

function route() {
  view?.destroy?.();
  const m = /^\/session\/([^/]+)$/.exec(location.pathname);
  if (m) {
    const agent = new URLSearchParams(location.search).get('agent');
    view = new SessionView(decodeURIComponent(m[1]), agent, navigate);
  } else {
    view = new Dashboard(navigate);
    document.title = 'cctop';
  }
  fill(app, view.el);
  if (doc) view.update(doc);
  if (!location.hash) window.scrollTo(0, 0);
}

export function navigate(href) {
  if (href === `${location.pathname}${location.search}${location.hash}`) return;
  history.pushState(null, '', href);
  route();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);
window.addEventListener('hashchange', () => view?.reachHash?.());

const notifier = new Notifier(document.getElementById('notify'), navigate);

const STATUS_TEXT = {
  live: 'live',
  reconnecting: 'reconnecting…',
  polling: 'polling',
  denied: 'link expired',
};

follow(
  (next) => {
    doc = next;
    notifier.observe(doc);
    const waiting = doc.sessions.filter((s) => s.state === 'waiting').length;
    const base = document.title.replace(/^\(\d+\) /, '');
    document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
    view?.update(doc);
    setText(status, `live · ${new Date(doc.generatedAt).toLocaleTimeString()}`);
  },
  (st) => {
    status.className = `status ${st}`;
    if (st !== 'live') setText(status, STATUS_TEXT[st] ?? st);
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

// "3m ago" keeps moving on a quiet machine too.
setInterval(() => {
  if (doc && view instanceof Dashboard) view.update(doc);
}, 15_000);

route();
