/**
 * What `/api/team` answers: the last good picture of the store cut for one period (today, the last 7
 * days, this month), the store's status in words anyone may read, and nothing else. The store's
 * address, its roles and PostgreSQL's own messages stay in the server; the page learns that the store
 * could not be read and since when, and the terminal that runs the dashboard says why.
 *
 * Types here are the page's contract (`web/team/team.js` reads them by these names).
 *
 * Not here: reading the store (`poller.ts`).
 */
import { levelOf, NEAR_SHARE, OVER_SHARE } from '../../config/index.js';
import { SOURCE_LABEL } from '../../model/quota.js';
import { LocalTime } from '../../model/time.js';
import type { StoreTrouble } from '../../store/team-connect.js';
import type { TeamQuota } from '../../store/team-quota.js';
import type { TeamSession } from '../../store/team-sessions.js';
import { SPEND_DIMENSIONS, type SpendCell, type SpendDimension } from '../../store/team-spend.js';
import type { StoreStatus, TeamPicture } from './poller.js';
import { WEEK_VIEW_DAYS } from './poller.js';

export const TEAM_PERIODS_SHOWN = ['today', '7d', 'month'] as const;
export type ShownPeriod = (typeof TEAM_PERIODS_SHOWN)[number];

/**
 * A machine whose last push is older than this shows its sessions as stale, with their age: three
 * missed pushes at the usual minute, plus room for a slow one.
 */
export const FRESH_PUSH_MS = 5 * 60_000;

/** What the page may say about the store: no address, no role, no database message. */
const TROUBLE_TEXT: Record<StoreTrouble, string> = {
  unreachable: 'the team store cannot be reached, or would not let the dashboard in',
  refused: "the team store refused the dashboard's role",
  schema: "the team store's schema is not the one this cctop reads (cctop store migrate)",
  failed: 'reading the team store failed',
};

export type StoreAnswer =
  | { state: 'reading' }
  | { state: 'ok'; readAtMs: number }
  | { state: 'failed'; said: string; sinceMs: number; readAtMs: number | null };

/** A session as its pusher sent it, and whether its machine still pushes. */
export interface SessionAnswer extends TeamSession {
  /** Its machine has not pushed for `FRESH_PUSH_MS`: the state is what it was then. */
  stale: boolean;
}

export interface SpendLine {
  key: string;
  /** Per day of the period, in order; null where nothing had a price or nothing was spent. */
  days: ({ costUsd: number | null; unpricedTokens: number; requests: number } | null)[];
  costUsd: number | null;
  unpricedTokens: number;
  requests: number;
}

export interface BudgetAnswer {
  name: string;
  period: 'day' | 'week' | 'month';
  from: string;
  to: string;
  usd: number;
  developer: string | null;
  project: string | null;
  harness: string | null;
  spentUsd: number | null;
  unpricedTokens: number;
  share: number | null;
  level: 'ok' | 'near' | 'over';
}

/** A developer's quota figure, with its source named as `cctop quota` names it. */
export interface QuotaAnswer extends TeamQuota {
  sourceLabel: string;
}

export interface TeamAnswer {
  store: StoreAnswer;
  nowMs: number;
  pollMs: number;
  period: ShownPeriod;
  /** The period's days, in order (`YYYY-MM-DD`). */
  days: string[];
  sessions: SessionAnswer[];
  moreSessions: number;
  /** Rows the store holds that failed a check (an oversized id, an unknown state): not shown. */
  droppedSessions: number;
  spend: Record<SpendDimension | 'total', SpendLine[]>;
  spendCut: boolean;
  budgets: BudgetAnswer[];
  moreBudgets: boolean;
  /** Each developer's newest quota figure per harness, account and window; stale ones marked. */
  quota: QuotaAnswer[];
  moreQuota: number;
  shares: { near: number; over: number };
}

