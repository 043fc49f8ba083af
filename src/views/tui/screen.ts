/**
 * The terminal as a grid of lines: the alternate screen, raw keys and mouse clicks in, and frames
 * out. A frame is written as the lines that differ from the last one, inside a synchronized update,
 * so a refresh never flickers and costs a few hundred bytes when little moved.
 *
 * Everything it changes in the terminal it restores on `stop()`, which runs on exit, on SIGINT and
 * SIGTERM, and on an uncaught error, so a crash never leaves a terminal in raw mode.
 */

const ESC = '\u001b[';
const SYNC_ON = '\u001b[?2026h';
const SYNC_OFF = '\u001b[?2026l';

export interface Size {
  columns: number;
  rows: number;
}

export class Screen {
  private last: string[] = [];
  private active = false;
  private readonly restore = () => this.stop();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly input: NodeJS.ReadStream,
  ) {}

  size(): Size {
    return { columns: this.out.columns || 80, rows: this.out.rows || 24 };
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    if (this.input.isTTY) this.input.setRawMode(true);
    this.input.resume();
    // Alternate screen, hidden cursor, click reporting in SGR form.
    this.out.write('\u001b[?1049h\u001b[?25l\u001b[?1000h\u001b[?1006h\u001b[2J');
    process.once('exit', this.restore);
    this.last = [];
  }

  stop(): void {
    if (!this.active) return;
    this.active = false;
    process.off('exit', this.restore);
    this.out.write('\u001b[?1000l\u001b[?1006l\u001b[?25h\u001b[?1049l');
    if (this.input.isTTY) this.input.setRawMode(false);
    this.input.pause();
  }

  /** Forget what is on screen (after a resize): the next frame is drawn whole. */
  invalidate(): void {
    this.last = [];
    this.out.write(`${ESC}2J`);
  }

  /** Draw `lines` (already fitted to the width), changing only the rows that differ. */
  draw(lines: readonly string[]): void {
    const { rows } = this.size();
    let buf = '';
    for (let i = 0; i < rows; i++) {
      const line = lines[i] ?? '';
      if (line === this.last[i]) continue;
      buf += `${ESC}${i + 1};1H${line}${ESC}0m${ESC}K`;
    }
    this.last = lines.slice(0, rows);
    if (buf.length > 0) this.out.write(SYNC_ON + buf + SYNC_OFF);
  }

  /** Write bytes that are not part of a frame (a bell, a desktop notification, the clipboard). */
  signal(bytes: string): void {
    this.out.write(bytes);
  }
}
