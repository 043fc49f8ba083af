/**
 * The line above the table: spend over the last hour, day, week and month, and how many agents
 * work or wait. Worked out once per change of the document, not on every redraw.
 *
 * It sums the document's own series; pricing and the hour and day buckets are the index's.
 */
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { countStates } from '../../model/state.js';
import { type Paint, PLAIN } from '../cli/color.js';
import { clip, usd, width } from '../cli/format.js';
import type { ViewState } from './state.js';

/** Spend over the last `n` local days (today included), from every session's day series. */
function spendDays(sessions: readonly SessionDoc[], n: number): number {
  let total = 0;
  for (const s of sessions) {
    const days = s.cost.byDay?.usd ?? [];
    for (let i = Math.max(0, days.length - n); i < days.length; i++) total += days[i]!;
  }
  return total;
}

interface Totals {
  hour: number;
  days: [number, number, number];
  working: number;
  waiting: number;
  probably: number;
}

function totalsOf(doc: SessionDocument): Totals {
  const sessions = doc.sessions;
  const states = countStates(sessions, Date.parse(doc.generatedAt));
  return {
    hour: sessions.reduce((n, s) => n + (s.cost.byHour?.usd.at(-1) ?? 0), 0),
    days: [spendDays(sessions, 1), spendDays(sessions, 7), spendDays(sessions, 30)],
    working: states.working,
    waiting: states.waiting,
    probably: states.probablyWaiting,
  };
}

const totalsMemo = new WeakMap<ViewState, { revision: number; doc: SessionDocument; totals: Totals }>();

export function overview(v: ViewState, p: Paint, columns: number): string {
  const doc = v.doc;
  if (doc === null) return '';
  let memo = totalsMemo.get(v);
  if (memo?.revision !== v.revision || memo.doc !== doc) {
    memo = { revision: v.revision, doc, totals: totalsOf(doc) };
    totalsMemo.set(v, memo);
  }
  const { hour, days, working, waiting, probably } = memo.totals;
  const spans = [`hour ${usd(hour)}`, `today ${usd(days[0])}`, `7d ${usd(days[1])}`, `30d ${usd(days[2])}`];
  const agents = (q: Paint) =>
    `${q.green('●')} ${working} working  ${q.amber('▲')} ${waiting} waiting${probably > 0 ? ` ${q.amber('?')} ${probably} probably` : ''}`;
  // On a narrow terminal the agent counts matter more than the longer spend windows.
  for (let n = spans.length; n > 0; n--) {
    const spend = spans.slice(0, n).join(' · ');
    if (width(`cctop  ${spend}   ${agents(PLAIN)}`) <= columns)
      return `${p.bold('cctop')}  ${spend}   ${agents(p)}`;
  }
  return clip(`${p.bold('cctop')}  ${agents(p)}`, columns);
}
