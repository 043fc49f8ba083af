// @ts-check
// The dashboard: who needs you, what is being spent, and every session as a sortable, filterable
// table that becomes a list of cards on a phone. Rows are kept by session and only their changed
// cells are rewritten, so a live update every couple of seconds does not rebuild the page. The
// columns and filters are in dashboard-columns.js, the cards above the table in dashboard-summary.js,
// the collisions (a badge on a row, a card each above the table) in collisions.js, the other machines
// the server reads (`--host`: a Host column, a line each on how it answers) in hosts.js.

/** @import { CollisionLevel } from '../src/model/collision.js' */
/** @import { SessionDoc, SessionDocument } from '../src/model/document.js' */
/** @import { Filter } from './dashboard-columns.js' */

import { meter } from './charts.js';
import { collisionCards, collisionLevels, collisionsOf, drawBadge } from './collisions.js';
import {
  COLUMNS,
  ctxFraction,
  DEFAULT_SORT,
  isStateFilter,
  matches,
  STATES,
  WORD_COLUMNS,
} from './dashboard-columns.js';
import { needsYou, spendSummary } from './dashboard-summary.js';
import { fill, h, navLink, sessionHref, setText, targetOf } from './dom.js';
import { basename, clean, counted, harness, STATE_MARK } from './format.js';
import { hostLines, silentHosts } from './hosts.js';
import { SearchBox } from './search.js';

/** Rows drawn before "show all": enough for any screen, few enough to stay quick with 4,000 sessions. */
const FIRST_ROWS = 300;

/** Steps in a row's context meter: redrawn only when the fill moves a step (40 units wide). */
const METER_STEPS = 40;

/**
 * One drawn row and the nodes its live cells write into.
 * @typedef {object} Row
 * @property {HTMLTableRowElement} tr
 * @property {HTMLElement} mark
 * @property {HTMLElement} word
 * @property {HTMLElement} badge says whether the session collides with another
 * @property {HTMLElement} project
 * @property {HTMLElement} title
 * @property {HTMLElement} ctxText
 * @property {HTMLElement} ctxBar
 * @property {number | null} ctxStep the meter step drawn, null for none
 * @property {Map<string, HTMLTableCellElement>} cells the plain cells, by column key
 */

/**
 * A row's key: another machine may have a session of the same harness and id.
 * @param {SessionDoc} s
 */
const keyOf = (s) => `${s.provider}:${s.id}:${s.host ?? ''}`;

/**
 * A session's page.
 * @param {SessionDoc} s
 */
const hrefOf = (s) => sessionHref(s.id, null, s.host ?? null);

export class Dashboard {
  /** @param {(href: string) => void} navigate */
  constructor(navigate) {
    this.navigate = navigate;
    const p = new URLSearchParams(location.search);
    const state = p.get('state');
    /** @type {Filter} */
    this.filter = {
      q: p.get('q') ?? '',
      state: isStateFilter(state) ? state : 'all',
      provider: p.get('harness') ?? '',
    };
    const sort = p.get('sort');
    this.sortKey = COLUMNS.some((c) => c.key === sort) && sort !== null ? sort : DEFAULT_SORT;
    this.desc = p.get('dir') !== 'asc';
    this.showAll = false;
    /** @type {Map<string, Row>} */
    this.rows = new Map();
    /** @type {SessionDocument | null} */
    this.doc = null;

    this.summary = h('section', { class: 'summary', 'aria-label': 'spend' });
    this.needs = h('section', { class: 'needs', 'aria-label': 'needs you' });
    this.collisions = h('section', { class: 'collisions', 'aria-label': 'collisions' });
    this.hosts = h('section', { class: 'hosts', 'aria-label': 'other machines' });
    this.search = h('input', {
      type: 'search',
      placeholder: 'Filter: project, title, model, branch, id',
      value: this.filter.q,
      'aria-label': 'filter sessions',
      oninput: () => {
        this.filter.q = this.search.value;
        this.changed();
      },
    });
    this.stateSel = h(
      'select',
      { 'aria-label': 'state', onchange: () => this.pickState() },
      STATES.map((st) =>
        h('option', { value: st, selected: st === this.filter.state }, st === 'all' ? 'every state' : st),
      ),
    );
    this.providerSel = h('select', {
      'aria-label': 'harness',
      onchange: () => {
        this.filter.provider = this.providerSel.value;
        this.changed();
      },
    });
    this.count = h('span', { class: 'count' });
    this.head = h('tr', null);
    this.body = h('tbody', null);
    this.table = h('table', { class: 'sessions' }, h('thead', null, this.head), this.body);
    this.more = h('div', { class: 'more' });
    this.el = h(
      'div',
      { class: 'dashboard' },
      this.needs,
      this.collisions,
      this.summary,
      new SearchBox().el,
      this.hosts,
      h('div', { class: 'filters' }, this.search, this.stateSel, this.providerSel, this.count),
      h('div', { class: 'table-wrap' }, this.table),
      this.more,
    );
    this.drawHead();
  }

