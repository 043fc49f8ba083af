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

import { fill, h, navLink, s } from './dom.js';
import {
  basename,
  clean,
  duration,
  harness,
  localTime,
  percent,
  shortModel,
  tokens,
  UNKNOWN,
  usd,
} from './format.js';
import { AuthError, HttpError } from './live.js';

/**
 * The shortest time between two fetches a live update causes. Updates arrive every couple of seconds
 * while agents work; a day's totals do not need redrawing that often, and each answer walks every
 * session's cells on the server.
 */
const REFRESH_MS = 10_000;
/** The days the chart covers: a month, as the dashboard's `7 days` card is a week. */
const DAYS = 31;
/** Groups drawn in their own colour; the rest are summed as `other`, so the legend stays readable. */
const SERIES = 6;
/** The folded groups' key: NUL begins no harness id, model name or project path, so none is mistaken for it. */
const OTHER = '\u0000other';
/** @type {readonly SplitBy[]} */
const SPLITS = ['harness', 'model', 'project'];
/** What a cost no price is known for reads as: unknown, never `$0.00`. */
const NO_PRICE = 'no price';
/**
 * The chart is drawn at its box's width in pixels (text stays 11px on a phone and on a wide screen),
 * within these bounds; its height is fixed.
 */
const MIN_W = 300;
const MAX_W = 1600;
const H = 220;
/** Room an axis label under the chart needs, so they do not run into each other. */
const LABEL_PX = 64;
const PAD = { left: 56, right: 8, top: 10, bottom: 24 };
const DAY_MS = 86_400_000;
/** Where a budget reads as near its limit (NEAR_SHARE in src/config/budgets.ts): its bar's tick. */
const NEAR_SHARE = 0.8;

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

/**
 * A cost as the commands print it: `no price` when nothing counted had one (tokens were spent), `─`
 * when nothing was spent at all.
 * @param {SpendTally} t
 */
const costText = (t) => (t.cost.usd === null && t.cost.unpricedTokens > 0 ? NO_PRICE : usd(t.cost.usd));

/**
 * A group's name for people, and the full name for its tooltip.
 * @param {SplitBy} by
 * @param {string} key
 * @returns {{ short: string, full: string }}
 */
function nameOf(by, key) {
  if (key === OTHER) return { short: 'other', full: 'other' };
  switch (by) {
    case 'harness': {
      // A harness group's key is the session's provider id; harness() shows an unknown one as it is.
      const name = harness(/** @type {ProviderId} */ (key));
      return { short: name, full: name };
    }
    case 'model':
      return { short: clean(shortModel(key)), full: clean(key) };
    case 'project':
      return { short: clean(basename(key) ?? key), full: clean(key) };
    default:
      // A split this screen does not offer (the API may answer more): the key as it is.
      return { short: clean(key), full: clean(key) };
  }
}

/**
 * @typedef {object} Series
 * @property {string} key the group's key, or OTHER
 * @property {number} index its colour
 * @property {number | null} usd over the days shown; null when none of it had a price
 * @property {number} unpricedTokens
 */

/**
 * The groups of the days shown, most expensive first; past SERIES, the rest fold into `other`.
 * @param {PeriodRow[]} periods
 * @returns {{ series: Series[], seriesOf: (key: string) => Series }}
 */
function seriesOf(periods) {
  /** @type {Map<string, { usd: number | null, unpricedTokens: number }>} */
  const sums = new Map();
  for (const p of periods)
    for (const g of p.groups ?? []) {
      const t = sums.get(g.key) ?? { usd: null, unpricedTokens: 0 };
      if (g.cost.usd !== null) t.usd = (t.usd ?? 0) + g.cost.usd;
      t.unpricedTokens += g.cost.unpricedTokens;
      sums.set(g.key, t);
    }
  const ranked = [...sums].sort(
    ([ak, a], [bk, b]) =>
      (b.usd ?? -1) - (a.usd ?? -1) || b.unpricedTokens - a.unpricedTokens || (ak < bk ? -1 : 1),
  );
  const keep = ranked.length <= SERIES + 1 ? ranked : ranked.slice(0, SERIES);
  /** @type {Series[]} */
  const series = keep.map(([key, t], index) => ({ key, index, ...t }));
  if (keep.length < ranked.length) {
    const other = { key: OTHER, index: SERIES, usd: /** @type {number | null} */ (null), unpricedTokens: 0 };
    for (const [, t] of ranked.slice(SERIES)) {
      if (t.usd !== null) other.usd = (other.usd ?? 0) + t.usd;
      other.unpricedTokens += t.unpricedTokens;
    }
    series.push(other);
  }
  const byKey = new Map(series.map((x) => [x.key, x]));
  const fallback = series.at(-1) ?? { key: OTHER, index: SERIES, usd: null, unpricedTokens: 0 };
  return { series, seriesOf: (key) => byKey.get(key) ?? fallback };
}

