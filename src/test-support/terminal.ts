/**
 * The built cctop in a real terminal for the end-to-end tests of the live table: a tmux server of
 * the test's own (`-L socket`), one window of a given size running cctop with exactly the
 * environment given, keystrokes sent to it, and its screen read back until it shows what a step
 * expects (or the test fails with the screen as it last was).
 *
 * Not here: what the screen must show, or a terminal set up any other way (a test that records the
 * terminal's settings around cctop writes its own script).
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './cli-run.js';

export const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** `env` as the words of `env -i` in a shell script, each value in single quotes. */
export const envWords = (env: Record<string, string>): string =>
  Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');

export class Terminal {
  /** Window `name` on tmux server `socket`; `patienceMs` is how long `until` waits for a screen. */
  constructor(
    readonly socket: string,
    readonly name: string,
    readonly patienceMs: number,
  ) {}

  tmux(...args: string[]): SpawnSyncReturns<string> {
    return spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  }

  /**
   * Start the built cctop with exactly `env` and `args` (shell words, quoted by the caller) in a new
   * `width` x `height` window; its script is written in `dir`. The window stays when cctop ends.
   */
  cctop(dir: string, env: Record<string, string>, args: string, width = 160, height = 40): void {
    const script = join(dir, 'live.sh');
    const command = [`'${process.execPath}'`, `'${CLI}'`, ...(args === '' ? [] : [args])].join(' ');
    writeFileSync(script, `env -i ${envWords(env)} ${command}\nexec sleep 600\n`);
    this.open(this.name, `sh '${script}'`, width, height);
  }

  /**
   * Open window `name` running the shell command `command` on this terminal's tmux server (starting
   * it when none runs), and the terminal that reads it. Fails at once with tmux's own words when tmux
   * could not open it. Never open one just after closing the server's last window: the server is
   * then still exiting, and tmux 3.3a drops the new one in a few tries of a hundred ("server exited
   * unexpectedly", 20 of 700 here); open the next window first, then close the old one. The same
   * holds for a server that `stop` just ended: open the next on a socket of another name.
   */
  open(name: string, command: string, width = 150, height = 40): Terminal {
    const r = this.tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), command);
    if (r.status !== 0)
      throw new Error(
        `tmux could not open window ${name}: ${(r.stderr ?? '').trim() || `status ${r.status}`}`,
      );
    return new Terminal(this.socket, name, this.patienceMs);
  }

  /**
   * The screen's lines as they are now; with `sgr`, with the colour and style sequences drawn. A
   * window tmux says it cannot read (its server or the window is gone) is an error, not a blank
   * screen: nothing will ever show there. A capture tmux did not finish in time reads as blank, and
   * a wait reads again.
   */
  screen(sgr = false): string[] {
    const r = this.tmux('capture-pane', '-p', ...(sgr ? ['-e'] : []), '-t', this.name);
    if (r.status !== null && r.status !== 0)
      throw new Error(`tmux cannot read window ${this.name}: ${(r.stderr ?? '').trim()}`);
    return (r.stdout ?? '').split('\n');
  }

  keys(...k: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...k);
  }

  /**
   * Wait until the screen satisfies `ok`; fail, naming `what`, with the screen as it last was, or at
   * once when the window is gone.
   */
  async until(what: string, ok: (lines: string[]) => boolean, everyMs = 200, sgr = false): Promise<string[]> {
    const deadline = Date.now() + this.patienceMs;
    const read = () => {
      try {
        return this.screen(sgr);
      } catch (err) {
        throw new Error(
          `the screen never showed ${what}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    };
    let lines = read();
    while (!ok(lines)) {
      if (Date.now() > deadline) throw new Error(`the screen never showed ${what}:\n${lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, everyMs));
      lines = read();
    }
    return lines;
  }

  /** End the tmux server, and with it cctop. */
  stop(): void {
    this.tmux('kill-server');
  }
}
