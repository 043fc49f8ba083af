// @ts-check
// One session: its report (report.js draws it) and its conversation (conversation.js), paged back
// 200 turns at a time, kept current while it runs; and, while it runs, the other sessions writing the
// same files or repository (collisions.js).
//
// Another machine's session (`?host=H`) is read the same way, the server fetching its report and
// conversation over ssh when asked; it is shown, never acted on: no handoff line, no approvals, and
// a line saying where to act on it instead.
//
// Live updates are cheap on both ends: the page asks again only when the session document says this
// session moved, and sends the conversation's stamp back so an unchanged transcript costs the
// server a few stats and the page nothing.

/** @import { SessionDoc, SessionDocument } from '../src/model/document.js' */
/** @import { SessionReport } from '../src/report/types.js' */
/** @import { ChatWindow } from '../src/views/serve/api.js' */

import { AuthError, getChat, getReport, HttpError } from './api.js';
import { collisionsOf, sessionCollisions } from './collisions.js';
import { Conversation } from './conversation.js';
import { fill, h, navLink, sessionHref } from './dom.js';
import { drivenCard } from './driven.js';
import { label, totalTokens } from './format.js';
import { handoffBar } from './handoff.js';
import { HeldRequests } from './held.js';
import { reportCards, section } from './report.js';
import { sessionHead } from './report-head.js';
import { sendBox } from './send-box.js';

const enc = encodeURIComponent;

/** How long another machine's session page waits before asking again when the server says "busy". */
const RETRY_MS = 5_000;

/**
 * What in a session's row says its transcript moved.
 * @param {SessionDoc} s
 */
const signature = (s) =>
  [s.lastActiveAt, s.state, s.requests, s.tools.calls, totalTokens(s.tokens), s.title].join('|');

export class SessionView {
  /**
   * @param {string} id the id from the address (a prefix is allowed)
   * @param {string | null} agent a subagent, whose conversation to show instead of the main one
   * @param {(href: string) => void} navigate
   * @param {string | null} [host] the machine it runs on, when that is another one (`--host`)
   */
  constructor(id, agent, navigate, host = null) {
    this.id = id;
    this.agent = agent;
    this.host = host;
    this.navigate = navigate;
    /** @type {SessionDoc | null} as the newest report gave it */
    this.session = null;
    /** @type {string | null} the signature the page last fetched for */
    this.sig = null;
    this.busy = false;
    this.again = false;
    this.gone = false;
    /** Whether the session was not found yet: the next live document that holds it loads the page. */
    this.unseen = false;
    /** @type {HTMLElement | null} */
    this.diffs = null;
    /** @type {SessionDocument | null} the newest document, for the collisions */
    this.doc = null;

    this.chat = new Conversation(
      () => this.base,
      (before) => this.fetchOlder(before),
      () => this.drawDiffs(),
    );
    this.header = h('div', { class: 'session-head' }, h('p', { class: 'loading' }, 'Loading the session…'));
    this.reportEl = h('div', { class: 'report' });
    this.collisionsEl = h('div', { class: 'session-collisions' });
    this.drivenEl = h('div', { class: 'session-driven' });
    /** This session's requests held for an answer from cctop (docs/act.md), once its id is known. */
    this.heldEl = h('div', { class: 'session-held' });
    /** @type {HeldRequests | null} */
    this.held = null;
    /** @type {string | null} the driven run as last drawn, to redraw only when it moved */
    this.drivenSig = null;
    this.el = h(
      'div',
      { class: 'session' },
      h('nav', { class: 'crumbs' }, navLink('/', null, '← All sessions')),
      this.header,
      host
        ? remoteNote(host, () => this.session?.id ?? this.id)
        : handoffBar(() => this.session?.id ?? this.id),
      this.heldEl,
      this.drivenEl,
      host ? null : sendBox(() => this.session?.id ?? this.id),
      this.collisionsEl,
      h('div', { class: 'columns' }, this.chatCard(), this.reportEl),
    );
    this.load();
  }