  pickState() {
    const v = this.stateSel.value;
    if (isStateFilter(v)) this.filter.state = v;
    this.changed();
  }

  /** The filters or the sort moved: say so in the address, and draw again. */
  changed() {
    const p = new URLSearchParams();
    const f = this.filter;
    if (f.q) p.set('q', f.q);
    if (f.state !== 'all') p.set('state', f.state);
    if (f.provider) p.set('harness', f.provider);
    if (this.sortKey !== DEFAULT_SORT) p.set('sort', this.sortKey);
    if (!this.desc) p.set('dir', 'asc');
    const qs = p.toString();
    history.replaceState(history.state, '', qs ? `/?${qs}` : '/');
    if (this.doc) this.update(this.doc);
  }

  /** @param {string} key */
  sortBy(key) {
    if (this.sortKey === key) this.desc = !this.desc;
    else {
      this.sortKey = key;
      this.desc = !WORD_COLUMNS.has(key);
    }
    this.drawHead();
    this.changed();
  }

  drawHead() {
    fill(
      this.head,
      COLUMNS.map((c) => {
        const active = c.key === this.sortKey;
        return h(
          'th',
          {
            class: [c.num && 'num', `col-${c.key}`],
            'aria-sort': active ? (this.desc ? 'descending' : 'ascending') : null,
          },
          h(
            'button',
            { type: 'button', onclick: () => this.sortBy(c.key) },
            c.title,
            active ? (this.desc ? ' ↓' : ' ↑') : '',
          ),
        );
      }),
    );
  }

  /**
   * The row of `s`, made the first time it is shown.
   * @param {SessionDoc} s
   * @returns {Row}
   */
  rowFor(s) {
    const key = keyOf(s);
    const known = this.rows.get(key);
    if (known) return known;
    const tr = h('tr', {
      dataset: { id: s.id },
      onclick: (e) => {
        if (targetOf(e)?.closest('a')) return;
        this.navigate(hrefOf(s));
      },
    });
    /** @type {Map<string, HTMLTableCellElement>} */
    const cells = new Map();
    for (const c of COLUMNS) {
      const td = h('td', { class: [c.num && 'num', `col-${c.key}`], 'data-label': c.title });
      cells.set(c.key, td);
      tr.append(td);
    }
    const at = (/** @type {string} */ k) => /** @type {HTMLTableCellElement} */ (cells.get(k));
    const row = {
      tr,
      mark: h('span', { class: 'mark' }),
      word: h('span', { class: 'state-word' }),
      badge: h('span', { class: 'collision-badge' }),
      project: h('span', { class: 'project' }),
      title: h('span', { class: 'title-text' }),
      ctxText: h('span', null),
      ctxBar: h('span', { class: 'bar-slot' }),
      ctxStep: null,
      cells,
    };
    at('state').append(row.mark, row.word, row.badge);
    at('title').append(navLink(hrefOf(s), { class: 'title' }, row.project, row.title));
    at('ctx').append(row.ctxText, row.ctxBar);
    this.rows.set(key, row);
    return row;
  }

  /**
   * Write the cells of `row` that changed.
   * @param {Row} row
   * @param {SessionDoc} s
   * @param {number} now
   * @param {CollisionLevel | null} collision
   * @param {boolean} silent its machine stopped answering: the row is its last answer's, greyed
   */
  drawRow(row, s, now, collision, silent) {
    row.tr.className = `state-${s.state}${s.host ? ' remote' : ''}${silent ? ' silent' : ''}`;
    setText(row.mark, STATE_MARK[s.state]);
    setText(row.word, s.state);
    drawBadge(row.badge, collision);
    const project = basename(s.project);
    setText(row.project, project ?? '');
    setText(row.title, s.title ? clean(s.title) : project ? '' : s.id);
    for (const c of COLUMNS) {
      if (c.key === 'state' || c.key === 'title') continue;
      if (c.key === 'ctx') {
        setText(row.ctxText, c.cell(s, now));
        const f = ctxFraction(s);
        const step = f === null ? null : Math.round(f * METER_STEPS);
        if (step !== row.ctxStep) {
          row.ctxStep = step;
          fill(row.ctxBar, f === null ? null : meter(f, f > 0.85 ? 'hot' : f > 0.6 ? 'warm' : ''));
        }
        continue;
      }
      const td = row.cells.get(c.key);
      if (!td) continue;
      const text = c.cell(s, now);
      setText(td, text);
      td.classList.toggle('zero', text === '$0');
    }
  }

