// @ts-check
// A session's report as the page draws it: the cards beside the conversation (cost over time,
// context, failures, slow and heavy calls, files, subagents). Pure drawing from one `SessionReport`
// (src/report/types.ts); the head above them is report-head.js's, and fetching the report and keeping
// it current is session.js's.

/** @import { SessionReport } from '../src/report/types.js' */
/** @import { Child } from './dom.js' */

import { barChart, lineChart, meter } from './charts.js';
import { h, navLink, sessionHref } from './dom.js';
import {
  clean,
  counted,
  localTime,
  msText,
  shortModel,
  tokens,
  totalTokens,
  UNKNOWN,
  usd,
} from './format.js';

/** Hours a session may span and still get a chart per hour; past four days, per day reads better. */
const MAX_HOURLY_SPAN = 96;
const HOUR_MS = 3_600_000;

/**
 * A card with a title.
 * @param {string} title
 * @param {string} id
 * @param {Child[]} body
 */
export function section(title, id, ...body) {
  return h('section', { class: 'card', id }, h('h2', null, title), ...body);
}

/** @typedef {string | { title: string, num?: boolean }} Header */

/**
 * @param {Header[]} headers
 * @param {Child[]} rows
 */
function table(headers, rows) {
  const th = (/** @type {Header} */ x) =>
    typeof x === 'string' ? h('th', null, x) : h('th', { class: x.num ? 'num' : null }, x.title);
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', { class: 'plain' }, h('thead', null, h('tr', null, headers.map(th))), h('tbody', null, rows)),
  );
}

/**
 * @param {Child} v
 * @param {boolean} [num]
 * @param {string | null} [cls]
 */
const td = (v, num = false, cls = null) => h('td', { class: [num && 'num', cls] }, v);

/** @param {number} t */
const fmtHour = (t) => new Date(t).toLocaleTimeString([], { hour: '2-digit' });

/**
 * Spend per hour when the session spans a few days at most, per day otherwise; gaps filled with zeros.
 * Tokens instead of dollars when nothing it used has a price.
 * @param {SessionReport} r
 */
function spendChart(r) {
  const hours = r.cost.byHour;
  const first = hours[0];
  const last = hours.at(-1);
  if (first === undefined || last === undefined) return null;
  const priced = hours.some((x) => x.usd !== null);
  /** @param {{ usd: number | null, tokens: number }} x */
  const value = (x) => (priced ? (x.usd ?? 0) : x.tokens);
  /** @type {(v: number) => string} */
  const fmt = priced ? (v) => usd(v) : (v) => tokens(Math.round(v));
  const start = Date.parse(first.hour);
  const span = Math.round((Date.parse(last.hour) - start) / HOUR_MS) + 1;
  if (span <= MAX_HOURLY_SPAN) {
    const at = new Map(hours.map((x) => [Date.parse(x.hour), x]));
    const bars = Array.from({ length: span }, (_, i) => {
      const t = start + i * HOUR_MS;
      const x = at.get(t);
      const v = x ? value(x) : 0;
      return { label: fmtHour(t), value: v, tip: `${new Date(t).toLocaleString()}: ${fmt(v)}` };
    });
    return {
      title: priced ? 'Cost by hour' : 'Tokens by hour (no price known)',
      chart: barChart(bars, { fmt }),
    };
  }
  const bars = r.cost.byDay.map((d) => ({
    label: d.day.slice(5),
    value: value(d),
    tip: `${d.day}: ${priced ? usd(d.usd) : tokens(d.tokens)}`,
  }));
  return { title: priced ? 'Cost by day' : 'Tokens by day (no price known)', chart: barChart(bars, { fmt }) };
}

/**
 * The prompt size of every request, with where the agent compacts and the window's size.
 * @param {SessionReport} r
 */
function contextChart(r) {
  const c = r.context;
  if (c.series.length === 0) return null;
  const timed = c.series.every((p) => p.at !== null);
  const points = c.series.map((p, i) => ({ t: timed && p.at !== null ? Date.parse(p.at) : i, y: p.prompt }));
  const rules = [];
  if (c.compactAt)
    rules.push({ y: c.compactAt, label: `compacts at ${tokens(c.compactAt)}`, class: 'compact' });
  if (c.window && c.window !== c.compactAt)
    rules.push({ y: c.window, label: `window ${tokens(c.window)}`, class: 'window' });
  const marks = [];
  if (timed)
    for (const at of c.compactions)
      if (at !== null) marks.push({ t: Date.parse(at), label: `compacted ${localTime(at)}` });
  return lineChart(points, {
    fmt: (v) => tokens(Math.round(v)),
    tfmt: (t) => (timed ? localTime(new Date(t).toISOString()) : `#${t}`),
    rules,
    marks,
  });
}

/**
 * Spend over time, and per model.
 * @param {SessionReport} r
 */
function costCard(r) {
  const spend = spendChart(r);
  const models = r.cost.byModel;
  const top = Math.max(0, ...models.map((m) => m.usd ?? 0));
  const included = r.session.cost.included;
  return section(
    'Cost',
    'cost',
    spend
      ? h('figure', null, spend.chart, h('figcaption', null, spend.title))
      : h('p', { class: 'dim' }, 'No spend recorded.'),
    models.length > 0
      ? table(
          [
            'Model',
            { title: 'Requests', num: true },
            { title: 'Tokens', num: true },
            { title: 'Cost', num: true },
            '',
          ],
          models.map((m) =>
            h(
              'tr',
              null,
              td(shortModel(m.model)),
              td(String(m.requests), true),
              td(tokens(totalTokens(m.tokens)), true),
              td(usd(m.usd, included && m.usd !== null), true),
              h('td', null, top > 0 && m.usd !== null ? meter(m.usd / top) : null),
            ),
          ),
        )
      : null,
  );
}

