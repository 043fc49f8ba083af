/**
 * The line above the table: spend over the last hour, day, week and month, where each budget of the
 * config file stands, how many agents work or wait, and how many collide (write the same file or
 * repository as another running agent). Worked out once per change of the document,
 * not on every redraw.
 *
 * It sums the document's own series; pricing and the hour and day buckets are the index's.
 */
import type { BudgetState } from '../../config/index.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { countStates } from '../../model/state.js';
import { type Paint, PLAIN } from '../cli/color.js';
import { clip, percent, usd, width } from '../cli/format.js';
import { quotaBrief } from '../quota-brief.js';
import { safeLine } from '../terminal-text.js';
import { collisionCount } from './collisions-panel.js';
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
  const agents = (q: Paint) => {
    const collisions = collisionCount(v.collisions, q);
    return `${q.green('●')} ${working} working  ${q.amber('▲')} ${waiting} waiting${probably > 0 ? ` ${q.amber('?')} ${probably} probably` : ''}${collisions === null ? '' : `  ${collisions}`}`;
  };
  // The quota, per harness that has a figure: `claude quota 5h 37% · 7d 12%`.
  const quota = QUOTA_HARNESSES.flatMap((h) => {
    const brief = quotaBrief(v.quota, h);
    return brief === null ? [] : [`${h} ${safeLine(brief)}`];
  });
  const line = (q: Paint, n: number, b: number, withQuota: boolean) => {
    const spend = spans.slice(0, n).join(' · ');
    const budgets = v.budgets.slice(0, b).map((s) => budgetUse(s, q));
    return [`${q.bold('cctop')}  ${spend}`, ...budgets, ...(withQuota ? quota : []), agents(q)].join('   ');
  };
  // On a narrow terminal the agent counts matter most, then the budgets, then the quota, then the
  // longer spend windows.
  for (const withQuota of quota.length > 0 ? [true, false] : [false])
    for (const [n, b] of fits(spans.length, v.budgets.length))
      if ((!withQuota || b === v.budgets.length) && width(line(PLAIN, n, b, withQuota)) <= columns)
        return line(p, n, b, withQuota);
  return clip(`${p.bold('cctop')}  ${agents(p)}`, columns);
}

/** The harnesses whose quota cctop reads. */
const QUOTA_HARNESSES = ['claude', 'codex'] as const;

/** What the header may hold, most first: every spend window, then fewer; then fewer budgets. */
function* fits(spans: number, budgets: number): Generator<[number, number]> {
  for (let n = spans; n > 1; n--) yield [n, budgets];
  for (let b = budgets; b >= 0; b--) yield [1, b];
}

/** A budget name in the header is cut to this many cells, so one long name does not push the rest out. */
const BUDGET_NAME_CELLS = 16;

/**
 * One budget's use: `day $12.00/$20.00 60%`, amber from 80%, red from 100%; its spend at retail
 * whatever `--plan` says (budgets count what the agents burn). Unknown spend is dim, never `$0`.
 */
export function budgetUse(s: BudgetState, p: Paint): string {
  const text = `${clip(safeLine(s.budget.name), BUDGET_NAME_CELLS)} ${usd(s.spentUsd)}/${usd(s.budget.usd)} ${percent(s.spentUsd, s.budget.usd)}`;
  if (s.spentUsd === null) return p.dim(text);
  switch (s.level) {
    case 'ok':
      return text;
    case 'near':
      return p.amber(text);
    case 'over':
      return p.red(text);
  }
}
