/**
 * Desktop notifications: `notify-send` (Linux and the BSDs, from libnotify) or `osascript` (macOS),
 * when the machine has one on its PATH. Neither is a dependency: a machine without one (a server, a
 * container) sends no desktop notices, and `cctop doctor` says so; it is not an error.
 *
 * The tool is run directly, never through a shell, with the notice's words as separate arguments:
 *
 * - `notify-send --app-name=cctop -- TITLE BODY`. GLib reads options anywhere on the line, so `--`
 *   keeps a title that starts with `-` from being read as one. The body may hold markup (most
 *   notification servers read `<b>`, `<a href>`, `<img>` in it), so `&`, `<` and `>` are escaped.
 * - `osascript -e 'on run argv' -e 'display notification (item 2 of argv) with title (item 1 of argv)'
 *   -e 'end run' TITLE BODY`. The words reach AppleScript as the run handler's arguments, never as
 *   source text, so no quote in them can end a string literal and run what follows.
 *
 * Each run is detached, its output ignored, killed if it runs past `DESKTOP_TIMEOUT_MS`, and at most
 * `MAX_DESKTOP_RUNNING` run at once: past that a notice is dropped and counted, since a desktop
 * that cannot keep up with five notices at once will not show a sixth either.
 *
 * Not here: which notices are sent (`notifier.ts`).
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { later } from '../later.js';
import type { Env } from '../providers/types.js';
import { type Notice, oneLine } from './notice.js';

const childProcess = later<typeof import('node:child_process')>('node:child_process');

/** How long a notifier may run. Both return at once; one still running has hung (a stuck D-Bus). */
export const DESKTOP_TIMEOUT_MS = 5_000;
/** Notifiers running at once; past this a notice is dropped (see the module comment). */
export const MAX_DESKTOP_RUNNING = 4;
/** An error as the status keeps it: the reason, in a line. */
const MAX_ERROR_CHARS = 200;
/** The directories of PATH looked through: a PATH longer than this is not one a person wrote. */
const MAX_PATH_DIRS = 256;

export type DesktopKind = 'notify-send' | 'osascript';

export interface DesktopTool {
  kind: DesktopKind;
  /** Where it was found on PATH. */
  path: string;
}

export interface DesktopStatus {
  /** The tool in use; null when none is on PATH. */
  tool: DesktopTool | null;
  sent: number;
  failed: number;
  dropped: number;
  lastError: string | null;
}

/** The notifier this platform uses. */
export function desktopKind(platform: NodeJS.Platform = process.platform): DesktopKind | null {
  if (platform === 'darwin') return 'osascript';
  if (platform === 'win32') return null;
  return 'notify-send';
}

/** The platform's notifier, found on `env.PATH`; null when this machine has none. */
export function findDesktop(env: Env, platform: NodeJS.Platform = process.platform): DesktopTool | null {
  const kind = desktopKind(platform);
  if (kind === null) return null;
  const dirs = (env.PATH ?? '').split(delimiter).slice(0, MAX_PATH_DIRS);
  for (const dir of dirs) {
    // A relative PATH entry means a different directory for each cwd; it is not looked in.
    if (dir === '' || !isAbsolute(dir)) continue;
    const path = join(dir, kind);
    try {
      if (!statSync(path).isFile()) continue;
      accessSync(path, constants.X_OK);
      return { kind, path };
    } catch {
      // Not there, or not runnable: the next directory.
    }
  }
  return null;
}

/** The body as notification servers that read markup show it: `&`, `<`, `>` as entities. */
export function markupEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The arguments the tool is run with for `n`. */
export function desktopArgs(kind: DesktopKind, n: Pick<Notice, 'title' | 'text'>): string[] {
  switch (kind) {
    case 'notify-send':
      return ['--app-name=cctop', '--', n.title, markupEscape(n.text)];
    case 'osascript':
      // osascript stops reading options at its first operand; a title it could read as one is
      // moved off the dash (titles are cctop's words first, so this is a guard, not a case).
      return [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        n.title.startsWith('-') ? ` ${n.title}` : n.title,
        n.text,
      ];
  }
}

export class DesktopSender {
  readonly status: DesktopStatus;
  private readonly running = new Set<ChildProcess>();
  private readonly exits = new Set<Promise<void>>();

  constructor(
    private readonly o: {
      tool: DesktopTool | null;
      env: Env;
      timeoutMs?: number;
      onChange?: (s: DesktopStatus) => void;
    },
  ) {
    this.status = { tool: o.tool, sent: 0, failed: 0, dropped: 0, lastError: null };
  }

  /** Show `n`; returns at once. Nothing happens without a tool. */
  send(n: Notice): void {
    const tool = this.o.tool;
    if (tool === null) return;
    if (this.running.size >= MAX_DESKTOP_RUNNING) {
      this.status.dropped++;
      this.o.onChange?.(this.status);
      return;
    }
    let child: ChildProcess;
    try {
      child = childProcess().spawn(tool.path, desktopArgs(tool.kind, n), {
        detached: true,
        stdio: 'ignore',
        env: { ...this.o.env },
      });
    } catch (err) {
      this.fail(`${tool.kind} could not start: ${(err as Error).message}`);
      return;
    }
    this.running.add(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), this.o.timeoutMs ?? DESKTOP_TIMEOUT_MS);
    timer.unref();
    const exit = new Promise<void>((resolve) => {
      let settled = false;
      const done = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.running.delete(child);
        if (error === null) {
          this.status.sent++;
          this.o.onChange?.(this.status);
        } else this.fail(error);
        resolve();
      };
      child.on('error', (err) => done(`${tool.kind} could not start: ${err.message}`));
      child.on('exit', (code, signal) =>
        done(code === 0 ? null : `${tool.kind} exited with ${signal ?? `code ${code}`}`),
      );
    });
    this.exits.add(exit);
    void exit.then(() => this.exits.delete(exit));
    // A notifier left running does not keep a stopping cctop up.
    child.unref();
  }

  /** Resolves once every notifier started has exited (for tests). */
  async idle(): Promise<void> {
    while (this.exits.size > 0) await Promise.all([...this.exits]);
  }

  private fail(error: string): void {
    this.status.failed++;
    this.status.lastError = oneLine(error, MAX_ERROR_CHARS);
    this.o.onChange?.(this.status);
  }
}
