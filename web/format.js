// @ts-check
// How values read on the page. Spend, tokens, times, shares and the `─` of an unknown value come
// from the module the terminal uses too (src/views/format.ts, served as shared-format.js), and the
// harness names from the provider table (harnesses.js, written by the server): the page defines
// neither. What is here is the page's own: local clock times, labels made of several fields, and
// the state marks.

/** @import { ProviderId } from '../src/model/facts.js' */
/** @import { SessionDoc } from '../src/model/document.js' */
/** @import { SessionState } from '../src/model/state.js' */

import { HARNESS } from './harnesses.js';
import { duration, UNKNOWN } from './shared-format.js';

export {
  ago,
  counted,
  duration,
  NO_PRICE,
  percent,
  shortModel,
  tokens,
  UNKNOWN,
  usd,
} from './shared-format.js';
export { totalTokens } from './shared-usage.js';

/**
 * A harness's name for people; the id itself for one this server does not know (a newer host).
 * @param {ProviderId} id
 */
export const harness = (id) => HARNESS[id] ?? id;

/**
 * Milliseconds since the epoch, or null (NaN when the text is not a time, which the formatters show
 * as unknown).
 * @param {string | null} iso
 */
export const ms = (iso) => (iso ? Date.parse(iso) : null);

/**
 * A call's duration: milliseconds and seconds for short ones, then as `duration` does.
 * @param {number | null} v
 */
export function msText(v) {
  if (v === null) return UNKNOWN;
  if (v < 1000) return `${Math.round(v)}ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(1)}s`;
  return duration(v);
}

/**
 * The last part of a path, either slash.
 * @param {string | null} p
 */
export const basename = (p) =>
  p
    ? (p
        .replace(/[/\\]+$/, '')
        .split(/[/\\]/)
        .pop() ?? p)
    : null;

/**
 * Control characters (escape sequences in a title) read as spaces.
 * @param {string} s
 */
export const clean = (s) => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');

/**
 * How a session is named in a list: its project's folder and its title.
 * @param {Pick<SessionDoc, 'project' | 'title' | 'id'>} s
 */
export function label(s) {
  const project = basename(s.project);
  const title = s.title ? clean(s.title) : null;
  if (project && title) return `${project} · ${title}`;
  return project ?? title ?? s.id;
}

/**
 * The time of day for today, the date and time otherwise, in the reader's locale.
 * @param {string | null} iso
 */
export function localTime(iso) {
  const t = ms(iso);
  if (t === null || Number.isNaN(t)) return '';
  const d = new Date(t);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/**
 * @typedef {{ hour: number | null, today: number | null, week: number | null }} RecentSpend
 */

/**
 * The current hour's, today's and the last 7 days' spend of one session (null: no price known).
 * @param {SessionDoc} s
 * @returns {RecentSpend}
 */
export function recentSpend(s) {
  const h = s.cost.byHour;
  const d = s.cost.byDay;
  /** @param {number[]} xs @param {number} n */
  const last = (xs, n) => xs.slice(-n).reduce((a, b) => a + b, 0);
  return {
    hour: h && h.usd.length > 0 ? last(h.usd, 1) : null,
    today: d && d.usd.length > 0 ? last(d.usd, 1) : null,
    week: d && d.usd.length > 0 ? last(d.usd, 7) : null,
  };
}

/** @type {Record<SessionState, string>} */
export const STATE_MARK = { working: '●', waiting: '▲', error: '✖', idle: '·' };
/** @type {Record<SessionState, number>} */
export const STATE_ORDER = { waiting: 0, error: 1, working: 2, idle: 3 };
