/**
 * Back-pressure from the consumer to the agent: lines off the agent's stdout are handed on only
 * while the event queue has room. When it has none, stdout is paused, the pipe fills, and the agent
 * blocks on its next write; what waits here is at most the lines of one chunk.
 *
 * It does not parse, and it does not decide when the run is over: the runner hands each line to the
 * parser and finishes once the pipes have closed and nothing is left waiting.
 */
import type { Readable } from 'node:stream';
import { LineReader } from './lines.js';

export class LinePump {
  private readonly reader = new LineReader();
  /** Lines read but not yet handed on because the queue was full: at most one chunk's worth. */
  private ready: string[] = [];
  private readyAt = 0;
  private paused = false;
  private stdout: Readable | null = null;

  /** `full` says whether the consumer's queue has no room left. */
  constructor(private readonly full: () => boolean) {}

  /** The stream to pause and resume, once the agent is spawned. */
  attach(stdout: Readable | null): void {
    this.stdout = stdout;
  }

  /** Lines longer than `MAX_LINE`, of which only the head was read. */
  get cut(): number {
    return this.reader.cut;
  }

  feed(chunk: Buffer): void {
    for (const line of this.reader.feed(chunk)) this.ready.push(line);
  }

  /** Stdout ended: the unfinished last line, if any, is ready too. */
  end(): void {
    this.ready.push(...this.reader.end());
  }

  /**
   * Hand ready lines to `take` while `going()` holds and the queue has room. False when it stopped
   * for want of room (stdout is paused until the next call); true when nothing is left waiting.
   */
  drain(going: () => boolean, take: (line: string) => void): boolean {
    while (this.readyAt < this.ready.length && going()) {
      if (this.full()) {
        if (!this.paused) {
          this.paused = true;
          this.stdout?.pause();
        }
        return false;
      }
      take(this.ready[this.readyAt++]!);
    }
    this.drop();
    return true;
  }

  /** Forget the lines not handed on and let stdout flow, or a paused pipe would never close. */
  drop(): void {
    this.ready = [];
    this.readyAt = 0;
    if (this.paused) {
      this.paused = false;
      this.stdout?.resume();
    }
  }
}
