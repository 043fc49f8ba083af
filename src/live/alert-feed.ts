/**
 * The alerts of a long-running view (the live table, `serve`): an `AlertWatcher` fed the live
 * picture after each refresh, and on a clock, since a stall is the absence of refreshes. It reads the
 * config file on each pass, so a budget added or an alert turned off applies without a restart.
 *
 * Passes are spaced `MIN_PASS_MS` apart: a budget sums every session's usage cells, which is worth
 * doing every few seconds, not on every 2-second refresh of a busy machine. An update that comes
 * sooner is not dropped; it waits for the next pass.
 *
 * Not here: what crosses (`alerts.ts`), or how a view shows it.
 */
import { type BudgetState, loadConfig } from '../config/index.js';
import type { SessionDoc } from '../model/document.js';
import type { Env } from '../providers/types.js';
import { gatherQuota, type QuotaReport, startOfToday } from '../quota/gather.js';
import { type Alert, AlertWatcher } from './alerts.js';
import { DeepReader } from './deep.js';
import type { LiveSessions } from './engine.js';

/** The least time between two passes (see the module comment). */
export const MIN_PASS_MS = 5_000;

/**
 * A pass with no refresh: a stall is found within this of its threshold, and a budget's new period
 * (midnight) starts within it.
 */
export const ALERT_TICK_MS = 30_000;

/**
 * How long the quota read for one pass serves the next ones. Claude Code refreshes its own cache at
 * most once a minute; reading `.claude.json` (a few MiB for a heavy user) and pacing every window
 * from every session's cells on each 5-second pass would cost more than the news is worth.
 */
export const QUOTA_EVERY_MS = 15_000;

export interface AlertFeedOptions {
  live: LiveSessions;
  env: Env;
  /** The view's reader, to share its thread; else the feed starts its own. */
  deep?: DeepReader;
  /** New alerts, as they are found. */
  onAlerts: (alerts: Alert[]) => void;
  /** Where each budget stands, after every pass (empty when none is set). */
  onBudgets?: (states: readonly BudgetState[]) => void;
  /** What is wrong with the config file (its error, else its warnings), said once per distinct problem. */
  onProblem?: (text: string) => void;
  /** For tests: the clock. */
  now?: () => number;
}

export class AlertFeed {
  private readonly watcher: AlertWatcher;
  private readonly deep: DeepReader;
  private readonly ownDeep: boolean;
  private readonly told = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires. */
  private due = Infinity;
  private lastPass = -Infinity;
  private stopped = true;
  private quota: { atMs: number; report: QuotaReport } | null = null;

  constructor(private readonly o: AlertFeedOptions) {
    this.ownDeep = o.deep === undefined;
    this.deep = o.deep ?? new DeepReader();
    this.watcher = new AlertWatcher({
      env: o.env,
      calls: (s: SessionDoc) => this.deep.calls(s.provider, s.file),
      // A driven run that has not written its session yet has no file to read.
      secrets: (s: SessionDoc, from) =>
        s.file === ''
          ? Promise.resolve({ secrets: [], began: { offset: 0, seq: 0 }, resume: { offset: 0, seq: 0 } })
          : this.deep.secrets(s.provider, s.file, from),
      later: (alerts) => {
        if (!this.stopped) o.onAlerts(alerts);
      },
    });
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  start(): void {
    this.stopped = false;
    this.o.live.on('update', this.onUpdate);
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.o.live.off('update', this.onUpdate);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ownDeep) this.deep.close();
  }

  /** Where each budget stood at the last pass. */
  get budgets(): readonly BudgetState[] {
    return this.watcher.budgets;
  }

  private readonly onUpdate = () => {
    this.schedule(Math.max(0, this.lastPass + MIN_PASS_MS - this.now()));
  };

  /** The next pass in `ms`, unless one is due sooner. */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const due = this.now() + ms;
    if (this.timer !== null) {
      if (this.due <= due) return;
      clearTimeout(this.timer);
    }
    this.due = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pass();
      this.schedule(ALERT_TICK_MS);
    }, ms);
    this.timer.unref();
  }

  /** One look at the live picture; public for tests, which drive it without timers. */
  pass(): void {
    const doc = this.o.live.document;
    if (doc === null || this.stopped) return;
    const nowMs = this.now();
    this.lastPass = nowMs;
    const loaded = loadConfig(this.o.env);
    for (const problem of loaded.error === null ? loaded.warnings : [loaded.error]) this.tell(problem);
    const alerts = this.watcher.update({
      doc,
      usage: () => this.o.live.usage(),
      config: loaded.config,
      nowMs,
      time: this.o.live.localTime,
      quota: () => {
        if (this.quota === null || nowMs - this.quota.atMs >= QUOTA_EVERY_MS)
          this.quota = {
            atMs: nowMs,
            report: gatherQuota({
              env: this.o.env,
              sessions: doc.sessions,
              usage: this.o.live.usage(),
              providers: null,
              nowMs,
              startOfTodayMs: startOfToday(this.o.live.localTime, nowMs),
            }),
          };
        return this.quota.report;
      },
    });
    this.o.onBudgets?.(this.watcher.budgets);
    if (alerts.length > 0) this.o.onAlerts(alerts);
  }

  private tell(text: string): void {
    if (this.told.has(text)) return;
    this.told.add(text);
    this.o.onProblem?.(text);
  }
}
