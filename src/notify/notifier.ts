/**
 * The machine notifier: what turns crossings into desktop and webhook notifications, one sender per
 * machine. Every long-running cctop (the live table, `cctop serve`, `cctop watch`) runs one:
 *
 * 1. it sees crossings: each update of the live picture (`crossings.ts`), each alert its view's
 *    `AlertFeed` finds, each collision the collision watcher reports;
 * 2. it makes each a notice and puts it in the spool (`spool.ts`), where the same crossing seen by
 *    several processes is kept once;
 * 3. if it holds the lock (`lock.ts`), it claims what the spool holds and sends it: its own notices
 *    at once, other processes' at its next check (every `NOTIFY_TICK_MS`).
 *
 * Processes that do not hold the lock send nothing; they check on the same clock and take over when
 * the holder goes. The channels are read from the config's `[notify]` when a notice is sent (with
 * `cctop watch`'s flags over them), so a webhook added to the file applies without a restart.
 *
 * Sending never blocks the caller: the webhook queues (`webhook.ts`), the desktop tool is started
 * and not waited for (`desktop.ts`). Nothing here throws into a view.
 *
 * Not here: the table's bell and the dashboard's browser notifications, which each view rings for
 * itself (they are per terminal and per page, not per machine).
 */

import { loadConfig, type Notify, type NotifyFormat } from '../config/index.js';
import type { Alert } from '../live/alerts.js';
import type { LiveSessions } from '../live/engine.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import { StateCrossings } from './crossings.js';
import { DesktopSender, type DesktopTool, findDesktop } from './desktop.js';
import { withActions } from './held-actions.js';
import { type LockState, readLock, SenderLock, type SenderRole } from './lock.js';
import {
  alertNotice,
  type CollisionInput,
  collisionNotice,
  crossingNotice,
  type Notice,
  type NoticeContext,
} from './notice.js';
import { Spool } from './spool.js';
import { type NotifyStatus, STATUS_VERSION, writeStatus } from './status.js';
import { newStatus, type WebhookOptions, WebhookSender } from './webhook.js';

/**
 * How often the lock is checked (and the holder's heartbeat written), and how often the holder
 * collects what other processes spooled. A notice seen by a process that does not send reaches the
 * user within this; two seconds is the live table's own refresh.
 */
export const NOTIFY_TICK_MS = 2_000;

/** Distinct problems remembered so each is said once; past this the memory starts again. */
const MAX_TOLD = 64;

export type Channel = 'desktop' | 'webhook';

/** What `cctop watch`'s flags set over the config's `[notify]`. */
export interface NotifyOverrides {
  url?: string | null;
  format?: NotifyFormat;
  desktop?: boolean;
}

export interface NotifierOptions {
  env: Env;
  role: SenderRole;
  overrides?: NotifyOverrides;
  /** The running dashboard's own address: the links' base when the config names none. */
  dashboard?: string | null;
  /** A notice this process sent, and the channels that took it. */
  onSent?: (n: Notice, channels: readonly Channel[]) => void;
  /** Something about notifying the user should hear (said once per distinct text). */
  onProblem?: (text: string) => void;
  /** This process started or stopped being the sender; `lock` says who holds it now. */
  onHolding?: (holding: boolean, lock: LockState) => void;
  /** Keep the process up while started (`cctop watch` has nothing else that does). */
  keepAlive?: boolean;
  /** For tests: the clock, the tick, the desktop tool (else found on PATH), the webhook's bounds. */
  now?: () => number;
  tickMs?: number;
  desktopTool?: DesktopTool | null;
  webhook?: Partial<Pick<WebhookOptions, 'timeoutMs' | 'attempts' | 'baseDelayMs' | 'maxDelayMs'>>;
}

const sessionKey = (s: SessionDoc): string => `${s.provider}\u0000${s.id}`;