/**
 * A round axis maximum at or above `v`: 1, 2, 2.5 or 5 times a power of ten.
 * @param {number} v
 */
function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * The local days from `from` to `to` (`YYYY-MM-DD`), both included.
 * @param {string} from
 * @param {string} to
 */
function daysBetween(from, to) {
  const out = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * `Jun 5`: a day key read as the calendar date it names (not shifted into the browser's zone).
 * @param {string} day
 */
const dayLabel = (day) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString([], { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * The segments of one day's column, biggest series at the bottom, summed per series (folded groups
 * are one `other` segment).
 * @param {PeriodRow} p
 * @param {(key: string) => Series} seriesFor
 */
function segmentsOf(p, seriesFor) {
  /** @type {Map<Series, Group[]>} */
  const parts = new Map();
  for (const g of p.groups ?? []) {
    const x = seriesFor(g.key);
    parts.set(x, [...(parts.get(x) ?? []), g]);
  }
  return [...parts].sort(([a], [b]) => a.index - b.index);
}

/**
 * The text a day's column shows on hover: its total, then each group.
 * @param {PeriodRow} p
 * @param {SplitBy} by
 */
function dayTitle(p, by) {
  const lines = [`${p.period}: ${costText(p)} · ${tokens(p.totalTokens)} tokens · ${p.requests} requests`];
  for (const g of p.groups ?? []) lines.push(`  ${nameOf(by, g.key).full}: ${costText(g)}`);
  return lines.join('\n');
}

/**
 * One day's column: a hit area with the day's figures, and a segment per series with its own.
 * @param {PeriodRow} p
 * @param {{ x: number, width: number, y: (v: number) => number, by: SplitBy, seriesFor: (key: string) => Series }} o
 */
function dayColumn(p, o) {
  const base = o.y(0);
  const g = s(
    'g',
    { class: 'day', 'data-day': p.period },
    s(
      'rect',
      { x: o.x, y: PAD.top, width: o.width, height: base - PAD.top, class: 'hit' },
      s('title', null, dayTitle(p, o.by)),
    ),
  );
  let top = base;
  for (const [x, groups] of segmentsOf(p, o.seriesFor)) {
    const v = groups.reduce((a, b) => a + (b.cost.usd ?? 0), 0);
    const unpriced = groups.every((b) => b.cost.usd === null);
    const name = nameOf(o.by, x.key).full;
    const hgt = unpriced ? 0 : Math.max(base - o.y(v), v > 0 ? 1 : 0);
    top -= hgt;
    const tip = `${p.period} · ${name}: ${unpriced ? NO_PRICE : usd(v)} (day: ${costText(p)})`;
    g.append(
      s(
        'rect',
        { x: o.x, y: top, width: o.width, height: hgt, class: `seg series-${x.index}` },
        s('title', null, tip),
      ),
    );
  }
  if (p.cost.usd === null)
    // Only unpriced usage that day: a dashed stub says something was spent, at no known price.
    g.append(s('line', { x1: o.x, x2: o.x + o.width, y1: base - 1, y2: base - 1, class: 'unpriced' }));
  return g;
}

/**
 * The stacked bar chart: one column per day from `a.from` to `a.to`, a column drawn for each day with
 * requests.
 * @param {SpendAnswer} a
 * @param {SplitBy} by
 * @param {(key: string) => Series} seriesFor
 * @param {number} boxWidth the width it will be shown at, in pixels
 */
function stackedChart(a, by, seriesFor, boxWidth) {
  const W = Math.round(Math.max(MIN_W, Math.min(MAX_W, boxWidth)));
  const days = daysBetween(a.from, a.to);
  const max = niceMax(Math.max(0, ...a.periods.map((p) => p.cost.usd ?? 0)));
  const plotH = H - PAD.top - PAD.bottom;
  const step = (W - PAD.left - PAD.right) / Math.max(1, days.length);
  const width = Math.max(1, step * 0.78);
  const y = (/** @type {number} */ v) => PAD.top + plotH - (v / max) * plotH;
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart spend-chart',
    role: 'img',
    'aria-label': `cost per day by ${by}`,
  });
  for (const f of [0, 0.5, 1])
    svg.append(
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(max * f), y2: y(max * f), class: 'grid' }),
      s('text', { x: PAD.left - 6, y: y(max * f) + 4, class: 'axis', 'text-anchor': 'end' }, usd(max * f)),
    );
  const at = new Map(days.map((d, i) => [d, i]));
  const every = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor((W - PAD.left) / LABEL_PX))));
  // Counted back from today, which always has its label; the last one ends at the chart's edge.
  for (let i = days.length - 1; i >= 0; i -= every) {
    const last = i === days.length - 1;
    const x = last ? W - PAD.right : PAD.left + i * step + step / 2;
    svg.append(
      s(
        'text',
        { x, y: H - 6, class: 'axis', 'text-anchor': last ? 'end' : 'middle' },
        dayLabel(days[i] ?? ''),
      ),
    );
  }
  for (const p of a.periods) {
    const i = at.get(p.period);
    if (i === undefined) continue;
    svg.append(dayColumn(p, { x: PAD.left + i * step + (step - width) / 2, width, y, by, seriesFor }));
  }
  return svg;
}

