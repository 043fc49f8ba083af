/**
 * Server-Sent Events: every open page gets the whole session document when its stream opens, then
 * each update as it happens (`publish.ts` builds them, `delta.ts` says what they hold), and a ping
 * when nothing has been sent for a while (so the page can tell a quiet machine from a dead link).
 *
 * Beside the updates, kinds of event that carry no id (so the browser's `Last-Event-ID` keeps
 * naming the newest update): where the budgets stand and how far a first build is, levels, held like
 * an update (the newest replaces one not taken yet, and a stream opens with it); and alerts, edges, which must not be
 * replaced by the next one, so each stream queues a few (`MAX_QUEUED_ALERTS`).
 *
 * Each stream holds at most one frame waiting to be sent: a newer frame replaces one the client has
 * not taken yet. Updates are numbered, so a page that missed one this way sees the gap and fetches
 * the whole document; nothing waits in line for it. The stream is pulled, not pushed: nothing is
 * written to a socket until the previous write has drained, so a client that stops reading (a phone
 * asleep, a stalled proxy) costs one shared frame, not a growing backlog; the server's idle timeout
 * closes it once its socket has been stuck long enough.
 *
 * Frames are encoded once and shared by every stream.
 */
import { MAX_STREAMS, PING_MS, RETRY_MS } from './limits.js';

const encoder = new TextEncoder();

/**
 * Alerts a stream holds for a page that has not taken them. Alerts come a few an hour; a page that
 * stops reading for long enough to miss more than this many (a laptop asleep) wants the newest, and
 * keeping 16 events of under a kilobyte costs nothing per stream.
 */
export const MAX_QUEUED_ALERTS = 16;

/** One event, encoded as it goes on the wire, and its id. */
export interface EncodedEvent {
  id: string;
  bytes: Uint8Array;
}

/** `data` is JSON: one line, since JSON escapes every newline inside its strings. */
export function encodeEvent(event: 'sessions' | 'changes', id: string, data: string): EncodedEvent {
  return { id, bytes: encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`) };
}

/** An event beside the numbered updates (`budgets`, `alert`): no id, so the stream's position holds. */
export function encodeNotice(event: 'budgets' | 'alert' | 'progress', data: string): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${data}\n\n`);
}

/**
 * What a stream opens with: the whole document, or null when the client's `Last-Event-ID` says it
 * already has the newest one (or there is none yet).
 */
export type Opening = (lastEventId: string | null) => EncodedEvent | null;

interface Stream {
  /** The newest frame not yet taken (replaced, never queued behind another). */
  next: Uint8Array | null;
  /** Where the budgets stand, not yet taken (replaced like `next`). */
  budgets: Uint8Array | null;
  /** How far a build is, not yet taken (replaced like `next`). */
  progress: Uint8Array | null;
  /** Alerts not yet taken, oldest first, at most `maxAlerts`. */
  alerts: Uint8Array[];
  ping: boolean;
  /** Resolves the pending pull: set while the consumer is waiting for data. */
  want: (() => void) | null;
  controller: ReadableStreamDefaultController<Uint8Array>;
  /** When something was last handed to the socket. */
  sentAt: number;
}

export interface HubStats {
  streams: number;
  /** Frames held for streams that have not taken them (shared frames count once per stream). */
  waiting: number;
  /** Alerts held for streams that have not taken them. */
  alerts: number;
}

export class EventHub {
  private readonly streams = new Set<Stream>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The newest budgets event, which a stream opens with. */
  private budgets: Uint8Array | null = null;
  /** The newest progress event while a build reads, which a stream opens with; null once it is done. */
  private progress: Uint8Array | null = null;

  constructor(
    private readonly opening: Opening,
    private readonly maxStreams = MAX_STREAMS,
    private readonly pingMs = PING_MS,
    private readonly maxAlerts = MAX_QUEUED_ALERTS,
  ) {
    this.timer = setInterval(() => this.pingQuiet(), Math.max(50, Math.floor(pingMs / 3)));
    this.timer.unref();
  }

