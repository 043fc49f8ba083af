/**
 * Long output on a terminal goes through the user's pager, as `git log` does: `$CCTOP_PAGER`, else
 * `$PAGER`, else `less`, run by `sh -c` with the text on its stdin. `LESS` defaults to `FRX` as git
 * sets it: F leaves at once when the text fits on one screen (a short chat prints as if unpaged), R
 * lets the colours through, X leaves the text on the screen after quitting.
 *
 * Only for a terminal: the caller pages only when stdout is one, so piped output (`cctop chat | grep`)
 * is never paged. A pager set to `cat` or to nothing means none. A pager that cannot be started (no
 * `less` on the machine, a misspelt `$PAGER`) costs nothing: the text is written as it would have
 * been without one.
 */
import { spawn } from 'node:child_process';
import type { Env } from '../../providers/types.js';

/** The shell command of the pager to use, or null for none. */
export function pagerCommand(env: Env): string | null {
  const chosen = env.CCTOP_PAGER ?? env.PAGER ?? 'less';
  const trimmed = chosen.trim();
  return trimmed === '' || trimmed === 'cat' ? null : trimmed;
}

/** The shell's exit status for a command it could not find or run. */
const COMMAND_NOT_RUN = new Set([126, 127]);

/**
 * Show `text` through the pager, on the process's own terminal; resolves when the pager exits. Where
 * no pager is set or it could not run, `direct` writes the text instead.
 */
export function pageText(text: string, env: Env, direct: (text: string) => void): Promise<void> {
  const command = pagerCommand(env);
  if (command === null) {
    direct(text);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let settled = false;
    const done = (fallback: boolean) => {
      if (settled) return;
      settled = true;
      if (fallback) direct(text);
      resolve();
    };
    const child = spawn('sh', ['-c', command], {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
    });
    child.on('error', () => done(true));
    child.on('close', (code) => done(code !== null && COMMAND_NOT_RUN.has(code)));
    // The person quit the pager before reading it all: the rest of the text is not wanted.
    child.stdin.on('error', () => {
      // EPIPE from a pager that exited early; its exit ends the wait.
    });
    child.stdin.end(text);
  });
}

/** What `showPaged` needs of the command's output (`Io`). */
export interface PagedOut {
  out(s: string): void;
  page?(text: string): Promise<void>;
  isTty: boolean;
}

/** `lines` paged on a terminal (when the output can page), else written as they are, in one write. */
export async function showPaged(io: PagedOut, lines: readonly string[]): Promise<void> {
  if (io.isTty && io.page !== undefined) await io.page(`${lines.join('\n')}\n`);
  // Piped, the conversation is one write, as every other answer is.
  else if (lines.length > 0) io.out(lines.join('\n'));
}
