// @ts-check
// The top of the dashboard: the sessions that need their user (waiting on a question, or stopped on
// an error lately), what is being spent this hour, today and this week, and where the budgets of
// the server's config stand. Drawn again whole on every update: a few cards, cheap next to the table.
// The budgets card is also filled again when the budgets move between updates (they come on their
// own event, notices.js).

/** @import { SessionDoc, SessionDocument } from '../src/model/document.js' */
/** @import { RecentSpend } from './format.js' */
/** @import { BudgetLine } from './shared-delta.js' */

import { fill, h, navLink, sessionHref } from './dom.js';
import { ago, clean, harness, label, ms, percent, recentSpend, STATE_MARK, usd } from './format.js';
import { budgetsNow, onBudgets } from './notices.js';
import { quotaCard } from './quota.js';

/** An error this recent still stops its agent; an older one is history, not something to act on. */
const RECENT_ERROR_MS = 3_600_000;

/**
 * The "Needs you" strip's contents.
 * @param {SessionDocument} doc
 * @param {number} now
 */
export function needsYou(doc, now) {
  const waiting = doc.sessions.filter((s) => s.state === 'waiting');
  const errors = doc.sessions.filter(
    (s) => s.state === 'error' && now - (ms(s.lastActiveAt) ?? 0) < RECENT_ERROR_MS,
  );
  /**
   * @param {SessionDoc} s
   * @param {string} why
   */
  const card = (s, why) =>
    navLink(
      sessionHref(s.id, null, s.host ?? null),
      { class: `need ${s.state}` },
      h('span', { class: 'need-mark' }, STATE_MARK[s.state]),
      h('span', { class: 'need-title' }, label(s)),
      h(
        'span',
        { class: 'need-why' },
        `${why} · ${ago(ms(s.lastActiveAt), now)} ago · ${harness(s.provider)}${s.host ? ` on ${clean(s.host)}` : ''}`,
      ),
    );
  return [
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
  ];
}

/**
 * Spend over a window: at retail, and the part the plan does not bundle (null: nothing priced).
 * @param {SessionDoc[]} sessions
 * @param {(r: RecentSpend) => number | null} pick
 */
function sumSpend(sessions, pick) {
  /** @type {number | null} */
  let retail = null;
  /** @type {number | null} */
  let billed = null;
  for (const s of sessions) {
    const v = pick(recentSpend(s));
    if (v === null) continue;
    retail = (retail ?? 0) + v;
    if (!s.cost.included) billed = (billed ?? 0) + v;
  }
  return { retail, billed };
}

/**
 * One spend card: what the user pays, with a note on what the plan covers.
 * @param {SessionDocument} doc
 * @param {string} title
 * @param {{ retail: number | null, billed: number | null }} spend
 */
function spendCard(doc, title, spend) {
  const all = spend.retail;
  const onlyIncluded = all !== null && spend.billed === null;
  const note = onlyIncluded
    ? `${usd(all)} at retail`
    : all !== null && spend.billed !== null && all !== spend.billed
      ? `+ ${usd(all - spend.billed)} incl. in plan`
      : doc.plan === 'retail'
        ? 'estimated'
        : '';
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-title' }, title),
    h('div', { class: 'stat-value' }, onlyIncluded ? 'incl' : usd(spend.billed ?? all)),
    h('div', { class: 'stat-note' }, note),
  );
}

/** What a period's spend is called on the card. */
const THIS = { day: 'today', week: 'this week', month: 'this month' };

/** @type {HTMLElement | null} the budgets card drawn last, filled again when the budgets move */
let budgetsShown = null;
onBudgets((budgets) => {
  if (budgetsShown?.isConnected) fillBudgets(budgetsShown, budgets);
});

/**
 * The budgets card's contents: the fullest budget's share as the value, each budget on a line below,
 * amber from 80%, red from 100% (retail spend, whatever the plan). Hidden while none is set.
 * @param {HTMLElement} card
 * @param {BudgetLine[]} budgets
 */
function fillBudgets(card, budgets) {
  card.hidden = budgets.length === 0;
  /** @type {BudgetLine | null} */
  let fullest = null;
  for (const b of budgets)
    if (b.share !== null && (fullest === null || b.share > (fullest.share ?? 0))) fullest = b;
  fill(
    card,
    h('div', { class: 'stat-title' }, 'Budgets'),
    h(
      'div',
      { class: ['stat-value', fullest && `budget-${fullest.level}`] },
      fullest ? percent(fullest.spentUsd, fullest.limitUsd) : '─',
    ),
    budgets.map((b) =>
      h(
        'div',
        { class: ['stat-note', `budget-${b.level}`], title: `${b.from} → ${b.to}` },
        `${b.name}: ${usd(b.spentUsd)} of ${usd(b.limitUsd)} ${THIS[b.period] ?? b.period} (${percent(b.spentUsd, b.limitUsd)})`,
      ),
    ),
  );
}

function budgetCard() {
  const card = h('div', { class: 'stat budgets' });
  fillBudgets(card, budgetsNow());
  budgetsShown = card;
  return card;
}

/**
 * The spend cards, the budgets and the sessions count.
 * @param {SessionDocument} doc
 */
export function spendSummary(doc) {
  /** @param {SessionDoc['state']} st */
  const by = (st) => doc.sessions.filter((s) => s.state === st).length;
  return [
    spendCard(
      doc,
      'This hour',
      sumSpend(doc.sessions, (r) => r.hour),
    ),
    spendCard(
      doc,
      'Today',
      sumSpend(doc.sessions, (r) => r.today),
    ),
    spendCard(
      doc,
      '7 days',
      sumSpend(doc.sessions, (r) => r.week),
    ),
    budgetCard(),
    quotaCard(),
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
  ];
}
