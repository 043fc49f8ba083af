// @ts-check
// The team dashboard's page (`cctop serve --store`): asks `/api/team` for one period, draws everyone's
// working and waiting sessions, each developer's quota (a meter per window; a window reset since its
// figure was read is drawn as stale, never as a meter), the budgets against their spend, and spend per
// developer, project, harness and model per day, then asks again after the interval the server names.
//
// Every string from the store (developers, machines, projects, titles, models, budget names) goes in
// as a text node: nothing here parses markup, and the server's Content-Security-Policy enforces
// Trusted Types, so an `innerHTML` slipped in later would throw instead of rendering.
//
// Absent is not zero: a cost nobody could price reads "no price", a value nobody recorded `─`.

import { HARNESS } from './harnesses.js';
import { ago, NO_PRICE, shortModel, UNKNOWN, usd } from './shared-format.js';

/** @typedef {import('../../src/views/team/answer.js').TeamAnswer} TeamAnswer */
/** @typedef {import('../../src/views/team/answer.js').SessionAnswer} SessionAnswer */
/** @typedef {import('../../src/views/team/answer.js').SpendLine} SpendLine */
/** @typedef {import('../../src/views/team/answer.js').BudgetAnswer} BudgetAnswer */
/** @typedef {import('../../src/views/team/answer.js').ShownPeriod} ShownPeriod */
/** @typedef {import('../../src/views/team/answer.js').QuotaAnswer} QuotaAnswer */

/** The server's interval is kept within these, whatever it says. */
const MIN_POLL_MS = 2_000;
const MAX_POLL_MS = 60_000;
/** How soon to ask again after the dashboard's own server did not answer. */
const RETRY_MS = 5_000;

/** @type {ShownPeriod[]} */
const PERIODS = ['today', '7d', 'month'];
const DIMENSIONS = /** @type {const} */ ([
  ['developer', 'Developer'],
  ['project', 'Project'],
  ['harness', 'Harness'],
  ['model', 'Model'],
]);

/**
 * An element with text or children; text is always a text node.
 * @param {string} tag
 * @param {string | null} cls
 * @param {(Node | string | null)[]} [children]
 */
function el(tag, cls, children = []) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) if (c !== null) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** @param {string} id */
const harnessName = (id) => /** @type {Record<string, string>} */ (HARNESS)[id] ?? id;

/**
 * Money as the terminal writes it; "no price" where tokens had none and nothing else did.
 * @param {number | null} cost
 * @param {number} unpricedTokens
 */
function money(cost, unpricedTokens) {
  if (cost === null) return unpricedTokens > 0 ? NO_PRICE : UNKNOWN;
  return unpricedTokens > 0 ? `${usd(cost)}+` : usd(cost);
}

/** @param {string[]} heads @param {Node[]} rows @param {string} cls */
function table(heads, rows, cls) {
  const head = el(
    'tr',
    null,
    heads.map((h) => el('th', null, [h])),
  );
  return el('table', cls, [el('thead', null, [head]), el('tbody', null, rows)]);
}

/** @param {string} text @param {string | null} [cls] @param {string | null} [title] */
function cell(text, cls = null, title = null) {
  const td = el('td', cls, [text]);
  if (title) td.title = title;
  return td;
}

/** @param {SessionAnswer} s @param {number} nowMs */
function sessionRow(s, nowMs) {
  const state = s.stale ? `${s.state} · stale, pushed ${ago(s.pushedAtMs, nowMs)} ago` : s.state;
  const row = el('tr', s.stale ? 'stale' : null, [
    cell(s.developer, 'developer'),
    cell(s.host),
    cell(harnessName(s.harness)),
    cell(s.project ?? UNKNOWN, 'project', s.project),
    cell(s.title ?? UNKNOWN, 'title', s.title),
    cell(shortModel(s.model), 'model', s.model),
    cell(state, `state ${s.state}`),
    cell(s.lastActiveAtMs === null ? UNKNOWN : `${ago(s.lastActiveAtMs, nowMs)} ago`),
    cell(money(s.costUsd, s.unpricedTokens), 'num'),
  ]);
  row.dataset.developer = s.developer;
  return row;
}

