/**
 * Sending notices to one webhook: a POST each, one at a time and in order, off the caller's path.
 * `send` only queues and returns; a slow, failing or silent server costs the table nothing.
 *
 * A server that fails (no answer within `WEBHOOK_TIMEOUT_MS`, a refused connection, HTTP 408, 429 or
 * 5xx) is tried again after a delay that doubles from `WEBHOOK_BASE_DELAY_MS` up to
 * `WEBHOOK_MAX_DELAY_MS` (longer when a 429 asks, within that cap), `WEBHOOK_ATTEMPTS` times in all.
 * An answer that will not change by asking again (another 4xx, a redirect) ends the notice's tries at
 * once. While one notice waits for its next try, the next ones wait behind it, up to
 * `MAX_WEBHOOK_QUEUE`: past that the oldest waiting is dropped and counted, since a notice hours late
 * is worth less than the one that just happened.
 *
 * Redirects are not followed: a notice goes only to the address the user wrote.
 *
 * Not here: the request's shape (`formats.ts`), or saying how it went (`status.ts`).
 */
import type { NotifyFormat } from '../config/index.js';
import { shownUrl } from '../config/index.js';
import { webhookRequest } from './formats.js';
import { type Notice, type NoticeKind, oneLine } from './notice.js';

/**
 * How long one attempt may take, connection to answer. A webhook service answers in well under a
 * second; ten seconds covers a slow network without holding the queue for long.
 */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * Tries per notice. With the delays below they span 30 s (80 s when each waits for its timeout): a
 * server restarting gets the notice; one down for long is not asked forever.
 */
export const WEBHOOK_ATTEMPTS = 5;
/** The delay before the second try; each next delay doubles (2, 4, 8, 16 s). */
export const WEBHOOK_BASE_DELAY_MS = 2_000;
/** The longest delay between two tries, whatever a 429's `Retry-After` asks. */
export const WEBHOOK_MAX_DELAY_MS = 60_000;
/**
 * Notices waiting behind a failing server. A busy machine crosses a few times a minute; 64 is many
 * minutes of them, and a notice older than that is no longer a call to act.
 */
export const MAX_WEBHOOK_QUEUE = 64;
/** An error as the status keeps it: a reason, not a server's whole page. */
export const MAX_WEBHOOK_ERROR_CHARS = 200;

export interface Delivery {
  at: string;
  kind: NoticeKind;
}

export interface Failure extends Delivery {
  /** The HTTP status, or null when there was no answer (refused, timed out, unreachable). */
  status: number | null;
  error: string;
  /** Tries made for this notice so far. */
  attempts: number;
  /** Whether the notice was given up on (else it is tried again). */
  final: boolean;
}

export interface WebhookStatus {
  /** The address as it may be shown: scheme and host (the path is the secret). */
  target: string;
  format: NotifyFormat;
  sent: number;
  /** Notices given up on. */
  failed: number;
  /** Notices dropped from a full queue, or still queued when the sender stopped. */
  dropped: number;
  /** Notices not yet sent, the one being tried included. */
  queued: number;
  lastOk: Delivery | null;
  lastFailure: Failure | null;
}

export interface WebhookOptions {
  url: string;
  format: NotifyFormat;
  timeoutMs?: number;
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxQueue?: number;
  /** Something changed in `status` (to write it down for `cctop doctor`). */
  onChange?: (status: WebhookStatus) => void;
  /** A notice was given up on. */
  onGiveUp?: (notice: Notice, failure: Failure) => void;
  /** For tests: the clock of the status's times. */
  now?: () => number;
}

/** The status of a webhook nothing was sent to yet. */
export function newStatus(url: string, format: NotifyFormat): WebhookStatus {
  return {
    target: shownUrl(url),
    format,
    sent: 0,
    failed: 0,
    dropped: 0,
    queued: 0,
    lastOk: null,
    lastFailure: null,
  };
}

type Attempt =
  | { kind: 'ok' }
  | { kind: 'retry'; status: number | null; error: string; afterMs: number | null }
  | { kind: 'fail'; status: number | null; error: string }
  | { kind: 'stopped' };

/** A 429's `Retry-After` in milliseconds, when it gives seconds (the date form is not worth reading). */
function retryAfterMs(res: Response): number | null {
  const v = res.headers.get('retry-after');
  if (v === null || !/^\d{1,6}$/.test(v.trim())) return null;
  return Number(v.trim()) * 1000;
}

/** Why a request failed without an answer, in the system's word when it has one (`ECONNREFUSED`). */
function reason(err: unknown): string {
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const cause = e?.cause;
  const text =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : typeof e?.message === 'string'
          ? e.message
          : String(err);
  return oneLine(text, MAX_WEBHOOK_ERROR_CHARS);
}