/**
 * The legend: a swatch, the name and its total over the days shown, per series.
 * @param {Series[]} series
 * @param {SplitBy} by
 */
function legend(series, by) {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'legend' },
    series.map((x) => {
      const name = nameOf(by, x.key);
      const cost = x.usd === null ? (x.unpricedTokens > 0 ? NO_PRICE : usd(null)) : usd(x.usd);
      return h(
        'li',
        { title: name.full, dataset: { key: x.key } },
        h('span', { class: `swatch series-${x.index}`, 'aria-hidden': 'true' }),
        h('span', { class: 'legend-name' }, name.short),
        h('span', { class: 'legend-cost' }, cost),
      );
    }),
  );
}

/**
 * The line under the chart: the days' total, what the plan bundles, and tokens no price is known for.
 * @param {SpendAnswer} a
 */
function totalsLine(a) {
  const t = a.totals;
  return h(
    'p',
    { class: 'spend-totals' },
    `${a.from} → ${a.to}: `,
    h('strong', null, costText(t)),
    ` · ${tokens(t.totalTokens)} tokens · ${t.requests} requests`,
    a.plan !== 'retail' && t.cost.included !== null
      ? ` · ${usd(t.cost.included)} of it incl. in the ${a.plan} plan`
      : '',
    t.cost.unpricedTokens > 0 ? ` · ${tokens(t.cost.unpricedTokens)} tokens on models with no price` : '',
  );
}

/**
 * The running block: when it ends, what it has cost, how fast, and where that leads by its end.
 * @param {BlockJson & { kind: 'block' }} b
 * @param {number} nowMs the server's clock when it answered
 */
function activeCard(b, nowMs) {
  const start = Date.parse(b.start);
  const end = Date.parse(b.end);
  const rate = b.burnRate;
  const perHour = rate === null || rate.usdPerMinute === null ? null : rate.usdPerMinute * 60;
  return h(
    'div',
    { class: 'block-active' },
    h(
      'p',
      null,
      h('strong', null, 'Running'),
      ` since ${localTime(b.start)} · ends ${localTime(b.end)} · `,
      h('strong', { class: 'time-left' }, `${duration(end - nowMs)} left`),
    ),
    fractionBar((nowMs - start) / (end - start), 'block-elapsed', null),
    h(
      'dl',
      { class: 'block-figures' },
      h('dt', null, 'So far'),
      h('dd', null, `${costText(b)} · ${tokens(b.totalTokens)} tokens`),
      h('dt', null, 'Burn rate'),
      h(
        'dd',
        null,
        rate === null
          ? UNKNOWN
          : `${perHour === null ? NO_PRICE : `${usd(perHour)}/h`} · ${tokens(Math.round(rate.tokensPerMinute))} tokens/min`,
      ),
      h('dt', null, 'Projected'),
      h(
        'dd',
        null,
        b.projection === null
          ? UNKNOWN
          : `${b.projection.usd === null ? NO_PRICE : usd(b.projection.usd)} · ${tokens(b.projection.totalTokens)} tokens by ${localTime(b.end)}`,
      ),
    ),
  );
}

/**
 * The blocks card: the running block, then the finished ones, newest first.
 * @param {SpendAnswer} a
 */