/** @param {TeamAnswer} a */
function sessionsSection(a) {
  const rows = a.sessions.map((s) => sessionRow(s, a.nowMs));
  const heads = ['Developer', 'Machine', 'Harness', 'Project', 'Title', 'Model', 'State', 'Active', 'Cost'];
  return el('section', 'team-sessions', [
    el('h2', null, [`Working and waiting (${a.sessions.length + a.moreSessions})`]),
    rows.length === 0
      ? el('p', 'empty', ['No session is working or waiting on any machine that pushes.'])
      : table(heads, rows, 'sessions'),
    a.moreSessions > 0 ? el('p', 'note', [`${a.moreSessions} more are not shown.`]) : null,
    a.droppedSessions > 0
      ? el('p', 'note', [
          `${a.droppedSessions} rows in the store could not be read (an id or a state no cctop writes).`,
        ])
      : null,
  ]);
}

/** A window's share turns amber and red at these (as the terminal's quota and context do). */
const QUOTA_NEAR = 80;
const QUOTA_HIGH = 95;

/** @param {QuotaAnswer} q @param {number} nowMs */
function quotaRow(q, nowMs) {
  const used = q.usedPercent === null ? UNKNOWN : `${Math.round(q.usedPercent)}%`;
  /** @type {Node[]} */
  const shown = [];
  if (q.stale) shown.push(document.createTextNode(`stale (${used} before it reset)`));
  else {
    if (q.usedPercent !== null) {
      const meter = document.createElement('meter');
      meter.min = 0;
      meter.max = 100;
      meter.low = QUOTA_NEAR;
      meter.high = QUOTA_HIGH;
      meter.optimum = 0;
      meter.value = Math.min(100, q.usedPercent);
      shown.push(meter);
    }
    shown.push(document.createTextNode(` ${used}`));
  }
  const resets =
    q.resetsAtMs === null
      ? UNKNOWN
      : q.resetsAtMs <= nowMs
        ? `reset ${ago(q.resetsAtMs, nowMs)} ago`
        : `in ${ago(nowMs, q.resetsAtMs)}`;
  const age = q.fetchedAtMs === null ? '' : `, ${ago(q.fetchedAtMs, nowMs)} ago`;
  const row = el('tr', q.stale ? 'quota stale' : 'quota', [
    cell(q.developer, 'developer'),
    cell(harnessName(q.harness)),
    cell(q.window, 'window'),
    el('td', 'share', shown),
    cell(resets),
    cell(`${q.sourceLabel}${age}`, 'source', `pushed from ${q.host}`),
  ]);
  row.dataset.developer = q.developer;
  row.dataset.window = q.window;
  return row;
}

/** @param {TeamAnswer} a */
function quotaSection(a) {
  const rows = a.quota.map((q) => quotaRow(q, a.nowMs));
  return el('section', 'team-quota', [
    el('h2', null, ['Quota']),
    rows.length === 0
      ? el('p', 'empty', ['No quota figures: no machine that pushes has a subscription quota to show.'])
      : table(['Developer', 'Harness', 'Window', 'Used', 'Resets', 'Source'], rows, 'quota'),
    a.moreQuota > 0 ? el('p', 'note', [`${a.moreQuota} more figures are not shown.`]) : null,
  ]);
}

/** @param {BudgetAnswer} b */
function selection(b) {
  const parts = [
    b.developer === null ? null : `developer ${b.developer}`,
    b.project === null ? null : `project ${b.project}`,
    b.harness === null ? null : `harness ${harnessName(b.harness)}`,
  ].filter((p) => p !== null);
  return parts.length === 0 ? 'everyone' : parts.join(', ');
}

/** @param {BudgetAnswer} b @param {TeamAnswer['shares']} shares */
function budgetRow(b, shares) {
  const meter = document.createElement('meter');
  meter.min = 0;
  meter.max = shares.over;
  meter.low = shares.near;
  meter.high = shares.over;
  meter.optimum = 0;
  meter.value = b.share === null ? 0 : Math.min(b.share, shares.over);
  const share = b.share === null ? UNKNOWN : `${Math.round(b.share * 100)}%`;
  const row = el('tr', `budget ${b.level}`, [
    cell(b.name, 'name'),
    cell(selection(b)),
    cell(b.from === b.to ? `${b.period} ${b.from}` : `${b.period} ${b.from} – ${b.to}`),
    cell(money(b.spentUsd, b.unpricedTokens), 'num spent'),
    cell(usd(b.usd), 'num'),
    el('td', 'share', [meter, ` ${share}`]),
  ]);
  row.dataset.budget = b.name;
  return row;
}

/** @param {TeamAnswer} a */
function budgetsSection(a) {
  const rows = a.budgets.map((b) => budgetRow(b, a.shares));
  return el('section', 'team-budgets', [
    el('h2', null, ['Budgets']),
    rows.length === 0
      ? el('p', 'empty', ['No team budgets. An admin sets them with cctop store budget set.'])
      : table(['Budget', 'For', 'Period', 'Spent', 'Limit', 'Share'], rows, 'budgets'),
    a.moreBudgets ? el('p', 'note', ['More budgets are stored than are shown.']) : null,
  ]);
}

