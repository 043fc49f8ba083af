/**
 * A run's back-pressure in one place: the bounded queue of events on their way to the caller
 * (`queue.ts`), the paced stdout (`pump.ts`) that hands lines on only while the queue has room
 * (counting the lines a conversation took but has not yet turned into events), and the readers of
 * a conversation's own event stream (OpenCode's `/event`) that wait for room before they read more
 * (`RunnerHost.room`). A consumer that reads slowly slows the agent; memory never grows past the
 * queue's depth.
 *
 * What it does not do: parse lines, spawn or stop the agent, or decide when the run is over (the
 * runner's, `run.ts`); the depths themselves are `bounds.ts`'s.
 */
import { EVENT_QUEUE_DEPTH, EVENT_QUEUE_RESUME } from './bounds.js';
import type { Event } from './events.js';
import { LinePump } from './pump.js';
import { EventQueue } from './queue.js';
import type { RunStats } from './run-types.js';

export class Backpressure {
  readonly queue: EventQueue<Event>;
  readonly stdout: LinePump;
  /** Readers of a conversation's own event stream waiting for room in the queue. */
  private waiting: (() => void)[] = [];

  /**
   * `inFlight`: lines handed to the conversation that have not made their events yet;
   * `onRoom`: a full queue drained far enough to read the agent again.
   */
  constructor(inFlight: () => number, onRoom: () => void) {
    this.queue = new EventQueue<Event>(EVENT_QUEUE_DEPTH, EVENT_QUEUE_RESUME, onRoom);
    this.stdout = new LinePump(() => this.queue.length + inFlight() >= EVENT_QUEUE_DEPTH);
  }

  /**
   * Wake the readers waiting for room when there is some, then hand ready stdout lines to `take`
   * while `going()` holds and there is room; true once nothing is left waiting (`LinePump.drain`).
   */
  drain(going: () => boolean, take: (line: string) => void): boolean {
    if (!this.queue.full) this.wake();
    return this.stdout.drain(going, take);
  }

  /** Resolves when the queue has room again, or at once when it has, or the run is `over`. */
  room(over: boolean): Promise<void> {
    if (!this.queue.full || over) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Every waiting reader goes on: there is room, or the run is over. */
  wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /** The counts `Run.stats` reports from here. */
  stats(): Pick<RunStats, 'linesCut' | 'events' | 'queued' | 'queueHighWater'> {
    return {
      linesCut: this.stdout.cut,
      events: this.queue.delivered,
      queued: this.queue.length,
      queueHighWater: this.queue.highWater,
    };
  }
}
