// @ts-check
// The Spend screen's chart: cost per day as stacked bars (the SERIES largest groups in colours of
// their own, the rest as `other`), its legend and the totals line. Drawn as SVG from DOM calls; every
// name goes in as text.
//
// Not here: fetching (spend.js) or the numbers, which `/api/spend` gives as the reports make them.

/** @import { SessionDocument } from '../src/model/document.js' */
/** @import { ProviderId } from '../src/model/facts.js' */
/** @import { SpendAnswer } from '../src/views/serve/spend.js' */
/** @import { BlockJson, BudgetJson } from '../src/spend/json.js' */
/** @import { Group, PeriodRow, SplitBy } from '../src/spend/periods.js' */
/** @import { SpendTally } from '../src/spend/tally.js' */
/** @import { Child } from './dom.js' */

import { h, s } from './dom.js';
import { basename, clean, harness, NO_PRICE, shortModel, tokens, usd } from './format.js';

/** Groups drawn in their own colour; the rest are summed as `other`, so the legend stays readable. */
const SERIES = 6;
/** The folded groups' key: NUL begins no harness id, model name or project path, so none is mistaken for it. */
const OTHER = '\u0000other';

/** What a cost no price is known for reads as: unknown, never `$0.00`. */
export { NO_PRICE } from './format.js';

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

/**
 * A cost as the commands print it: `no price` when nothing counted had one (tokens were spent), `─`
 * when nothing was spent at all.
 * @param {SpendTally} t
 */
export const costText = (t) =>
  t.cost.usd === null && t.cost.unpricedTokens > 0 ? NO_PRICE : usd(t.cost.usd);

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
      // A tool (`(none)`: requests that called none; `(unknown)`: a harness that does not say), or a
      // split the page does not know yet: the key as it is.
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
export function seriesOf(periods) {
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
export function stackedChart(a, by, seriesFor, boxWidth) {
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
export function legend(series, by) {
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
export function totalsLine(a) {
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
