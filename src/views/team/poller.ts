/**
 * The team dashboard's reading of the store: one set of queries (sessions, spend over the window the
 * page's periods need, budgets against their spend, each developer's quota) at a time, the next set started a fixed interval
 * after the last one ended. A slow or stuck store therefore never piles up queries; it only makes the
 * picture older, and the page shows how old.
 *
 * The dashboard's own role reads (`cctop_reader`); the connection is kept between polls and opened
 * again after a failure. A failure keeps the last good picture and records a trouble word the page may
 * show (never the store's address or roles); the full sentence goes to the terminal, once per change.
 *
 * Not here: cutting the picture per period for the page (`answer.ts`), HTTP (`app.ts`).
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { StartOfWeek } from '../../config/index.js';
import { periodEnd, periodStart } from '../../model/calendar.js';
import { LocalTime } from '../../model/time.js';
import type { Env } from '../../providers/types.js';
import { storeError } from '../../store/connect.js';
import { type BudgetSpend, type PeriodDays, readBudgetSpend } from '../../store/team-budgets.js';
import { openStore, type StoreTrouble, troubleOf } from '../../store/team-connect.js';
import { readTeamQuota, type TeamQuotas } from '../../store/team-quota.js';
import { readTeamSessions, type TeamSessions } from '../../store/team-sessions.js';
import { readTeamSpend, type TeamSpend } from '../../store/team-spend.js';

/**
 * Time between the end of one read of the store and the start of the next. The pushers send every
 * minute (`cctop push --every 60s`), so reading more often shows nothing new; 15 s keeps a state change
 * on the page within a quarter minute of its push, at three cheap queries per poll.
 */
export const TEAM_POLL_MS = 15_000;

/** Days the page's longest period can reach back: the 7-day view's first day, or the month's. */
export const WEEK_VIEW_DAYS = 7;

/** One good read of the store. */
export interface TeamPicture {
  readAtMs: number;
  /** Today, in the dashboard's zone, and the window of days `spend` covers. */
  today: string;
  days: PeriodDays;
  sessions: TeamSessions;
  spend: TeamSpend;
  budgets: { budgets: BudgetSpend[]; more: boolean };
  quota: TeamQuotas;
}

export type StoreStatus =
  | { kind: 'reading' }
  | { kind: 'ok' }
  | { kind: 'failed'; trouble: StoreTrouble; sinceMs: number };

export interface TeamPollerOptions {
  url: string;
  env: Env;
  timeZone: string | undefined;
  startOfWeek: StartOfWeek;
  everyMs?: number;
  /** The full sentence of a failure, for the terminal (once per distinct one). */
  onTrouble?: (error: string) => void;
}

const key = (day: number) => LocalTime.dayKey(day);

/** The current day, week and month in `time`'s zone, as the budgets and the page cut them. */
export function periodDays(nowMs: number, time: LocalTime, startOfWeek: StartOfWeek): PeriodDays {
  const today = time.dayNumber(nowMs);
  const range = (unit: 'day' | 'week' | 'month') => {
    const from = periodStart(today, unit, startOfWeek);
    return { from: key(from), to: key(periodEnd(from, unit)) };
  };
  return { day: range('day'), week: range('week'), month: range('month') };
}

export class TeamPoller extends EventEmitter<{ read: [TeamPicture]; failed: [StoreTrouble] }> {
  picture: TeamPicture | null = null;
  status: StoreStatus = { kind: 'reading' };
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastError = '';
  private readonly time: LocalTime;

  constructor(private readonly o: TeamPollerOptions) {
    super();
    this.time = new LocalTime(o.timeZone);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.pollThenWait();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.client?.end().catch(() => {});
    this.client = null;
  }

  private async pollThenWait(): Promise<void> {
    await this.poll();
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pollThenWait();
    }, this.o.everyMs ?? TEAM_POLL_MS);
  }

  private async poll(): Promise<void> {
    try {
      const client = await this.connected();
      if (client === null) return;
      this.picture = await this.read(client);
      this.status = { kind: 'ok' };
      this.lastError = '';
      this.emit('read', this.picture);
    } catch (e) {
      await this.client?.end().catch(() => {});
      this.client = null;
      this.fail(troubleOf(e), storeError(e, this.o.url));
    }
  }

  private async connected(): Promise<pg.Client | null> {
    if (this.client !== null) return this.client;
    const opened = await openStore(this.o.url, this.o.env);
    if (opened.kind === 'failed') {
      this.fail(opened.trouble, opened.error);
      return null;
    }
    this.client = opened.client;
    return this.client;
  }

  private async read(client: pg.Client): Promise<TeamPicture> {
    const now = Date.now();
    const days = periodDays(now, this.time, this.o.startOfWeek);
    const today = days.day.from;
    const weekBack = this.time.dayNumber(now) - (WEEK_VIEW_DAYS - 1);
    const from = key(Math.min(weekBack, LocalTime.dayOf(days.month.from) ?? weekBack));
    // One query at a time on one connection: the set is three statements, never three at once.
    const sessions = await readTeamSessions(client);
    const spend = await readTeamSpend(client, from, days.month.to);
    const budgets = await readBudgetSpend(client, days);
    const quota = await readTeamQuota(client);
    return { readAtMs: now, today, days, sessions, spend, budgets, quota };
  }

  private fail(trouble: StoreTrouble, error: string): void {
    if (this.status.kind !== 'failed') this.status = { kind: 'failed', trouble, sinceMs: Date.now() };
    else this.status = { ...this.status, trouble };
    if (error !== this.lastError) this.o.onTrouble?.(error);
    this.lastError = error;
    this.emit('failed', trouble);
  }
}
