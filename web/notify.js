// @ts-check
// "Notify me": a browser notification when a session crosses into waiting on its user. Edge
// triggered: a session already waiting when the page opened, or still waiting on the next update,
// does not notify again; only the change does. The server's alerts (a budget crossing 80% or 100%, a
// session stalled, spending fast or looping on a failing call) notify through the same switch; the
// server sends each once, when it fires.
//
// The Notification API exists only on secure origins (https, or http on localhost / 127.0.0.1); on
// a LAN address over plain http the switch says so instead of pretending.

/** @import { SessionDoc, SessionDocument } from '../src/model/document.js' */
/** @import { SessionState } from '../src/model/state.js' */
/** @import { AlertFrame } from './shared-delta.js' */

import { sessionHref } from './dom.js';
import { label } from './format.js';
import { onAlert } from './notices.js';

/** Where the switch's position is remembered between visits. */
const KEY = 'cctop-notify';

/** @param {SessionDoc} s */
const keyOf = (s) => `${s.provider}:${s.id}:${s.host ?? ''}`;

export class Notifier {
  /**
   * @param {HTMLInputElement} input the switch
   * @param {(href: string) => void} navigate
   */
  constructor(input, navigate) {
    this.input = input;
    this.navigate = navigate;
    /** @type {Map<string, SessionState> | null} state seen in the previous document; null until the first */
    this.seen = null;
    this.supported = 'Notification' in window && window.isSecureContext;
    const slot = input.parentElement;
    if (!this.supported) {
      input.disabled = true;
      if (slot)
        slot.title = window.isSecureContext
          ? 'This browser has no notifications'
          : 'Notifications need https or a localhost address';
      return;
    }
    input.checked = localStorage.getItem(KEY) === '1' && Notification.permission === 'granted';
    input.addEventListener('change', () => this.toggle());
    onAlert((a) => this.alert(a));
  }

  async toggle() {
    if (!this.input.checked) {
      localStorage.removeItem(KEY);
      return;
    }
    const permission =
      Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
    if (permission !== 'granted') {
      this.input.checked = false;
      if (this.input.parentElement)
        this.input.parentElement.title = 'Notifications are blocked for this site in the browser settings';
      return;
    }
    localStorage.setItem(KEY, '1');
  }

  get on() {
    return this.supported && this.input.checked && Notification.permission === 'granted';
  }

  /**
   * Look at a new document: notify for every session that has just started waiting.
   * @param {SessionDocument} doc
   */
  observe(doc) {
    /** @type {Map<string, SessionState>} */
    const next = new Map(doc.sessions.map((s) => [keyOf(s), s.state]));
    if (this.seen !== null && this.on) {
      for (const s of doc.sessions) {
        const before = this.seen.get(keyOf(s));
        if (s.state === 'waiting' && before !== 'waiting') this.fire(s);
      }
    }
    this.seen = next;
  }

  /**
   * One alert from the server. Its tag is the same in every tab, so the browser shows it once.
   * @param {AlertFrame} a
   */
  alert(a) {
    if (!this.on) return;
    const n = new Notification(a.title, { body: a.body, tag: `cctop-${a.tag}`, icon: '/favicon.svg' });
    const session = a.session;
    n.addEventListener('click', () => {
      window.focus();
      if (session) this.navigate(sessionHref(session.id));
      n.close();
    });
  }

  /** @param {SessionDoc} s */
  fire(s) {
    const n = new Notification(`${label(s)}${s.host ? ` on ${s.host}` : ''} is waiting on you`, {
      body: s.stateDetail ? `${s.stateDetail}` : 'The agent asked you something.',
      tag: `cctop-${s.provider}-${s.id}${s.host ? `-${s.host}` : ''}`,
      icon: '/favicon.svg',
    });
    n.addEventListener('click', () => {
      window.focus();
      this.navigate(sessionHref(s.id, null, s.host ?? null));
      n.close();
    });
  }
}
