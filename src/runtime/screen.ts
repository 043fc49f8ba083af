/**
 * An agent's screen as a terminal would show it, kept by the pty host (`pty-host.ts`) for a terminal
 * that attaches later, as tmux keeps a pane. The agent's output goes through a headless terminal
 * emulator (`@xterm/headless`); an attach gets that screen written out whole (`@xterm/addon-serialize`):
 * its scrollback, the alternate screen when the agent is on it, colours, the cursor's place, and the
 * modes that change what the attaching terminal sends (bracketed paste, application cursor keys,
 * mouse reports and their encoding, focus reports) or shows (a hidden cursor).
 *
 * Why a screen and not the output itself: a differential renderer (OpenCode's, Codex's) draws only
 * what changed since its last frame, so a replay of raw output that lost the frame's start draws
 * nothing, and the size change that should make it redraw does not always reach it. The screen is
 * complete whatever the agent drew last. Nor does the attaching terminal get the questions the agent
 * once asked its own terminal (device attributes, cursor reports): the emulator consumes them, and
 * what is written out only draws.
 *
 * Bounded: the emulator keeps at most `MAX_SCREEN_CELLS` cells (its scrollback shrinks as the
 * terminal widens), and at most `MAX_UNPARSED_BYTES` wait to be read, past which the caller pauses
 * the agent's pty (`onBacklog`), as a slow terminal would.
 *
 * Not here: the pty, the sockets, who is attached (`pty-host.ts`).
 */
import xtermSerialize from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';

/**
 * Cells kept per agent, screen and scrollback together: 128 Ki cells are a 150-column terminal's
 * screen and about 830 lines of scrollback (an 80-column one's about 1,600), several full redraws
 * of any agent's TUI. Measured (`node bench/pty-host.mjs`): about 6 MiB of the host's memory per
 * held agent with its scrollback full at 150×40, 0.6 MiB for one that has drawn one screen.
 */
export const MAX_SCREEN_CELLS = 128 * 1024;

/**
 * Output waiting for the emulator at most before the agent's pty is paused: a flood (an agent
 * printing a huge file) is read only as fast as the emulator can take it, so the queue stays near
 * 1 MiB instead of growing with the flood (xterm itself throws past 50 MB). Resumed at half.
 */
export const MAX_UNPARSED_BYTES = 1024 * 1024;

/**
 * Private modes xterm.js keeps but the serializer does not write out, and that change what a
 * terminal shows or sends: 25 the cursor shown, 1005/1006/1015/1016 how mouse reports are encoded
 * (an agent reading SGR reports, 1006, would read the default encoding as stray keys).
 */
const CURSOR_SHOWN = 25;
const MOUSE_ENCODINGS = new Set([1005, 1006, 1015, 1016]);

type Backlog = 'pause' | 'resume';

export class HeldScreen {
  private readonly term: Terminal;
  private readonly serializer = new xtermSerialize.SerializeAddon();
  private unparsed = 0;
  private paused = false;
  private cursorShown = true;
  private mouseEncoding: number | null = null;

  constructor(
    cols: number,
    rows: number,
    private readonly onBacklog: (what: Backlog) => void,
  ) {
    this.term = new xtermHeadless.Terminal({
      cols,
      rows,
      scrollback: scrollbackFor(cols, rows),
      allowProposedApi: true,
    });
    this.term.loadAddon(this.serializer);
    const modes = (set: boolean) => (params: (number | number[])[]) => {
      for (const p of params) {
        if (p === CURSOR_SHOWN) this.cursorShown = set;
        else if (typeof p === 'number' && MOUSE_ENCODINGS.has(p))
          this.mouseEncoding = set ? p : this.mouseEncoding === p ? null : this.mouseEncoding;
      }
      // Not handled here: xterm.js goes on to apply the mode itself.
      return false;
    };
    const reset = () => {
      this.cursorShown = true;
      this.mouseEncoding = null;
      return false;
    };
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, modes(true));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, modes(false));
    // A full reset (RIS) and a soft one (DECSTR) put both back to their defaults.
    this.term.parser.registerEscHandler({ final: 'c' }, reset);
    this.term.parser.registerCsiHandler({ intermediates: '!', final: 'p' }, reset);
  }

  /** The agent's output, read in order; past `MAX_UNPARSED_BYTES` waiting, the pty is paused. */
  write(b: Uint8Array): void {
    this.unparsed += b.length;
    this.term.write(b, () => {
      this.unparsed -= b.length;
      if (this.paused && this.unparsed <= MAX_UNPARSED_BYTES / 2) {
        this.paused = false;
        this.onBacklog('resume');
      }
    });
    if (!this.paused && this.unparsed > MAX_UNPARSED_BYTES) {
      this.paused = true;
      this.onBacklog('pause');
    }
  }

  /**
   * The terminal's new size, applied after the output written so far (drawn for the old size) and
   * before what follows (the agent's redraw for the new one).
   */
  resize(cols: number, rows: number): void {
    this.term.write('', () => this.resizeNow(cols, rows));
  }

  /**
   * Everything written so far, once read, at `cols`×`rows` (the attaching terminal's size), as bytes
   * that draw it on a terminal in any state. `then` runs before any later output is read, so the
   * caller sends what follows after it without a gap or an overlap.
   */
  snapshot(cols: number, rows: number, then: (drawn: string) => void): void {
    this.term.write('', () => {
      this.resizeNow(cols, rows);
      then(this.drawn());
    });
  }

  dispose(): void {
    this.term.dispose();
  }

  private resizeNow(cols: number, rows: number): void {
    if (cols === this.term.cols && rows === this.term.rows) return;
    // Scrollback first when the screen grows, so the cells kept never pass the budget meanwhile.
    this.term.options.scrollback = scrollbackFor(cols, rows);
    this.term.resize(cols, rows);
  }

  private drawn(): string {
    // The attaching terminal may be in any state a shell or another program left: off the alternate
    // screen, no scroll region, plain colours, the modes the screen below sets (when the agent has
    // them) off, then cleared.
    const clean =
      '\x1b[?1049l\x1b[r\x1b[0m\x1b[?1l\x1b[?2004l\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[H\x1b[2J';
    const screen = this.serializer.serialize();
    const mouse = this.mouseEncoding === null ? '' : `\x1b[?${this.mouseEncoding}h`;
    return `${clean}${screen}${mouse}${this.cursorShown ? '\x1b[?25h' : '\x1b[?25l'}`;
  }
}

/** The scrollback lines that keep a `cols`×`rows` terminal within `MAX_SCREEN_CELLS`. */
export function scrollbackFor(cols: number, rows: number): number {
  return Math.max(0, Math.floor(MAX_SCREEN_CELLS / Math.max(1, cols)) - rows);
}
