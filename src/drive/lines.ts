/**
 * Splits a byte stream into lines without ever holding more than one line's bound.
 *
 * A line longer than {@link MAX_LINE} keeps its first `MAX_LINE` bytes and drops the rest as it
 * arrives; the kept head is still delivered (it will not parse, so it is counted and sampled as
 * evidence). An agent writing an endless line therefore costs 512 KiB, not all of memory.
 */
import { MAX_LINE } from './bounds.js';

const NEWLINE = 0x0a;

export class LineReader {
  /** Pieces of the unfinished line, at most `MAX_LINE` bytes in all. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The current line passed its bound: its remaining bytes are being dropped. */
  private overflowing = false;
  /** How many lines were cut at the bound. */
  cut = 0;

  constructor(private readonly limit = MAX_LINE) {}

  /** The complete lines in `chunk` (with any carried-over start), without their newlines. */
  feed(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.keep(chunk.subarray(start));
        return lines;
      }
      this.keep(chunk.subarray(start, nl));
      lines.push(this.take());
      start = nl + 1;
    }
  }

  /** What is left when the stream ends: a last line without a newline, if any. */
  end(): string[] {
    if (this.partialBytes === 0 && !this.overflowing) return [];
    return [this.take()];
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    const room = this.limit - this.partialBytes;
    if (room <= 0) {
      this.overflowing = true;
      return;
    }
    if (piece.length > room) this.overflowing = true;
    // Copy what is kept: a view would pin the whole chunk behind it.
    const kept = Buffer.from(piece.subarray(0, Math.min(room, piece.length)));
    this.partial.push(kept);
    this.partialBytes += kept.length;
  }

  private take(): string {
    const line =
      this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial, this.partialBytes);
    if (this.overflowing) this.cut++;
    this.partial = [];
    this.partialBytes = 0;
    this.overflowing = false;
    return line === undefined ? '' : line.toString('utf8');
  }
}