  /** The conversation's card: its title, the Markdown download, the follow switch, the turns. */
  chatCard() {
    const agent = this.agent;
    return h(
      'section',
      { class: 'chat card', id: 'conversation' },
      h(
        'div',
        { class: 'chat-title' },
        h('h2', null, agent ? `Subagent ${agent}` : 'Conversation'),
        h(
          'span',
          { class: 'chat-tools' },
          h(
            'a',
            {
              href: this.apiUrl(`/api/chat/${enc(this.id)}/markdown`, agent ? { agent } : {}),
              download: '',
              title: 'the turns cctop keeps (the newest 200), as Markdown',
            },
            'Markdown',
          ),
          h('label', { class: 'switch' }, this.chat.follow, ' Follow'),
        ),
      ),
      this.chat.head,
      this.chat.list,
    );
  }

  get base() {
    return sessionHref(this.session?.id ?? this.id, this.agent, this.host);
  }

  /**
   * An API address for this session, naming its machine when it is another one.
   * @param {string} path
   * @param {Record<string, string | number | null>} extra
   */
  apiUrl(path, extra) {
    const p = new URLSearchParams();
    if (this.host) p.set('host', this.host);
    for (const [k, v] of Object.entries(extra)) if (v !== null) p.set(k, String(v));
    const qs = p.toString();
    return `${path}${qs ? `?${qs}` : ''}`;
  }

  /** @param {Record<string, string | number | null>} extra */
  chatUrl(extra) {
    return this.apiUrl(`/api/chat/${enc(this.session?.id ?? this.id)}`, { agent: this.agent, ...extra });
  }

  /** @param {string} id */
  reportUrl(id) {
    return this.apiUrl(`/api/report/${enc(id)}`, {});
  }

  /**
   * @param {number} before
   * @returns {Promise<ChatWindow | null>}
   */
  async fetchOlder(before) {
    const chat = await getChat(this.chatUrl({ before }));
    return 'unchanged' in chat ? null : chat;
  }

  async load() {
    try {
      const [report, chat] = await Promise.all([
        getReport(this.reportUrl(this.id)),
        getChat(this.chatUrl({})),
      ]);
      this.session = report.session;
      // What the page was built from: a document that differs from it (even the first) means fetch again.
      this.sig = signature(report.session);
      if (this.session.id !== this.id) {
        // A prefix in the address: show the full id from now on.
        history.replaceState(
          history.state,
          '',
          `${sessionHref(this.session.id, this.agent, this.host)}${location.hash}`,
        );
      }
      this.drawReport(report);
      if (!('unchanged' in chat)) this.chat.mergeNewest(chat);
      await this.chat.reachHash();
    } catch (err) {
      this.fail(err);
    }
  }