  /** Send `e` to every stream, in place of whatever a stream has not taken yet. */
  publish(e: EncodedEvent): void {
    for (const s of this.streams) {
      s.next = e.bytes;
      this.flush(s);
    }
  }

  /** Send where the budgets stand (`encodeNotice('budgets', …)`) to every stream, and open new ones with it. */
  publishBudgets(bytes: Uint8Array): void {
    this.budgets = bytes;
    for (const s of this.streams) {
      s.budgets = bytes;
      this.flush(s);
    }
  }

  /**
   * Send how far a build is (`encodeNotice('progress', …)`) to every stream, a level like the budgets;
   * `held` false for the build's end, which a stream opened later need not hear.
   */
  publishProgress(bytes: Uint8Array, held: boolean): void {
    this.progress = held ? bytes : null;
    for (const s of this.streams) {
      s.progress = bytes;
      this.flush(s);
    }
  }

  /**
   * Send an alert to every stream open now, after the ones it has not taken; a stream already
   * holding `maxAlerts` lets its oldest go. A stream opened later does not get it: an alert is news
   * when it happens.
   */
  publishAlert(bytes: Uint8Array): void {
    for (const s of this.streams) {
      s.alerts.push(bytes);
      if (s.alerts.length > this.maxAlerts) s.alerts.shift();
      this.flush(s);
    }
  }

  /**
   * A new stream, or null when there are already `maxStreams`. It starts with the whole document,
   * unless `lastEventId` says the client already has the newest.
   */
  open(lastEventId: string | null): ReadableStream<Uint8Array> | null {
    if (this.closed || this.streams.size >= this.maxStreams) return null;
    let stream: Stream | null = null;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          stream = {
            next: null,
            budgets: this.budgets,
            progress: this.progress,
            alerts: [],
            ping: false,
            want: null,
            controller,
            sentAt: Date.now(),
          };
          controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
          stream.next = this.opening(lastEventId)?.bytes ?? null;
          this.streams.add(stream);
        },
        pull: () =>
          new Promise<void>((resolve) => {
            const s = stream!;
            s.want = resolve;
            this.flush(s);
          }),
        cancel: () => {
          if (stream) this.streams.delete(stream);
        },
      },
      // Pull one chunk at a time: nothing waits in the stream's own queue.
      { highWaterMark: 0 },
    );
    return body;
  }

  private flush(s: Stream): void {
    if (s.want === null) return;
    let chunk: Uint8Array | null = null;
    // The document first: budgets and alerts read best beside the sessions they are about.
    if (s.next !== null) {
      chunk = s.next;
      s.next = null;
    } else if (s.budgets !== null) {
      chunk = s.budgets;
      s.budgets = null;
    } else if (s.progress !== null) {
      chunk = s.progress;
      s.progress = null;
    } else if (s.alerts.length > 0) chunk = s.alerts.shift()!;
    else if (s.ping) chunk = encoder.encode(`event: ping\ndata: ${Date.now()}\n\n`);
    if (chunk === null) return;
    s.ping = false;
    s.sentAt = Date.now();
    const want = s.want;
    s.want = null;
    try {
      s.controller.enqueue(chunk);
    } catch {
      // The consumer went away between the pull and now; `cancel` removes the stream.
    }
    want();
  }

  private pingQuiet(): void {
    const now = Date.now();
    for (const s of this.streams) {
      if (now - s.sentAt >= this.pingMs) {
        s.ping = true;
        this.flush(s);
      }
    }
  }

  stats(): HubStats {
    let waiting = 0;
    let alerts = 0;
    for (const s of this.streams) {
      if (s.next !== null) waiting++;
      alerts += s.alerts.length;
    }
    return { streams: this.streams.size, waiting, alerts };
  }

  /** End every stream (the server is stopping). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const s of this.streams) {
      try {
        s.controller.close();
      } catch {
        // already closed
      }
      s.want?.();
    }
    this.streams.clear();
  }
}