export class WebhookSender {
  readonly status: WebhookStatus;
  private readonly queue: Notice[] = [];
  private running: Promise<void> | null = null;
  /** The notice being tried (or waiting for its next try). */
  private current: Notice | null = null;
  private readonly stopper = new AbortController();

  constructor(private readonly o: WebhookOptions) {
    this.status = newStatus(o.url, o.format);
  }

  /** Which address and shape this sender is for (a changed config makes a new sender). */
  get url(): string {
    return this.o.url;
  }

  get format(): NotifyFormat {
    return this.o.format;
  }

  /** Queue `n`; returns at once. */
  send(n: Notice): void {
    if (this.stopper.signal.aborted) return;
    if (this.queue.length >= (this.o.maxQueue ?? MAX_WEBHOOK_QUEUE)) {
      this.queue.shift();
      this.status.dropped++;
    }
    this.queue.push(n);
    this.changed();
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once nothing is queued or being sent (for tests and a clean stop). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** Stop sending: the attempt under way is aborted and what is queued is dropped (and counted). */
  stop(): void {
    if (this.stopper.signal.aborted) return;
    this.stopper.abort();
    this.status.dropped += this.queue.length + (this.current === null ? 0 : 1);
    this.queue.length = 0;
    this.current = null;
    this.changed();
  }

  private changed(): void {
    this.status.queued = this.queue.length + (this.current === null ? 0 : 1);
    this.o.onChange?.(this.status);
  }

  private now(): string {
    return new Date(this.o.now?.() ?? Date.now()).toISOString();
  }

  private async drain(): Promise<void> {
    for (let n = this.queue.shift(); n !== undefined; n = this.queue.shift()) {
      this.current = n;
      await this.deliver(n);
      this.current = null;
      this.changed();
      if (this.stopper.signal.aborted) return;
    }
  }

  private async deliver(n: Notice): Promise<void> {
    const attempts = this.o.attempts ?? WEBHOOK_ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      const r = await this.attempt(n);
      if (r.kind === 'stopped') return;
      if (r.kind === 'ok') {
        this.status.sent++;
        this.status.lastOk = { at: this.now(), kind: n.kind };
        return;
      }
      const final = r.kind === 'fail' || attempt >= attempts;
      const failure: Failure = {
        at: this.now(),
        kind: n.kind,
        status: r.status,
        error: r.error,
        attempts: attempt,
        final,
      };
      this.status.lastFailure = failure;
      if (final) {
        this.status.failed++;
        this.o.onGiveUp?.(n, failure);
        return;
      }
      this.changed();
      await this.pause(this.delayMs(attempt, r.kind === 'retry' ? r.afterMs : null));
      if (this.stopper.signal.aborted) return;
    }
  }

  /** The wait after try `attempt` failed: doubling from the base, a 429's ask honoured, within the cap. */
  private delayMs(attempt: number, asked: number | null): number {
    const base = this.o.baseDelayMs ?? WEBHOOK_BASE_DELAY_MS;
    const cap = this.o.maxDelayMs ?? WEBHOOK_MAX_DELAY_MS;
    const doubling = base * 2 ** (attempt - 1);
    return Math.min(cap, Math.max(doubling, asked ?? 0));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.stopper.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      // A process that is done (a watcher stopping) does not stay up for a retry.
      timer.unref();
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private async attempt(n: Notice): Promise<Attempt> {
    const timeoutMs = this.o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const { headers, body } = webhookRequest(n, this.o.format);
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, timeoutMs);
    timer.unref();
    const stop = () => ctrl.abort();
    this.stopper.signal.addEventListener('abort', stop, { once: true });
    try {
      const res = await fetch(this.o.url, {
        method: 'POST',
        headers,
        body,
        signal: ctrl.signal,
        redirect: 'manual',
      });
      // The answer's body says nothing cctop uses; not reading it frees the connection.
      await res.body?.cancel().catch(() => {});
      const status = res.status;
      if (status >= 200 && status < 300) return { kind: 'ok' };
      if (status >= 300 && status < 400)
        return {
          kind: 'fail',
          status,
          error: `HTTP ${status}: redirected; set notify.url to where it points`,
        };
      if (status === 408 || status === 429 || status >= 500)
        return { kind: 'retry', status, error: `HTTP ${status}`, afterMs: retryAfterMs(res) };
      return { kind: 'fail', status, error: `HTTP ${status}` };
    } catch (err) {
      if (timedOut)
        return {
          kind: 'retry',
          status: null,
          error: `no answer within ${timeoutMs / 1000} s`,
          afterMs: null,
        };
      if (this.stopper.signal.aborted) return { kind: 'stopped' };
      return { kind: 'retry', status: null, error: reason(err), afterMs: null };
    } finally {
      clearTimeout(timer);
      this.stopper.signal.removeEventListener('abort', stop);
    }
  }
}