  /** @param {unknown} err */
  fail(err) {
    if (!this.host && err instanceof HttpError && err.status === 404) {
      // Not read yet (a link opened as its session starts, before cctop has read its files): the
      // page waits for the live document to hold it (`update`), then loads.
      fill(
        this.header,
        h('p', { class: 'loading' }, 'cctop has not read this session yet; it shows here once it has.'),
      );
      this.unseen = true;
      return;
    }
    if (this.host && err instanceof HttpError && err.status === 503) {
      // Its machine has not answered yet, or is being asked already: ask again in a moment.
      fill(this.header, h('p', { class: 'loading' }, err.message));
      setTimeout(() => {
        if (!this.gone) this.load();
      }, RETRY_MS);
      return;
    }
    this.gone = true;
    if (err instanceof AuthError) {
      fill(
        this.header,
        h('p', { class: 'error' }, 'This page needs the link cctop serve printed when it started.'),
      );
      return;
    }
    const candidates = err instanceof HttpError && err.status === 409 ? err.body?.candidates : undefined;
    if (candidates) {
      fill(
        this.header,
        h('p', null, err instanceof Error ? err.message : ''),
        h(
          'ul',
          { class: 'candidates' },
          candidates.map((c) =>
            h('li', null, navLink(sessionHref(c.id, null, this.host), null, `${c.id}  ${label(c)}`)),
          ),
        ),
      );
    } else {
      fill(this.header, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
    }
    this.el.querySelector('.columns')?.remove();
  }

  /**
   * A new session document: if this session moved, fetch what changed.
   * @param {SessionDocument} doc
   */
  update(doc) {
    this.doc = doc;
    if (this.unseen && !this.gone && this.row(doc)) {
      this.unseen = false;
      this.load();
    }
    this.drawCollisions();
    this.drawDriven(doc);
    // Until the first load has finished there is nothing to bring up to date.
    if (this.gone || !this.session) return;
    const s = this.row(doc);
    if (!s) return;
    const sig = signature(s);
    if (this.sig !== null && sig !== this.sig) this.refresh();
    this.sig = sig;
  }

  async refresh() {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      const chat = await getChat(this.chatUrl({ since: this.chat.stamp }));
      if (!('unchanged' in chat)) this.chat.mergeNewest(chat);
      this.drawReport(await getReport(this.reportUrl(this.session?.id ?? this.id)));
    } catch (err) {
      if (err instanceof AuthError) this.fail(err);
    } finally {
      this.busy = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }

  /** @param {SessionReport} r */
  drawReport(r) {
    fill(this.header, sessionHead(r));
    document.title = `${label(r.session)}${this.host ? ` on ${this.host}` : ''} · cctop`;
    const line = this.el.querySelector('.remote-handoff');
    if (line) line.textContent = `cctop handoff ${r.session.id}`;
    this.drawCollisions();
    this.diffs = section('Diffs', 'diffs');
    fill(this.reportEl, reportCards(r, this.agent, this.diffs));
    this.drawDiffs();
  }

  drawDiffs() {
    if (this.diffs) fill(this.diffs, this.chat.diffs());
  }

  /**
   * The program driving this session and what it asks, when one does; redrawn only when the run
   * moved, so a refused answer's message stays until it does.
   * @param {SessionDocument} doc
   */
  drawDriven(doc) {
    if (this.gone) return;
    // Another machine's runs are answered there: its card is not drawn here.
    const s = this.host ? undefined : this.row(doc);
    if (s && this.held === null) {
      this.held = new HeldRequests({ provider: s.provider, id: s.id });
      fill(this.heldEl, this.held.el);
    }
    const sig = JSON.stringify(s?.driven ?? null);
    if (sig === this.drivenSig) return;
    this.drivenSig = sig;
    fill(this.drivenEl, s ? drivenCard(s) : null);
  }

  /**
   * This session's row in `doc` (on its machine: ids are only unique within one).
   * @param {SessionDocument} doc
   */
  row(doc) {
    const key = this.session?.id ?? this.id;
    const here = doc.sessions.filter((x) => (x.host ?? null) === this.host);
    return here.find((x) => x.id === key) ?? here.find((x) => x.id.startsWith(key));
  }

  /** The collisions this session is in (this machine's only), once it is known which session this is. */
  drawCollisions() {
    const s = this.session;
    if (this.gone || s === null || this.doc === null || this.host) return;
    fill(this.collisionsEl, sessionCollisions(collisionsOf(this.doc), s, Date.now()));
  }

  reachHash() {
    return this.chat.reachHash();
  }

  destroy() {
    this.gone = true;
    this.held?.destroy();
  }
}

/**
 * In place of the Hand off button on another machine's session: where it runs, and the line to run
 * there. Nothing on this page acts on it.
 * @param {string} host
 * @param {() => string} id the session's id (its full id once the report has come)
 */
function remoteNote(host, id) {
  const command = h('code', null, `ssh ${host}`);
  const el = h(
    'section',
    { class: 'remote-note card', role: 'note' },
    h('p', null, 'This session runs on ', h('strong', null, host), '. It is shown here, not acted on.'),
    h(
      'p',
      { class: 'dim' },
      'To resume it or hand it off, do it there: ',
      command,
      ', then ',
      h('code', { class: 'remote-handoff' }, `cctop handoff ${id()}`),
      '.',
    ),
  );
  return el;
}
