import type { Terminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { HeldScreen, MAX_SCREEN_CELLS, MAX_UNPARSED_BYTES } from './screen.js';

const enc = (s: string) => Buffer.from(s, 'utf8');

/** What `screen` writes out for an attaching terminal of `cols`×`rows`. */
const drawnOf = (screen: HeldScreen, cols: number, rows: number) =>
  new Promise<string>((resolve) => screen.snapshot(cols, rows, resolve));

/** A terminal that attaches: it starts in a shell's state and is given `drawn`. */
async function attaching(cols: number, rows: number, drawn: string): Promise<Terminal> {
  const t = new xtermHeadless.Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => t.write(`$ cctop attach 4cd4b226\r\n${drawn}`, resolve));
  return t;
}

/** The lines on a terminal's visible screen, right-trimmed. */
const visible = (t: Terminal): string[] => {
  const b = t.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < t.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
  return out;
};

const held = (cols: number, rows: number) => new HeldScreen(cols, rows, () => {});

describe('the screen an attaching terminal gets from the pty host', () => {
  it('is the whole frame of a renderer that drew it long ago and has drawn only changes since', async () => {
    const screen = held(40, 6);
    // A differential renderer: the frame once, on the alternate screen, then 3 MB of one changing cell,
    // far more than any tail of raw output would keep.
    screen.write(enc('\x1b[?1049h\x1b[H\x1b[2J┌ OpenCode ┐\r\n│ ask anything │\r\n\x1b[6;1Hesc interrupt  '));
    const ticks = Array.from({ length: 300_000 }, (_, i) => `\x1b[6;16H${i % 10}`).join('');
    screen.write(enc(ticks));
    const t = await attaching(40, 6, await drawnOf(screen, 40, 6));
    expect(visible(t)).toEqual(['┌ OpenCode ┐', '│ ask anything │', '', '', '', 'esc interrupt  9']);
    expect(t.buffer.active.type).toBe('alternate');
    expect([t.buffer.active.cursorX, t.buffer.active.cursorY]).toEqual([16, 5]);
  });

  it('carries the modes that change what the terminal sends or shows: paste, mouse and its encoding, a hidden cursor', async () => {
    const screen = held(30, 4);
    screen.write(enc('\x1b[?2004h\x1b[?1003h\x1b[?1006h\x1b[?1h\x1b[?25lcodex›'));
    const drawn = await drawnOf(screen, 30, 4);
    const t = await attaching(30, 4, drawn);
    expect(t.modes.bracketedPasteMode).toBe(true);
    expect(t.modes.mouseTrackingMode).toBe('any');
    expect(t.modes.applicationCursorKeysMode).toBe(true);
    expect(drawn.endsWith('\x1b[?1006h\x1b[?25l')).toBe(true);
    expect(visible(t)[0]).toBe('codex›');
  });

  it('leaves the mouse encoding and the cursor as they are once the agent turned them back', async () => {
    const screen = held(30, 4);
    screen.write(enc('\x1b[?1006h\x1b[?25l\x1b[?1006l\x1b[?25h> '));
    const drawn = await drawnOf(screen, 30, 4);
    expect(drawn.endsWith('> \x1b[?25h')).toBe(true);
  });

  it('carries none of the questions the agent once asked its own terminal, so nothing is answered into it', async () => {
    const screen = held(40, 4);
    const asked =
      '\x1b[c\x1b[>q\x1b[?u\x1b[6n\x1b]11;?\x1b\\\x1b]10;?\x07\x1b[?2026$p\x1b[>0c\x1b[14t\x1bP+q544e\x1b\\';
    screen.write(enc(`${asked}✦ pong: the lab answers`));
    const t = new xtermHeadless.Terminal({ cols: 40, rows: 4, allowProposedApi: true });
    const answers: string[] = [];
    t.onData((d) => answers.push(d));
    await new Promise<void>((resolve) => drawnOf(screen, 40, 4).then((d) => t.write(d, resolve)));
    expect(answers).toEqual([]);
    expect(visible(t)[0]).toBe('✦ pong: the lab answers');
  });

  it("is drawn at the attaching terminal's size, its lines rewrapped", async () => {
    const screen = held(60, 5);
    screen.write(enc(`${'a'.repeat(50)}\r\nend`));
    const t = await attaching(25, 5, await drawnOf(screen, 25, 5));
    expect(visible(t).slice(0, 3)).toEqual(['a'.repeat(25), 'a'.repeat(25), 'end']);
  });

  it('keeps a bounded scrollback whatever the agent printed: the newest lines, within MAX_SCREEN_CELLS', async () => {
    const screen = held(100, 20);
    screen.write(enc(Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\r\n')));
    const t = await attaching(100, 20, await drawnOf(screen, 100, 20));
    const b = t.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
    const kept = lines.filter((l) => l.startsWith('line '));
    // The screen's 20 rows and the scrollback that fits beside them, 100 cells a line.
    expect(kept.length).toBe(Math.floor(MAX_SCREEN_CELLS / 100));
    expect(kept.at(-1)).toBe('line 19999');
  });

  it('pauses a flood at MAX_UNPARSED_BYTES and resumes it, reading all of it', async () => {
    const events: string[] = [];
    let resumed: (() => void) | null = null;
    const screen = new HeldScreen(80, 24, (what) => {
      events.push(what);
      if (what === 'resume') resumed?.();
    });
    let paused = false;
    const chunk = enc(`${'x'.repeat(79)}\r\n`.repeat(800));
    for (let sent = 0; sent < 16 * MAX_UNPARSED_BYTES; sent += chunk.length) {
      if (paused) {
        await new Promise<void>((r) => {
          resumed = r;
        });
        paused = false;
      }
      screen.write(chunk);
      if (events.at(-1) === 'pause') paused = true;
    }
    screen.write(enc('the end'));
    const t = await attaching(80, 24, await drawnOf(screen, 80, 24));
    expect(visible(t).at(-1)).toBe('the end');
    expect(events.length).toBeGreaterThan(2);
    expect(events.filter((e) => e === 'pause').length).toBe(events.filter((e) => e === 'resume').length);
  });

  it('survives a line of megabytes and malformed sequences, drawing what follows', async () => {
    const screen = held(80, 10);
    screen.write(enc('y'.repeat(4 * 1024 * 1024)));
    screen.write(
      Buffer.from([0x1b, 0x5b, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x3b, 0x3f, 0xff, 0xfe, 0xc3]),
    );
    screen.write(enc('\x1b]0;never ends\x1bP$$$\x1b[?99999999h\x1b[38;2;999;999;999m\x1b\\\r\nafter'));
    const drawn = await drawnOf(screen, 80, 10);
    expect(Buffer.byteLength(drawn)).toBeLessThan(MAX_SCREEN_CELLS * 8);
    const t = await attaching(80, 10, drawn);
    expect(visible(t).some((l) => l.endsWith('after'))).toBe(true);
  });
});