function blocksCard(a) {
  const nowMs = Date.parse(a.generatedAt);
  /** @type {(BlockJson & { kind: 'block' })[]} */
  const finished = [];
  for (const b of a.blocks) if (b.kind === 'block' && !b.active) finished.unshift(b);
  const running = a.active?.kind === 'block' ? a.active : null;
  return [
    h('h2', null, 'Claude Code blocks'),
    running
      ? activeCard(running, nowMs)
      : h('p', { class: 'calm' }, 'No 5-hour block is running; the next Claude Code request starts one.'),
    finished.length === 0
      ? null
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'plain blocks' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', null, 'Started'),
                h('th', { class: 'num' }, 'Active'),
                h('th', { class: 'num' }, 'Cost'),
                h('th', { class: 'num' }, 'Tokens'),
                h('th', null, 'Models'),
              ),
            ),
            h(
              'tbody',
              null,
              finished.map((b) =>
                h(
                  'tr',
                  null,
                  h('td', null, localTime(b.start)),
                  h('td', { class: 'num' }, duration(Date.parse(b.lastRequest) - Date.parse(b.firstRequest))),
                  h('td', { class: 'num' }, costText(b)),
                  h('td', { class: 'num' }, tokens(b.totalTokens)),
                  h('td', null, b.models.map((m) => clean(shortModel(m))).join(', ')),
                ),
              ),
            ),
          ),
        ),
  ];
}

/**
 * A bar as wide as its box, filled to `fraction` (full past 1), with a tick at `tick` if given.
 * @param {number} fraction
 * @param {string} cls
 * @param {number | null} tick
 */
function fractionBar(fraction, cls, tick) {
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  return s(
    'svg',
    { viewBox: '0 0 100 8', class: `fraction ${cls}`, 'aria-hidden': 'true', preserveAspectRatio: 'none' },
    s('rect', { x: 0, y: 0, width: 100, height: 8, class: 'fraction-bg' }),
    s('rect', { x: 0, y: 0, width: 100 * f, height: 8, class: 'fraction-fg' }),
    tick === null
      ? null
      : s('line', { x1: 100 * tick, x2: 100 * tick, y1: 0, y2: 8, class: 'fraction-tick' }),
  );
}

/**
 * A budget's share of its limit, full at 100% and past it; a tick where it reads as near (80%).
 * @param {BudgetJson} b
 */
const shareBar = (b) => fractionBar(b.share ?? 0, `share level-${b.level}`, NEAR_SHARE);

/**
 * One budget: its name and days, spent of its limit, the bar, the share and its level.
 * @param {BudgetJson} b
 */
function budgetRow(b) {
  const days = b.from === b.to ? b.from : `${b.from} → ${b.to}`;
  const scope = [b.harness ? harness(b.harness) : null, b.project].filter(Boolean).join(' · ');
  return h(
    'li',
    // With nothing priced, `ok` is only what is known: the level is dimmed, as `cctop budget` does.
    { class: ['budget', `level-${b.level}`, b.spentUsd === null && 'unpriced'], dataset: { level: b.level } },
    h(
      'div',
      { class: 'budget-head' },
      h('strong', null, clean(b.name)),
      h('span', { class: 'dim' }, ` ${b.period} · ${days}${scope ? ` · ${clean(scope)}` : ''}`),
    ),
    h(
      'div',
      { class: 'budget-figures' },
      `${b.spentUsd === null ? NO_PRICE : usd(b.spentUsd)} of ${usd(b.limitUsd)}`,
    ),
    shareBar(b),
    h('span', { class: 'budget-share' }, percent(b.spentUsd, b.limitUsd)),
    h('span', { class: 'budget-level' }, b.level),
  );
}

/**
 * The budgets card: every budget, or why there are none, and what is wrong with the config file.
 * @param {SpendAnswer} a
 */
function budgetsCard(a) {
  /** @type {Child} */
  let body;
  if (a.configPath === null)
    body = h(
      'p',
      { class: 'calm' },
      'This server does not read the config file, so it shows no budgets; cctop budget does.',
    );
  else if (a.budgets.length === 0)
    body = h(
      'p',
      { class: 'calm' },
      `No budgets are set. Add a [[budget]] to ${a.configPath} (docs/config.md shows how).`,
    );
  else body = h('ul', { class: 'budgets' }, a.budgets.map(budgetRow));
  return [h('h2', null, 'Budgets'), body, a.configProblems.map((p) => h('p', { class: 'error' }, p))];
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