export class MachineNotifier {
  private readonly crossings = new StateCrossings(sessionKey);
  private lock: SenderLock | null = null;
  private spool: Spool | null = null;
  private dir: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private live: LiveSessions | null = null;
  private readonly desktop: DesktopSender;
  private webhook: WebhookSender | null = null;
  private readonly told = new Set<string>();
  private dirty = false;
  private spoolDropped = 0;
  private expired = 0;

  constructor(private readonly o: NotifierOptions) {
    const tool = o.desktopTool === undefined ? findDesktop(o.env) : o.desktopTool;
    this.desktop = new DesktopSender({ tool, env: o.env, onChange: () => this.changed() });
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Whether this process sends now. */
  get holding(): boolean {
    return this.lock?.held ?? false;
  }

  /** The desktop tool found (null: none on PATH). */
  get desktopTool(): DesktopTool | null {
    return this.desktop.status.tool;
  }

  /**
   * Start checking the lock. Returns false when the runtime directory cannot be used: without it
   * there is no telling which process sends, so this one sends nothing (and says why, once).
   */
  start(): boolean {
    if (this.lock !== null) return true;
    const dir = runtimeDir(this.o.env);
    if (dir.kind === 'refused') {
      this.problem(
        `desktop and webhook notifications are off: the runtime directory ${dir.path} cannot be used (${dir.why})`,
      );
      return false;
    }
    this.dir = dir.path;
    this.lock = new SenderLock(dir.path, this.o.role, this.o.now);
    this.spool = new Spool(dir.path, this.o.now);
    this.tick();
    this.timer = setInterval(() => this.tick(), this.o.tickMs ?? NOTIFY_TICK_MS);
    if (!this.o.keepAlive) this.timer.unref();
    return true;
  }

  /** Stop: give the lock back (another process takes over at its next check) and stop sending. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.live?.off('update', this.onUpdate);
    this.live = null;
    if (this.lock?.held) this.writeStatus();
    this.lock?.release();
    this.lock = null;
    this.webhook?.stop();
  }

  /** Follow a live picture's updates for state crossings. */
  watch(live: LiveSessions): this {
    this.live = live;
    live.on('update', this.onUpdate);
    return this;
  }

  private readonly onUpdate = (doc: SessionDocument) => this.update(doc);

  /** A new live picture: the sessions that crossed into waiting or error since the last one. */
  update(doc: SessionDocument): void {
    const crossed = this.crossings.update(doc.sessions);
    if (crossed.length === 0) return;
    const ctx = this.context();
    const format = loadConfig(this.o.env).config.notify.format;
    this.offer(
      crossed.map((c) => withActions(crossingNotice(c, ctx), this.o.env, ctx.dashboard, format, ctx.nowMs)),
    );
  }

  /** Alerts a view's `AlertFeed` found. */
  alerts(list: readonly Alert[]): void {
    if (list.length === 0) return;
    const ctx = this.context();
    this.offer(list.map((a) => alertNotice(a, ctx)));
  }

  /** Collisions the collision watcher found (each once, when it begins). */
  collisions(list: readonly CollisionInput[]): void {
    if (list.length === 0) return;
    const ctx = this.context();
    this.offer(list.map((c) => collisionNotice(c, ctx)).filter((n): n is Notice => n !== null));
  }

  /** One check: hold or follow, collect what others spooled, sweep, write the status. Public for tests. */
  tick(): void {
    const lock = this.lock;
    if (lock === null || this.dir === null) return;
    const was = lock.held;
    const held = lock.check();
    if (held !== was) {
      this.dirty = true;
      this.o.onHolding?.(held, readLock(this.dir, this.now()));
    }
    if (!held) return;
    this.flush();
    const expired = this.spool?.sweep() ?? 0;
    if (expired > 0) {
      this.expired += expired;
      this.dirty = true;
    }
    if (this.dirty) this.writeStatus();
  }

  /** Resolves once every webhook queued and desktop notifier started has finished (for tests). */
  async idle(): Promise<void> {
    await Promise.all([this.webhook?.idle(), this.desktop.idle()]);
  }

  private settings(): Notify {
    const notify = loadConfig(this.o.env).config.notify;
    const over = this.o.overrides ?? {};
    return {
      url: over.url !== undefined ? over.url : notify.url,
      format: over.format ?? notify.format,
      desktop: over.desktop ?? notify.desktop,
      dashboard: notify.dashboard ?? this.o.dashboard ?? null,
    };
  }

  private context(): NoticeContext {
    return { dashboard: this.settings().dashboard, nowMs: this.now() };
  }

  private offer(notices: readonly Notice[]): void {
    const spool = this.spool;
    if (spool === null) return;
    for (const n of notices) {
      const put = spool.put(n);
      if (put === 'full' || put === 'failed') {
        this.spoolDropped++;
        this.dirty = true;
      }
    }
    if (this.lock?.held) this.flush();
  }

  /** Send what the spool holds that nobody claimed yet. */
  private flush(): void {
    const claimed = this.spool?.claim() ?? [];
    if (claimed.length === 0) return;
    const settings = this.settings();
    for (const n of claimed) this.send(n, settings);
  }

  private send(n: Notice, settings: Notify): void {
    const channels: Channel[] = [];
    if (settings.desktop && this.desktop.status.tool !== null) {
      this.desktop.send(n);
      channels.push('desktop');
    }
    const webhook = this.webhookFor(settings);
    if (webhook !== null) {
      webhook.send(n);
      channels.push('webhook');
    }
    this.o.onSent?.(n, channels);
  }

  /** The sender for the configured webhook, made anew when its address or format changed. */
  private webhookFor(settings: Notify): WebhookSender | null {
    if (settings.url === null) return null;
    if (this.webhook?.url === settings.url && this.webhook.format === settings.format) return this.webhook;
    this.webhook?.stop();
    this.webhook = new WebhookSender({
      url: settings.url,
      format: settings.format,
      ...this.o.webhook,
      ...(this.o.now ? { now: this.o.now } : {}),
      onChange: () => this.changed(),
      onGiveUp: (n, f) => {
        const target = this.webhook?.status.target ?? 'the webhook';
        const tries = f.attempts === 1 ? '1 try' : `${f.attempts} tries`;
        this.problem(`webhook ${target}: a ${n.kind} notice was not delivered after ${tries} (${f.error})`);
      },
    });
    return this.webhook;
  }

  private changed(): void {
    this.dirty = true;
  }

  private writeStatus(): void {
    if (this.dir === null) return;
    this.dirty = false;
    const settings = this.settings();
    const d = this.desktop.status;
    // The sender made for this address, or (nothing sent to it yet) where it would send.
    const current =
      this.webhook?.url === settings.url && this.webhook.format === settings.format ? this.webhook : null;
    const w = settings.url === null ? null : (current?.status ?? newStatus(settings.url, settings.format));
    const status: NotifyStatus = {
      v: STATUS_VERSION,
      pid: process.pid,
      role: this.o.role,
      updatedAt: new Date(this.now()).toISOString(),
      desktop:
        settings.desktop && d.tool !== null
          ? { tool: d.tool.kind, sent: d.sent, failed: d.failed, dropped: d.dropped, lastError: d.lastError }
          : null,
      webhook:
        w === null
          ? null
          : {
              target: w.target,
              format: w.format,
              sent: w.sent,
              failed: w.failed,
              dropped: w.dropped,
              queued: w.queued,
              lastOk: w.lastOk,
              lastFailure: w.lastFailure,
            },
      spoolDropped: this.spoolDropped,
      expired: this.expired,
    };
    writeStatus(this.dir, status);
  }

  private problem(text: string): void {
    if (this.told.has(text)) return;
    if (this.told.size >= MAX_TOLD) this.told.clear();
    this.told.add(text);
    this.o.onProblem?.(text);
  }
}
