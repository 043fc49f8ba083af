// @ts-check
// The dashboard table's columns (what each shows and how it sorts) and its filters. A table of
// columns, like the terminal's (src/views/tui/columns.ts); the cells read through the same formatters.

/** @import { SessionDoc } from '../src/model/document.js' */

import {
  ago,
  clean,
  duration,
  harness,
  label,
  ms,
  percent,
  recentSpend,
  STATE_ORDER,
  shortModel,
  tokens,
  totalTokens,
  UNKNOWN,
  usd,
} from './format.js';

/**
 * @typedef {object} Column
 * @property {string} key
 * @property {string} title
 * @property {boolean} [num] right-aligned, and sorted largest first
 * @property {(s: SessionDoc) => number | string} sort
 * @property {(s: SessionDoc, now: number) => string} cell
 */

/**
 * A number to sort by; an unknown one sorts below every known one.
 * @param {number | null} v
 */
const num = (v) => (v === null || Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v);

/** @param {SessionDoc} s */
const failRate = (s) =>
  s.tools.failed === null || s.tools.calls === 0 ? null : s.tools.failed / s.tools.calls;

/** @param {SessionDoc} s */
const span = (s) => {
  const a = ms(s.startedAt);
  const b = ms(s.lastActiveAt);
  return a === null || b === null ? null : b - a;
};

/**
 * How full the context is, as a fraction of where the agent compacts.
 * @param {SessionDoc} s
 */
export const ctxFraction = (s) =>
  s.context.used === null || !s.context.compactAt ? null : s.context.used / s.context.compactAt;

/**
 * Recent spend: a plan that bundles it shows `incl`, but only where something was spent.
 * @param {number | null} v
 * @param {boolean} included
 */
const recent = (v, included) => usd(v, included && v !== null && v > 0);

/** @type {Column[]} */
export const COLUMNS = [
  {
    key: 'state',
    title: 'State',
    sort: (s) => -STATE_ORDER[s.state],
    // A state the agent reported (hooks, its registry) is certain; an inferred one is marked `~`, and
    // a session that cctop/drive drives `⇄`.
    cell: (s) => `${s.driven ? '⇄ ' : ''}${s.stateSource === 'inferred' ? `~${s.state}` : s.state}`,
  },
  // The machine a session runs on when it is another (`--host`); shown while the server reads hosts.
  { key: 'host', title: 'Host', sort: (s) => s.host ?? '', cell: (s) => (s.host ? clean(s.host) : '') },
  { key: 'title', title: 'Project · title', sort: (s) => label(s).toLowerCase(), cell: (s) => label(s) },
  {
    key: 'last',
    title: 'Last',
    num: true,
    sort: (s) => num(ms(s.lastActiveAt)),
    cell: (s, now) => ago(ms(s.lastActiveAt), now),
  },
  { key: 'dur', title: 'Dur', num: true, sort: (s) => num(span(s)), cell: (s) => duration(span(s)) },
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
    cell: (s) => recent(recentSpend(s).hour, s.cost.included),
  },
  {
    key: 'today',
    title: 'Today',
    num: true,
    sort: (s) => num(recentSpend(s).today),
    cell: (s) => recent(recentSpend(s).today, s.cost.included),
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
    cell: (s) => {
      const r = failRate(s);
      return r === null ? UNKNOWN : `${Math.round(r * 100)}%`;
    },
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

/** The column a table sorts by when the address names none. */
export const DEFAULT_SORT = 'last';

/** Columns of words, sorted A to Z first; the others (numbers, times, states) largest first. */
export const WORD_COLUMNS = new Set(['host', 'title', 'model', 'harness', 'branch']);

export const STATES = /** @type {const} */ (['all', 'active', 'waiting', 'working', 'error', 'idle']);
/** @typedef {(typeof STATES)[number]} StateFilter */

/**
 * @param {string | null} v
 * @returns {v is StateFilter}
 */
export const isStateFilter = (v) => STATES.some((s) => s === v);

/**
 * @typedef {object} Filter
 * @property {string} q words that must all appear
 * @property {StateFilter} state
 * @property {string} provider a harness id, or '' for every harness
 */

/**
 * Whether a session passes the dashboard's filters.
 * @param {SessionDoc} s
 * @param {Filter} f
 */
export function matches(s, f) {
  if (f.provider && s.provider !== f.provider) return false;
  if (f.state === 'active' && s.state === 'idle') return false;
  if (f.state !== 'all' && f.state !== 'active' && s.state !== f.state) return false;
  if (!f.q) return true;
  const hay = [s.id, s.project, s.title, s.model, s.branch, harness(s.provider), s.host]
    .join('\n')
    .toLowerCase();
  return f.q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}
