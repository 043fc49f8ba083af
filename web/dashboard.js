// The dashboard: who needs you, what is being spent, and every session as a sortable, filterable
// table that becomes a list of cards on a phone. Rows are kept by session and only their changed
// cells are rewritten, so a live update every couple of seconds does not rebuild the page.

import { meter } from './charts.js';
import { fill, h, navLink, sessionHref, setText } from './dom.js';
import {
  ago,
  basename,
  clean,
  duration,
  harness,
  label,
  ms,
  percent,
  recentSpend,
  STATE_MARK,
  STATE_ORDER,
  shortModel,
  tokens,
  totalTokens,
  UNKNOWN,
  usd,
} from './format.js';

/** Rows drawn before "show all": enough for any screen, few enough to stay quick with 4,000 sessions. */
const FIRST_ROWS = 300;

const num = (v) => (v === null || v === undefined || Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v);
const failRate = (s) =>
  s.tools.failed === null || s.tools.calls === 0 ? null : s.tools.failed / s.tools.calls;
const span = (s) => (s.startedAt && s.lastActiveAt ? ms(s.lastActiveAt) - ms(s.startedAt) : null);
const ctxFraction = (s) =>
  s.context.used === null || !s.context.compactAt ? null : s.context.used / s.context.compactAt;

const COLUMNS = [
  { key: 'state', title: 'State', sort: (s) => -STATE_ORDER[s.state], cell: (s) => s.state },
  { key: 'title', title: 'Project · title', sort: (s) => label(s).toLowerCase(), text: true },
  {
    key: 'last',
    title: 'Last',
    num: true,
    sort: (s) => num(ms(s.lastActiveAt)),
    cell: (s, now) => ago(ms(s.lastActiveAt), now),
  },
  {
    key: 'dur',
    title: 'Dur',
    num: true,
    sort: (s) => num(span(s)),
    cell: (s) => (span(s) === null ? UNKNOWN : duration(span(s))),
  },
  {
    key: 'cost',
    title: 'Cost',
    num: true,
    sort: (s) => num(s.cost.usd),
    cell: (s) => usd(s.cost.usd, s.cost.included),
  },
  {
    key: 'hour',
    title: 'Hour',
    num: true,
    sort: (s) => num(recentSpend(s).hour),
    cell: (s) => usd(recentSpend(s).hour, s.cost.included && recentSpend(s).hour > 0),
  },
  {
    key: 'today',
    title: 'Today',
    num: true,
    sort: (s) => num(recentSpend(s).today),
    cell: (s) => usd(recentSpend(s).today, s.cost.included && recentSpend(s).today > 0),
  },
  {
    key: 'ctx',
    title: 'Ctx',
    num: true,
    sort: (s) => num(ctxFraction(s)),
    cell: (s) => percent(s.context.used, s.context.compactAt),
  },
  { key: 'tools', title: 'Tools', num: true, sort: (s) => s.tools.calls, cell: (s) => String(s.tools.calls) },
  {
    key: 'fail',
    title: 'Fail',
    num: true,
    sort: (s) => num(failRate(s)),
    cell: (s) => (failRate(s) === null ? UNKNOWN : `${Math.round(failRate(s) * 100)}%`),
  },
  {
    key: 'tokens',
    title: 'Tokens',
    num: true,
    sort: (s) => num(totalTokens(s.tokens)),
    cell: (s) => tokens(totalTokens(s.tokens)),
  },
  { key: 'model', title: 'Model', sort: (s) => s.model ?? '', cell: (s) => shortModel(s.model) },
  { key: 'harness', title: 'Harness', sort: (s) => s.provider, cell: (s) => harness(s.provider) },
  {
    key: 'branch',
    title: 'Branch',
    sort: (s) => s.branch ?? '',
    cell: (s) => (s.branch ? clean(s.branch) : UNKNOWN),
  },
];

const STATES = ['all', 'active', 'waiting', 'working', 'error', 'idle'];

