// @ts-check
// Small SVG charts, drawn here rather than by a library (the page loads nothing it does not serve).
// Labels and tooltips are text nodes like everything else.

import { s } from './dom.js';

/** The charts' drawing width in SVG units; they scale to their box. */
const W = 640;

/**
 * A round axis maximum at or above `v`: 1, 2, 2.5 or 5 times a power of ten.
 * @param {number} v
 */
function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * @typedef {{ label: string, value: number, tip?: string }} Bar
 * @typedef {(v: number) => string} Fmt
 */

/**
 * Vertical bars: `fmt` formats the axis. Labels are thinned to fit; every bar keeps its tooltip.
 * @param {Bar[]} bars
 * @param {{ fmt: Fmt, height?: number, unit?: string }} o
 */
export function barChart(bars, { fmt, height = 160, unit = '' }) {
  const left = 52;
  const bottom = 22;
  const top = 8;
  const plotW = W - left - 8;
  const plotH = height - top - bottom;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const step = plotW / Math.max(1, bars.length);
  const barW = Math.max(1, Math.min(28, step * 0.8));
  const every = Math.max(1, Math.ceil(bars.length / 8));
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${height}`,
    class: 'chart',
    role: 'img',
    'aria-label': `bar chart${unit ? ` of ${unit}` : ''}`,
  });
  for (const f of [0, 0.5, 1]) {
    const y = top + plotH - f * plotH;
    svg.append(
      s('line', { x1: left, x2: W - 8, y1: y, y2: y, class: 'grid' }),
      s('text', { x: left - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, fmt(max * f)),
    );
  }
  bars.forEach((b, i) => {
    const v = b.value;
    const hgt = (v / max) * plotH;
    const x = left + i * step + (step - barW) / 2;
    svg.append(
      s(
        'rect',
        { x, y: top + plotH - hgt, width: barW, height: Math.max(hgt, v > 0 ? 1 : 0), class: 'bar' },
        s('title', null, b.tip ?? `${b.label}: ${fmt(v)}`),
      ),
    );
    if (i % every === 0)
      svg.append(
        s('text', { x: x + barW / 2, y: height - 6, class: 'axis', 'text-anchor': 'middle' }, b.label),
      );
  });
  return svg;
}

/**
 * @typedef {{ t: number, y: number }} Point
 * @typedef {{ y: number, label: string, class?: string }} Rule
 * @typedef {{ t: number, label: string }} Mark
 */

/**
 * A line over time: `points` (t in ms, or an index when times are unknown), horizontal `rules` and
 * vertical `marks`.
 * @param {Point[]} points
 * @param {{ fmt: Fmt, tfmt: (t: number) => string, rules?: Rule[], marks?: Mark[], height?: number }} o
 */
export function lineChart(points, { fmt, tfmt, rules = [], marks = [], height = 180 }) {
  const left = 52;
  const bottom = 22;
  const top = 10;
  const plotW = W - left - 12;
  const plotH = height - top - bottom;
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${height}`,
    class: 'chart',
    role: 'img',
    'aria-label': 'line chart',
  });
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return svg;
  const t0 = first.t;
  const t1 = Math.max(t0 + 1, last.t);
  // Headroom above the highest line, so a rule's label stays inside the chart.
  const max = niceMax(1.08 * Math.max(...points.map((p) => p.y), ...rules.map((r) => r.y)));
  /** @param {number} t */
  const x = (t) => left + ((t - t0) / (t1 - t0)) * plotW;
  /** @param {number} v */
  const y = (v) => top + plotH - (v / max) * plotH;
  for (const f of [0, 0.5, 1]) {
    svg.append(
      s('line', { x1: left, x2: W - 12, y1: y(max * f), y2: y(max * f), class: 'grid' }),
      s('text', { x: left - 6, y: y(max * f) + 4, class: 'axis', 'text-anchor': 'end' }, fmt(max * f)),
    );
  }
  for (const r of rules) {
    svg.append(
      s('line', { x1: left, x2: W - 12, y1: y(r.y), y2: y(r.y), class: `rule ${r.class ?? ''}` }),
      s('text', { x: W - 14, y: y(r.y) - 4, class: 'axis', 'text-anchor': 'end' }, r.label),
    );
  }
  for (const m of marks) {
    if (m.t < t0 || m.t > t1) continue;
    svg.append(
      s(
        'line',
        { x1: x(m.t), x2: x(m.t), y1: top, y2: top + plotH, class: 'compaction' },
        s('title', null, m.label),
      ),
    );
  }
  const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p.y).toFixed(1)}`).join('');
  svg.append(s('path', { d, class: 'line' }));
  svg.append(
    s('text', { x: left, y: height - 6, class: 'axis' }, tfmt(t0)),
    s('text', { x: W - 12, y: height - 6, class: 'axis', 'text-anchor': 'end' }, tfmt(t1)),
  );
  return svg;
}

/**
 * A thin horizontal meter (context %, failure rate).
 * @param {number} fraction
 * @param {string} [cls]
 */
export function meter(fraction, cls = '') {
  const f = Math.max(0, Math.min(1, fraction));
  return s(
    'svg',
    { viewBox: '0 0 40 6', class: `meter ${cls}`, 'aria-hidden': 'true' },
    s('rect', { x: 0, y: 0, width: 40, height: 6, class: 'meter-bg' }),
    s('rect', { x: 0, y: 0, width: 40 * f, height: 6, class: 'meter-fg' }),
  );
}