/** @param {SpendLine} line @param {string} label */
function spendRow(line, label) {
  const days = line.days.map((d) => cell(d === null ? UNKNOWN : money(d.costUsd, d.unpricedTokens), 'num'));
  return el('tr', null, [
    cell(label, 'key'),
    ...days,
    cell(money(line.costUsd, line.unpricedTokens), 'num total'),
  ]);
}

/** @param {TeamAnswer} a @param {'developer' | 'project' | 'harness' | 'model'} by @param {string} title */
function spendTable(a, by, title) {
  const label = (/** @type {string} */ key) =>
    by === 'harness'
      ? harnessName(key)
      : by === 'model'
        ? shortModel(key)
        : by === 'project' && key === ''
          ? '(no project)'
          : key;
  const rows = a.spend[by].map((line) => spendRow(line, label(line.key)));
  const heads = [title, ...a.days.map((d) => d.slice(5)), 'Total'];
  const t =
    rows.length === 0 ? el('p', 'empty', ['Nothing spent in this period.']) : table(heads, rows, 'spend');
  t.dataset.by = by;
  return el('div', 'spend-block', [el('h3', null, [`Per ${title.toLowerCase()}`]), t]);
}

/** @param {TeamAnswer} a */
function spendSection(a) {
  const total = a.spend.total[0];
  const sum = total ? money(total.costUsd, total.unpricedTokens) : UNKNOWN;
  return el('section', 'team-spend', [
    el('h2', null, [`Spend: ${sum}`]),
    ...DIMENSIONS.map(([by, title]) => spendTable(a, by, title)),
    a.spendCut
      ? el('p', 'note', ['The store holds more rows than one page reads; the cheapest are left out.'])
      : null,
    el('p', 'note', [
      'Days are each machine’s own local days. A "+" after an amount: some tokens had no price and are not in it.',
    ]),
  ]);
}

/** @param {TeamAnswer} a */
function storeLine(a) {
  const line = /** @type {HTMLElement} */ (document.getElementById('store'));
  const s = a.store;
  line.className = `status ${s.state}`;
  if (s.state === 'reading') line.textContent = 'reading the team store…';
  else if (s.state === 'ok') line.textContent = `read ${ago(s.readAtMs, a.nowMs)} ago`;
  else
    line.textContent =
      s.readAtMs === null
        ? `${s.said}; nothing read yet`
        : `${s.said}; showing what was read ${ago(s.readAtMs, a.nowMs)} ago`;
}

/** @param {TeamAnswer} a */
function draw(a) {
  storeLine(a);
  const app = /** @type {HTMLElement} */ (document.getElementById('app'));
  app.replaceChildren(sessionsSection(a), quotaSection(a), budgetsSection(a), spendSection(a));
  for (const b of document.querySelectorAll('nav.periods button')) {
    const button = /** @type {HTMLButtonElement} */ (b);
    button.setAttribute('aria-pressed', String(button.dataset.period === a.period));
  }
}

/** @param {string} text */
function trouble(text) {
  const line = /** @type {HTMLElement} */ (document.getElementById('store'));
  line.className = 'status failed';
  line.textContent = text;
}

/** @type {ShownPeriod} */
let period = PERIODS.find((p) => p === new URLSearchParams(location.search).get('period')) ?? 'today';
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let asked = 0;

async function refresh() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  const mine = ++asked;
  let wait = RETRY_MS;
  try {
    const res = await fetch(`/api/team?period=${period}`, { credentials: 'same-origin', cache: 'no-store' });
    if (res.status === 401) {
      trouble('this page needs the link cctop serve --store printed');
      return;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const a = /** @type {TeamAnswer} */ (await res.json());
    // A period chosen while this was asked: the newer ask draws.
    if (mine !== asked) return;
    draw(a);
    wait = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, a.pollMs));
  } catch {
    if (mine === asked) trouble('the dashboard (cctop serve --store) does not answer; trying again');
  }
  if (mine === asked) timer = setTimeout(refresh, wait);
}

for (const b of document.querySelectorAll('nav.periods button')) {
  b.addEventListener('click', () => {
    const chosen = PERIODS.find((p) => p === /** @type {HTMLButtonElement} */ (b).dataset.period);
    if (chosen === undefined || chosen === period) return;
    period = chosen;
    history.replaceState(null, '', `/?period=${chosen}`);
    void refresh();
  });
}
void refresh();