/** @param {SessionReport} r */
function contextCard(r) {
  const chart = contextChart(r);
  const n = r.context.compactions.length;
  const marked = n ? `; ${counted(n, 'compaction')} marked` : '';
  return section(
    'Context window',
    'context',
    chart
      ? h('figure', null, chart, h('figcaption', null, `Prompt size per request${marked}`))
      : h('p', { class: 'dim' }, 'This harness records no context sizes.'),
  );
}

/**
 * Failed calls, grouped by tool and argument, each with what came back.
 * @param {SessionReport} r
 */
function failuresCard(r) {
  const t = r.tools;
  if (t.failures.length === 0)
    return section(
      'Tool failures',
      'failures',
      h(
        'p',
        { class: 'dim' },
        t.failed === null ? 'This harness does not record tool outcomes.' : 'No failed calls.',
      ),
    );
  return section(
    'Tool failures',
    'failures',
    table(
      ['Tool', 'Call', { title: 'Times', num: true }, 'Last'],
      t.failures.map((f) =>
        h(
          'tr',
          null,
          td(f.tool),
          h(
            'td',
            { class: 'wrap' },
            h(
              'details',
              null,
              h('summary', null, clean(f.detail) || clean(f.argument) || '(no argument)'),
              f.argument ? h('pre', { class: 'arg' }, f.argument) : null,
              f.samples.map((x) => h('pre', { class: 'result' }, x)),
            ),
          ),
          td(`×${f.count}`, true),
          td(localTime(f.lastAt)),
        ),
      ),
    ),
  );
}

/**
 * Calls per tool, the slowest calls and the calls that grew the context most (each only when any).
 * @param {SessionReport} r
 */
function callCards(r) {
  const t = r.tools;
  return [
    t.byTool.length > 0
      ? section(
          'Tools',
          'tools',
          table(
            ['Tool', { title: 'Calls', num: true }, { title: 'Failed', num: true }],
            t.byTool.map((b) =>
              h(
                'tr',
                null,
                td(b.name),
                td(String(b.calls), true),
                td(t.failed === null ? UNKNOWN : String(b.failed), true),
              ),
            ),
          ),
        )
      : null,
    t.slowest.length > 0
      ? section(
          'Slowest calls',
          'slowest',
          table(
            ['Tool', 'Call', { title: 'Took', num: true }, 'When'],
            t.slowest.map((x) =>
              h(
                'tr',
                null,
                td(x.tool),
                td(clean(x.detail), false, 'wrap'),
                td(msText(x.ms), true),
                td(localTime(x.at)),
              ),
            ),
          ),
        )
      : null,
    t.heaviest.length > 0
      ? section(
          'Calls that grew the context most',
          'heaviest',
          table(
            ['Tool', 'Call', { title: 'Growth', num: true }],
            t.heaviest.map((x) =>
              h(
                'tr',
                null,
                td(x.tool),
                td(clean(x.detail), false, 'wrap'),
                td(`${tokens(x.growth)}${x.shared ? ' (shared)' : ''}`, true),
              ),
            ),
          ),
        )
      : null,
  ];
}

/** @param {SessionReport} r */
function filesCard(r) {
  return section(
    'Files',
    'files',
    r.files.length === 0
      ? h('p', { class: 'dim' }, 'No files read or written.')
      : table(
          [
            'Path',
            { title: 'Reads', num: true },
            { title: 'Writes', num: true },
            { title: 'Lines', num: true },
          ],
          r.files.map((f) =>
            h(
              'tr',
              null,
              td(f.path, false, 'wrap path'),
              td(String(f.reads), true),
              td(String(f.writes), true),
              td(f.added || f.removed ? `+${f.added} −${f.removed}` : '', true),
            ),
          ),
        ),
  );
}

/**
 * The subagents, each linked to its own conversation; null when there are none.
 * @param {SessionReport} r
 */
function subagentsCard(r) {
  if (r.subagents.length === 0) return null;
  const included = r.session.cost.included;
  return section(
    'Subagents',
    'subagents',
    table(
      [
        'Agent',
        'Task',
        { title: 'Requests', num: true },
        { title: 'Tokens', num: true },
        { title: 'Cost', num: true },
      ],
      r.subagents.map((a) =>
        h(
          'tr',
          null,
          h(
            'td',
            null,
            navLink(sessionHref(r.session.id, a.agent, r.session.host ?? null), null, a.type ?? a.agent),
          ),
          td(a.title ? clean(a.title) : '', false, 'wrap'),
          td(String(a.requests), true),
          td(tokens(totalTokens(a.tokens)), true),
          td(usd(a.usd, included && a.usd !== null), true),
        ),
      ),
    ),
  );
}

/**
 * The report's cards, in order, with `diffs` (drawn from the conversation) after the files.
 * @param {SessionReport} r
 * @param {string | null} agent the subagent whose conversation the page shows, if any
 * @param {HTMLElement} diffs
 * @returns {Child[]}
 */
export function reportCards(r, agent, diffs) {
  return [
    agent
      ? h(
          'p',
          { class: 'note' },
          'This is a subagent’s conversation; the report is the whole session’s. ',
          navLink(
            sessionHref(r.session.id, null, r.session.host ?? null),
            null,
            'Back to the main conversation',
          ),
        )
      : null,
    costCard(r),
    contextCard(r),
    failuresCard(r),
    callCards(r),
    filesCard(r),
    diffs,
    subagentsCard(r),
  ];
}
