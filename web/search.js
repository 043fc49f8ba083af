// @ts-check
// The dashboard's search box: words, "a phrase" or a prefix* over every conversation (the same
// search as `cctop search`, through `/api/search`), each result a line of the transcript with the
// matches marked, linking to its turn on the session page (`/session/<id>#turn-N`).
//
// A snippet is transcript text: it goes in as text nodes, the marks as <mark> elements around text
// nodes, never as markup.

/** @import { SearchHit } from '../src/search/search.js' */
/** @import { SearchResults } from '../src/views/serve/search.js' */

import { fill, h, navLink, sessionHref } from './dom.js';
import { basename, clean, counted, harness, localTime } from './format.js';

/** Typing settles this long before a search is sent: one per pause, not one per key. */
const SETTLE_MS = 300;

/** Characters before a search is sent while typing (Enter sends any). */
const MIN_TYPED = 3;

/** @type {Record<SearchHit['role'], string>} */
const WHO = { user: 'User', assistant: 'Agent', tool: 'Call', title: 'Title' };

/**
 * @param {unknown} v
 * @returns {v is SearchResults}
 */
const isResults = (v) =>
  typeof v === 'object' && v !== null && Array.isArray(/** @type {{ results?: unknown }} */ (v).results);

/**
 * The snippet with its matches in <mark>, every piece a text node.
 * @param {SearchHit} hit
 */
function snippet(hit) {
  /** @type {(Node | string)[]} */
  const parts = [];
  let at = 0;
  for (const [a, b] of hit.marks) {
    parts.push(clean(hit.snippet.slice(at, a)), h('mark', null, clean(hit.snippet.slice(a, b))));
    at = b;
  }
  parts.push(clean(hit.snippet.slice(at)));
  return h('p', { class: 'hit-text' }, parts);
}

/** @param {SearchHit} hit */
function hitEl(hit) {
  const href = `${sessionHref(hit.session)}${hit.seq === null ? '' : `#turn-${hit.seq}`}`;
  return h(
    'li',
    { class: 'hit' },
    h(
      'div',
      { class: 'hit-head' },
      navLink(href, { class: 'hit-title' }, clean(hit.title ?? hit.session)),
      h('span', { class: 'dim' }, ` ${harness(hit.provider)}`),
      hit.project ? h('span', { class: 'dim', title: hit.project }, ` · ${basename(hit.project)}`) : null,
      hit.at ? h('span', { class: 'dim' }, ` · ${localTime(hit.at)}`) : null,
      h('span', { class: 'dim' }, ` · ${WHO[hit.role]}${hit.seq === null ? '' : ` #${hit.seq}`}`),
    ),
    snippet(hit),
  );
}

export class SearchBox {
  constructor() {
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    /** Answers to older searches are dropped when a newer one was sent. */
    this.sent = 0;
    // Not `type=search`: the sessions table's filter below is the page's one such box.
    this.input = h('input', {
      type: 'text',
      role: 'searchbox',
      enterkeyhint: 'search',
      placeholder: 'Search every conversation: words, "a phrase", prefix*',
      'aria-label': 'search conversations',
      oninput: () => this.typed(),
      onkeydown: (e) => {
        if (!(e instanceof KeyboardEvent)) return;
        if (e.key === 'Enter') this.run();
        else if (e.key === 'Escape') {
          this.input.value = '';
          this.typed();
        }
      },
    });
    this.status = h('p', { class: 'dim search-status', role: 'status' });
    this.list = h('ol', { class: 'hits' });
    this.el = h('section', { class: 'search', 'aria-label': 'search' }, this.input, this.status, this.list);
  }

  typed() {
    if (this.timer !== null) clearTimeout(this.timer);
    const q = this.input.value.trim();
    if (q.length === 0) {
      this.sent++;
      fill(this.status);
      fill(this.list);
      return;
    }
    if (q.length >= MIN_TYPED) this.timer = setTimeout(() => this.run(), SETTLE_MS);
  }

  async run() {
    if (this.timer !== null) clearTimeout(this.timer);
    const q = this.input.value.trim();
    if (q.length === 0) return;
    const mine = ++this.sent;
    fill(this.status, 'Searching…');
    /** @type {unknown} */
    let body = null;
    let ok = false;
    try {
      const res = await fetch(`/api/search?q=${encodeURIComponent(q)}`, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      ok = res.ok;
      body = await res.json();
    } catch {
      body = null;
    }
    if (mine !== this.sent) return;
    if (!ok || !isResults(body)) {
      const error =
        typeof body === 'object' && body !== null ? /** @type {{ error?: unknown }} */ (body).error : null;
      fill(
        this.status,
        h('span', { class: 'error' }, typeof error === 'string' ? error : 'The search failed.'),
      );
      fill(this.list);
      return;
    }
    const n = body.results.length;
    fill(
      this.status,
      n === 0 ? 'No conversation matches.' : `${counted(n, 'result')}, best first.`,
      body.behind
        ? ` Results may be behind: ${counted(body.behind.files, 'transcript')} not read yet; search again to read on.`
        : '',
    );
    fill(this.list, body.results.map(hitEl));
  }
}
