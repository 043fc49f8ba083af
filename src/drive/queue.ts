/**
 * The bounded hand-off between the agent's stdout and the consumer of a run's events.
 *
 * The producer asks {@link EventQueue.full} before reading more; when it is full the runner stops
 * reading the agent's stdout, the pipe fills, and the agent blocks on its next write. Memory then
 * stays at the queue's depth whatever the agent's pace, and the agent runs at the consumer's.
 */

export class EventQueue<T> {
  private items: T[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<T>) => void) | null = null;
  private failWaiting: ((e: unknown) => void) | null = null;
  private ended = false;
  private error: unknown = null;
  private dropped = false;
  /** The most events ever waiting at once: the evidence that the bound held. */
  highWater = 0;
  delivered = 0;

  constructor(
    private readonly depth: number,
    private readonly resumeAt: number,
    /** Called when a full queue drained to `resumeAt`: time to read the agent again. */
    private readonly onRoom: () => void,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  get full(): boolean {
    return this.length >= this.depth;
  }

  /** Add an event. Producers check `full` first; an event pushed past it is still kept, never lost. */
  push(item: T): void {
    if (this.ended || this.dropped) return;
    if (this.waiting !== null) {
      const resolve = this.waiting;
      this.waiting = null;
      this.failWaiting = null;
      this.delivered++;
      resolve({ done: false, value: item });
      return;
    }
    this.items.push(item);
    if (this.length > this.highWater) this.highWater = this.length;
  }

  /** No more events. With an error, the consumer receives it after the events already queued. */
  end(error: unknown = null): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    if (this.waiting !== null && this.length === 0) this.settleWaiting();
  }

  /** The consumer left: queued and future events are discarded. */
  drop(): void {
    this.dropped = true;
    this.items = [];
    this.head = 0;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.length > 0) {
      const item = this.items[this.head] as T;
      this.head++;
      // Compact now and then so a long run does not keep every consumed slot.
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.delivered++;
      if (this.length <= this.resumeAt) this.onRoom();
      return Promise.resolve({ done: false, value: item });
    }
    if (this.ended || this.dropped) {
      if (this.error !== null && !this.dropped) {
        const e = this.error;
        this.error = null;
        return Promise.reject(e);
      }
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
      // An empty queue always has room.
      this.onRoom();
    });
  }

  private settleWaiting(): void {
    const resolve = this.waiting;
    const reject = this.failWaiting;
    this.waiting = null;
    this.failWaiting = null;
    if (this.error !== null && reject !== null) {
      const e = this.error;
      this.error = null;
      reject(e);
    } else resolve?.({ done: true, value: undefined });
  }
}
