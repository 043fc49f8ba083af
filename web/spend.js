// @ts-check
// The Spend screen (`/spend`): cost per day over the last month stacked by harness, model or project,
// Claude Code's 5-hour blocks, and the budgets. Every figure is what `/api/spend` answers, which the
// commands' own reports and JSON builders make (`cctop daily --by …`, `cctop blocks`, `cctop budget`):
// nothing here adds up money except the legend's sums over the days shown. Drawn as SVG from DOM
// calls like the rest of the page; every name (a model, a project path) goes in as text.
//
// Not here: keeping the session document (live.js), or the numbers (src/spend/, src/config/). The
// screen asks again when a live update arrives, at most every REFRESH_MS.

/** @import { SessionDocument } from '../src/model/document.js' */
/** @import { ProviderId } from '../src/model/facts.js' */
/** @import { SpendAnswer } from '../src/views/serve/spend.js' */
/** @import { BlockJson, BudgetJson } from '../src/spend/json.js' */
/** @import { Group, PeriodRow, SplitBy } from '../src/spend/periods.js' */
/** @import { SpendTally } from '../src/spend/tally.js' */
/** @import { Child } from './dom.js' */

import { AuthError, HttpError } from './api.js';
import { fill, h, navLink } from './dom.js';
import { blocksCard, budgetsCard } from './spend-cards.js';
import { legend, seriesOf, stackedChart, totalsLine } from './spend-chart.js';

/**
 * The shortest time between two fetches a live update causes. Updates arrive every couple of seconds
 * while agents work; a day's totals do not need redrawing that often, and each answer walks every
 * session's cells on the server.
 */
const REFRESH_MS = 10_000;
/** The days the chart covers: a month, as the dashboard's `7 days` card is a week. */
const DAYS = 31;
/** @type {readonly SplitBy[]} */
const SPLITS = ['harness', 'model', 'project', 'tool'];

/**
 * @param {unknown} v
 * @returns {v is SpendAnswer}
 */
const isSpend = (v) =>
  typeof v === 'object' &&
  v !== null &&
  Array.isArray(/** @type {Record<string, unknown>} */ (v).periods) &&
  Array.isArray(/** @type {Record<string, unknown>} */ (v).budgets) &&
  Array.isArray(/** @type {Record<string, unknown>} */ (v).blocks);

/**
 * `/api/spend` for the last DAYS days split by `by`.
 * @param {SplitBy} by
 * @returns {Promise<SpendAnswer>}
 */
async function getSpend(by) {
  const res = await fetch(`/api/spend?unit=day&by=${by}&days=${DAYS}`, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (res.status === 401) throw new AuthError('this page needs the link cctop serve printed');
  /** @type {unknown} */
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const error = typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : null;
    throw new HttpError(res.status, error ?? `HTTP ${res.status}`, error === null ? null : { error });
  }
  if (!isSpend(body))
    throw new Error('the server answered something that is not the spend report; reload the page');
  return body;
}

export class SpendView {
  /** @param {(href: string) => void} _navigate */
  constructor(_navigate) {
    const by = new URLSearchParams(location.search).get('by');
    /** @type {SplitBy} */
    this.by = SPLITS.find((x) => x === by) ?? 'harness';
    this.gone = false;
    this.busy = false;
    this.again = false;
    this.lastFetch = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.switch = h('div', { class: 'split-switch', role: 'group', 'aria-label': 'split by' });
    this.chart = h('div', { class: 'chart-slot' }, h('p', { class: 'loading' }, 'Adding up the spend…'));
    this.problem = h('p', { class: 'error', hidden: true });
    this.blocks = h('section', { class: 'card blocks-card' });
    this.budgets = h('section', { class: 'card budgets-card' });
    this.el = h(
      'div',
      { class: 'spend' },
      h('nav', { class: 'crumbs' }, navLink('/', null, '← All sessions')),
      h('h1', null, 'Spend'),
      this.problem,
      h(
        'section',
        { class: 'card' },
        h('div', { class: 'chart-head' }, h('h2', null, `Cost per day, last ${DAYS} days`), this.switch),
        this.chart,
      ),
      h('div', { class: 'spend-columns' }, this.blocks, this.budgets),
    );
    this.drawSwitch();
    this.load();
  }

  drawSwitch() {
    fill(
      this.switch,
      SPLITS.map((x) =>
        h(
          'button',
          {
            type: 'button',
            'aria-pressed': x === this.by ? 'true' : 'false',
            dataset: { by: x },
            onclick: () => this.pick(x),
          },
          x,
        ),
      ),
    );
  }

  /** @param {SplitBy} by */
  pick(by) {
    if (by === this.by) return;
    this.by = by;
    history.replaceState(history.state, '', by === 'harness' ? '/spend' : `/spend?by=${by}`);
    this.drawSwitch();
    this.load();
  }

  async load() {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.lastFetch = Date.now();
    const by = this.by;
    try {
      const a = await getSpend(by);
      if (!this.gone && by === this.by) this.draw(a, by);
      this.problem.hidden = true;
    } catch (err) {
      this.problem.hidden = false;
      fill(
        this.problem,
        err instanceof AuthError
          ? 'This page needs the link cctop serve printed when it started.'
          : `The spend could not be read: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      this.busy = false;
      if (this.again && !this.gone) {
        this.again = false;
        this.load();
      }
    }
  }

  /**
   * @param {SpendAnswer} a
   * @param {SplitBy} by
   */
  draw(a, by) {
    const { series, seriesOf: seriesFor } = seriesOf(a.periods);
    fill(
      this.chart,
      a.periods.length === 0
        ? h('p', { class: 'calm' }, `Nothing was spent from ${a.from} to ${a.to}.`)
        : [stackedChart(a, by, seriesFor, this.chart.clientWidth), legend(series, by)],
      totalsLine(a),
    );
    fill(this.blocks, blocksCard(a));
    fill(this.budgets, budgetsCard(a));
  }

  /**
   * A live update arrived: fetch again, at most every REFRESH_MS (a later one waits for its turn).
   * @param {SessionDocument} _doc
   */
  update(_doc) {
    if (this.gone || this.timer !== null) return;
    const wait = Math.max(0, this.lastFetch + REFRESH_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.gone) this.load();
    }, wait);
  }

  destroy() {
    this.gone = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