  /**
   * The sessions the filters let through, in the chosen order.
   * @param {SessionDocument} doc
   */
  shown(doc) {
    const col = COLUMNS.find((c) => c.key === this.sortKey) ?? COLUMNS.find((c) => c.key === DEFAULT_SORT);
    if (!col) return doc.sessions;
    const dir = this.desc ? -1 : 1;
    return doc.sessions
      .filter((s) => matches(s, this.filter))
      .map((s) => ({ s, k: col.sort(s) }))
      .sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : 0))
      .map((x) => x.s);
  }

  /**
   * Draw `sessions` as the table's rows, reusing the rows already drawn.
   * @param {SessionDoc[]} sessions
   * @param {number} now
   * @param {Map<string, CollisionLevel>} collisions each colliding session's level, by `provider:id`
   * @param {Set<string>} silent the machines that stopped answering
   */
  drawRows(sessions, now, collisions, silent) {
    /** @type {Set<string>} */
    const keep = new Set();
    /** @type {HTMLTableRowElement[]} */
    const order = [];
    for (const s of sessions) {
      const row = this.rowFor(s);
      // Collisions are this machine's: another machine's session never writes this one's files.
      const collision = s.host ? null : (collisions.get(`${s.provider}:${s.id}`) ?? null);
      this.drawRow(row, s, now, collision, s.host !== undefined && silent.has(s.host));
      keep.add(keyOf(s));
      order.push(row.tr);
    }
    for (const [key, row] of this.rows) {
      if (!keep.has(key)) {
        row.tr.remove();
        this.rows.delete(key);
      }
    }
    // Move rows only where the order changed.
    order.forEach((tr, i) => {
      if (this.body.children[i] !== tr) this.body.insertBefore(tr, this.body.children[i] ?? null);
    });
  }

  /**
   * The harness filter lists the harnesses the document has.
   * @param {SessionDocument} doc
   */
  drawProviders(doc) {
    const providers = [...new Set(doc.sessions.map((s) => s.provider))].sort();
    if (this.providerSel.options.length === providers.length + 1) return;
    fill(
      this.providerSel,
      h('option', { value: '' }, 'every harness'),
      providers.map((p) => h('option', { value: p, selected: p === this.filter.provider }, harness(p))),
    );
  }

  /**
   * Under the table: "show all", or why it is empty, and whether anything could not be read.
   * @param {SessionDocument} doc
   * @param {number} shown
   * @param {number} drawn
   */
  drawFooter(doc, shown, drawn) {
    const first = doc.problems[0];
    fill(
      this.more,
      drawn < shown
        ? h(
            'button',
            {
              type: 'button',
              onclick: () => {
                this.showAll = true;
                this.update(doc);
              },
            },
            `Show all ${shown}`,
          )
        : doc.sessions.length === 0
          ? h('p', { class: 'calm' }, 'No agent sessions found on this machine yet. Try cctop serve --demo.')
          : null,
      first
        ? h(
            'p',
            { class: 'dim' },
            `cctop could not read everything (${counted(doc.problems.length, 'problem')}, first: ${first.kind} ${first.path}); cctop doctor lists them.`,
          )
        : null,
    );
  }

  /** @param {SessionDocument} doc */
  update(doc) {
    this.doc = doc;
    const now = Date.now();
    fill(this.needs, needsYou(doc, now));
    const collisions = collisionsOf(doc);
    fill(this.collisions, collisionCards(collisions, now));
    fill(this.summary, spendSummary(doc));
    fill(this.hosts, hostLines(doc.hosts ?? [], now));
    this.hosts.hidden = !doc.hosts?.length;
    this.table.classList.toggle('with-hosts', (doc.hosts?.length ?? 0) > 0);
    this.drawProviders(doc);
    const shown = this.shown(doc);
    const limit = this.showAll ? shown.length : Math.min(shown.length, FIRST_ROWS);
    this.drawRows(shown.slice(0, limit), now, collisionLevels(collisions), silentHosts(doc.hosts ?? []));
    setText(
      this.count,
      shown.length === doc.sessions.length
        ? `${doc.sessions.length} sessions`
        : `${shown.length} of ${doc.sessions.length} sessions`,
    );
    this.drawFooter(doc, shown.length, limit);
  }
}