/** The period's days, oldest first. */
export function shownDays(period: ShownPeriod, p: TeamPicture): string[] {
  const today = LocalTime.dayOf(p.today)!;
  const first =
    period === 'today'
      ? today
      : period === '7d'
        ? today - (WEEK_VIEW_DAYS - 1)
        : LocalTime.dayOf(p.days.month.from)!;
  const out: string[] = [];
  for (let d = first; d <= today; d++) out.push(LocalTime.dayKey(d));
  return out;
}

const addCost = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : a + b;

function spendLines(cells: SpendCell[], days: string[]): TeamAnswer['spend'] {
  const at = new Map(days.map((d, i) => [d, i]));
  const lines = new Map<string, SpendLine>();
  for (const c of cells) {
    const i = at.get(c.day);
    if (i === undefined) continue;
    const id = `${c.by}\0${c.key}`;
    let line = lines.get(id);
    if (line === undefined) {
      line = { key: c.key, days: days.map(() => null), costUsd: null, unpricedTokens: 0, requests: 0 };
      lines.set(id, line);
    }
    line.days[i] = { costUsd: c.costUsd, unpricedTokens: c.unpricedTokens, requests: c.requests };
    line.costUsd = addCost(line.costUsd, c.costUsd);
    line.unpricedTokens += c.unpricedTokens;
    line.requests += c.requests;
  }
  const out = Object.fromEntries([...SPEND_DIMENSIONS, 'total'].map((b) => [b, [] as SpendLine[]]));
  for (const [id, line] of lines) out[id.slice(0, id.indexOf('\0'))]!.push(line);
  for (const list of Object.values(out)) list.sort((a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1));
  return out as TeamAnswer['spend'];
}

function storeAnswer(status: StoreStatus, p: TeamPicture | null): StoreAnswer {
  switch (status.kind) {
    case 'reading':
      return { state: 'reading' };
    case 'ok':
      return { state: 'ok', readAtMs: p!.readAtMs };
    case 'failed':
      return {
        state: 'failed',
        said: TROUBLE_TEXT[status.trouble],
        sinceMs: status.sinceMs,
        readAtMs: p?.readAtMs ?? null,
      };
  }
}

/** The answer for `period` from the newest picture (none yet: empty lists, the store's status). */
export function teamAnswer(
  p: TeamPicture | null,
  status: StoreStatus,
  period: ShownPeriod,
  nowMs: number,
  pollMs: number,
): TeamAnswer {
  const days = p === null ? [] : shownDays(period, p);
  return {
    store: storeAnswer(status, p),
    nowMs,
    pollMs,
    period,
    days,
    sessions: (p?.sessions.sessions ?? []).map((s) => ({
      ...s,
      stale: s.pushedAtMs === null || nowMs - s.pushedAtMs > FRESH_PUSH_MS,
    })),
    moreSessions: p?.sessions.more ?? 0,
    droppedSessions: p?.sessions.dropped ?? 0,
    spend: spendLines(p?.spend.cells ?? [], days),
    spendCut: p?.spend.cut ?? false,
    budgets: (p?.budgets.budgets ?? []).map((b) => {
      const share = b.spentUsd === null ? null : b.spentUsd / b.budget.usd;
      return {
        name: b.budget.name,
        period: b.budget.period,
        from: b.from,
        to: b.to,
        usd: b.budget.usd,
        developer: b.budget.developer,
        project: b.budget.project,
        harness: b.budget.harness,
        spentUsd: b.spentUsd,
        unpricedTokens: b.unpricedTokens,
        share,
        level: levelOf(share),
      };
    }),
    moreBudgets: p?.budgets.more ?? false,
    quota: (p?.quota.quota ?? []).map((q) => ({ ...q, sourceLabel: SOURCE_LABEL[q.source] })),
    moreQuota: p?.quota.more ?? 0,
    shares: { near: NEAR_SHARE, over: OVER_SHARE },
  };
}