function matches(s, q, state, provider) {
  if (provider && s.provider !== provider) return false;
  if (state === 'active' && s.state === 'idle') return false;
  if (state !== 'all' && state !== 'active' && s.state !== state) return false;
  if (!q) return true;
  const hay = [s.id, s.project, s.title, s.model, s.branch, harness(s.provider)].join('\n').toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

function sumSpend(sessions, pick) {
  let retail = null;
  let billed = null;
  for (const s of sessions) {
    const v = pick(recentSpend(s));
    if (v === null) continue;
    retail = (retail ?? 0) + v;
    if (!s.cost.included) billed = (billed ?? 0) + v;
  }
  return { retail, billed };
}

export class Dashboard {
  constructor(navigate) {
    this.navigate = navigate;
    const p = new URLSearchParams(location.search);
    this.q = p.get('q') ?? '';
    this.state = STATES.includes(p.get('state')) ? p.get('state') : 'all';
    this.provider = p.get('harness') ?? '';
    this.sortKey = COLUMNS.some((c) => c.key === p.get('sort')) ? p.get('sort') : 'last';
    this.desc = p.get('dir') !== 'asc';
    this.showAll = false;
    this.rows = new Map();
    this.doc = null;

    this.summary = h('section', { class: 'summary', 'aria-label': 'spend' });
    this.needs = h('section', { class: 'needs', 'aria-label': 'needs you' });
    this.search = h('input', {
      type: 'search',
      placeholder: 'Filter: project, title, model, branch, id',
      value: this.q,
      'aria-label': 'filter sessions',
      oninput: () => {
        this.q = this.search.value;
        this.changed();
      },
    });
    this.stateSel = h(
      'select',
      {
        'aria-label': 'state',
        onchange: () => {
          this.state = this.stateSel.value;
          this.changed();
        },
      },
      STATES.map((st) =>
        h('option', { value: st, selected: st === this.state }, st === 'all' ? 'every state' : st),
      ),
    );
    this.providerSel = h('select', {
      'aria-label': 'harness',
      onchange: () => {
        this.provider = this.providerSel.value;
        this.changed();
      },
    });
    this.count = h('span', { class: 'count' });
    this.head = h('tr');
    this.body = h('tbody');
    this.more = h('div', { class: 'more' });
    this.el = h(
      'div',
      { class: 'dashboard' },
      this.needs,
      this.summary,
      h('div', { class: 'filters' }, this.search, this.stateSel, this.providerSel, this.count),
      h(
        'div',
        { class: 'table-wrap' },
        h('table', { class: 'sessions' }, h('thead', null, this.head), this.body),
      ),
      this.more,
    );
    this.drawHead();
  }

  changed() {
    const p = new URLSearchParams();
    if (this.q) p.set('q', this.q);
    if (this.state !== 'all') p.set('state', this.state);
    if (this.provider) p.set('harness', this.provider);
    if (this.sortKey !== 'last') p.set('sort', this.sortKey);
    if (!this.desc) p.set('dir', 'asc');
    const qs = p.toString();
    history.replaceState(history.state, '', qs ? `/?${qs}` : '/');
    if (this.doc) this.update(this.doc);
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
            {
              type: 'button',
              onclick: () => {
                if (this.sortKey === c.key) this.desc = !this.desc;
                else {
                  this.sortKey = c.key;
                  this.desc =
                    c.key !== 'title' && c.key !== 'model' && c.key !== 'harness' && c.key !== 'branch';
                }
                this.drawHead();
                this.changed();
              },
            },
            c.title,
            active ? (this.desc ? ' ↓' : ' ↑') : '',
          ),
        );
      }),
    );
  }

  drawNeeds(doc, now) {
    const waiting = doc.sessions.filter((s) => s.state === 'waiting');
    // An error an hour old still stops the agent; one from last month is history.
    const errors = doc.sessions.filter(
      (s) => s.state === 'error' && now - (ms(s.lastActiveAt) ?? 0) < 3_600_000,
    );
    const card = (s, why) =>
      navLink(
        sessionHref(s.id),
        { class: `need ${s.state}` },
        h('span', { class: 'need-mark' }, STATE_MARK[s.state]),
        h('span', { class: 'need-title' }, label(s)),
        h(
          'span',
          { class: 'need-why' },
          `${why} · ${ago(ms(s.lastActiveAt), now)} ago · ${harness(s.provider)}`,
        ),
      );
    fill(
      this.needs,
      h('h2', null, 'Needs you'),
      waiting.length === 0 && errors.length === 0
        ? h('p', { class: 'calm' }, 'No session is waiting on you.')
        : h(
            'div',
            { class: 'need-list' },
            waiting.map((s) => card(s, s.stateDetail ? `asks: ${clean(s.stateDetail)}` : 'waiting')),
            errors.map((s) =>
              card(s, s.stateDetail ? `stopped: ${clean(s.stateDetail)}` : 'stopped on an error'),
            ),
          ),
    );
  }

  drawSummary(doc) {
    const stat = (title, spend) => {
      const all = spend.retail;
      const onlyIncluded = all !== null && spend.billed === null;
      return h(
        'div',
        { class: 'stat' },
        h('div', { class: 'stat-title' }, title),
        h('div', { class: 'stat-value' }, onlyIncluded ? 'incl' : usd(spend.billed ?? all)),
        h(
          'div',
          { class: 'stat-note' },
          onlyIncluded
            ? `${usd(all)} at retail`
            : spend.billed !== null && all !== spend.billed
              ? `+ ${usd(all - spend.billed)} incl. in plan`
              : doc.plan === 'retail'
                ? 'estimated'
                : '',
        ),
      );
    };
    const by = (st) => doc.sessions.filter((s) => s.state === st).length;
    fill(
      this.summary,
      stat(
        'This hour',
        sumSpend(doc.sessions, (r) => r.hour),
      ),
      stat(
        'Today',
        sumSpend(doc.sessions, (r) => r.today),
      ),
      stat(
        '7 days',
        sumSpend(doc.sessions, (r) => r.week),
      ),
      h(
        'div',
        { class: 'stat' },
        h('div', { class: 'stat-title' }, 'Sessions'),
        h('div', { class: 'stat-value' }, String(doc.sessions.length)),
        h(
          'div',
          { class: 'stat-note' },
          `${by('working')} working · ${by('waiting')} waiting · ${by('error')} error`,
        ),
      ),
    );
  }

  rowFor(s) {
    const key = `${s.provider}:${s.id}`;
    let row = this.rows.get(key);
    if (row) return row;
    const cells = {};
    const tr = h('tr', {
      dataset: { id: s.id },
      onclick: (e) => {
        if (e.target.closest('a')) return;
        this.navigate(sessionHref(s.id));
      },
    });
    for (const c of COLUMNS) {
      const td = h('td', { class: [c.num && 'num', `col-${c.key}`], 'data-label': c.title });
      if (c.key === 'state') {
        const mark = h('span', { class: 'mark' });
        const word = h('span', { class: 'state-word' });
        td.append(mark, word);
        cells.state = { mark, word };
      } else if (c.key === 'title') {
        const a = navLink(sessionHref(s.id), { class: 'title' });
        const project = h('span', { class: 'project' });
        const title = h('span', { class: 'title-text' });
        a.append(project, title);
        td.append(a);
        cells.title = { project, title };
      } else if (c.key === 'ctx') {
        const text = h('span');
        const bar = h('span', { class: 'bar-slot' });
        td.append(text, bar);
        cells.ctx = { text, bar, last: null };
      } else {
        cells[c.key] = td;
      }
      tr.append(td);
    }
    row = { tr, cells };
    this.rows.set(key, row);
    return row;
  }

  drawRow(row, s, now) {
    const { tr, cells } = row;
    tr.className = `state-${s.state}`;
    setText(cells.state.mark, STATE_MARK[s.state]);
    setText(cells.state.word, s.state);
    const project = basename(s.project);
    setText(cells.title.project, project ?? '');
    setText(cells.title.title, s.title ? clean(s.title) : project ? '' : s.id);
    for (const c of COLUMNS) {
      if (c.key === 'state' || c.key === 'title') continue;
      if (c.key === 'ctx') {
        setText(cells.ctx.text, c.cell(s, now));
        const f = ctxFraction(s);
        const bucket = f === null ? null : Math.round(f * 40);
        if (bucket !== cells.ctx.last) {
          cells.ctx.last = bucket;
          fill(cells.ctx.bar, f === null ? null : meter(f, f > 0.85 ? 'hot' : f > 0.6 ? 'warm' : ''));
        }
        continue;
      }
      const text = c.cell(s, now);
      setText(cells[c.key], text);
      cells[c.key].classList.toggle('zero', text === '$0');
    }
  }

  update(doc) {
    this.doc = doc;
    const now = Date.now();
    this.drawNeeds(doc, now);
    this.drawSummary(doc);

    const providers = [...new Set(doc.sessions.map((s) => s.provider))].sort();
    if (this.providerSel.options.length !== providers.length + 1) {
      fill(
        this.providerSel,
        h('option', { value: '' }, 'every harness'),
        providers.map((p) => h('option', { value: p, selected: p === this.provider }, harness(p))),
      );
    }

    const col = COLUMNS.find((c) => c.key === this.sortKey) ?? COLUMNS[2];
    const dir = this.desc ? -1 : 1;
    const shown = doc.sessions
      .filter((s) => matches(s, this.q, this.state, this.provider))
      .map((s) => ({ s, k: col.sort(s) }))
      .sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : 0))
      .map((x) => x.s);
    const limit = this.showAll ? shown.length : Math.min(shown.length, FIRST_ROWS);

    const keep = new Set();
    const order = [];
    for (const s of shown.slice(0, limit)) {
      const row = this.rowFor(s);
      this.drawRow(row, s, now);
      keep.add(`${s.provider}:${s.id}`);
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

    setText(
      this.count,
      shown.length === doc.sessions.length
        ? `${doc.sessions.length} sessions`
        : `${shown.length} of ${doc.sessions.length} sessions`,
    );
    fill(
      this.more,
      limit < shown.length
        ? h(
            'button',
            {
              type: 'button',
              onclick: () => {
                this.showAll = true;
                this.update(this.doc);
              },
            },
            `Show all ${shown.length}`,
          )
        : doc.sessions.length === 0
          ? h('p', { class: 'calm' }, 'No agent sessions found on this machine yet. Try cctop serve --demo.')
          : null,
      doc.problems.length > 0
        ? h(
            'p',
            { class: 'dim' },
            `cctop could not read everything (${doc.problems.length} problem${doc.problems.length === 1 ? '' : 's'}, first: ${doc.problems[0].kind} ${doc.problems[0].path}); cctop doctor lists them.`,
          )
        : null,
    );
  }
}
