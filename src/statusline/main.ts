/**
 * `cctop statusline` wired straight to the process, without `views/cli/main.ts` and the modules every
 * other command needs: the status line runs after every message Claude Code sends, and loading the
 * rest of the command line adds about a quarter of node's own start-up to each run (measured by
 * `bench/statusline.mjs`). `bin.ts` runs this, from the build's one-file copy of it when there is one
 * (`dist/statusline-line.cjs`, with V8's code cache), else as these modules.
 *
 * The line is written to file descriptor 1 directly: `process.stdout` on a pipe builds a socket
 * stream (and loads `net` for it), which cost a status line more than anything it prints. The stream
 * is made only when the descriptor is not ready (a full pipe) or a command asks whether it writes to
 * a terminal.
 *
 * Not here: loading or caching the code (`bin.ts`). No top-level `await`: the build makes a CommonJS
 * copy of this module and everything it imports statically.
 */
import { writeSync } from 'node:fs';
import { statuslineCommand } from '../views/cli/statusline.js';

/** Once the stream holds bytes, everything after them goes through it too, in order. */
let queued = false;

function write(fd: 1 | 2, s: string | Uint8Array): void {
  // Named only when used: naming `process.stdout` makes the stream.
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  if (queued) {
    stream().write(s);
    return;
  }
  const b = typeof s === 'string' ? Buffer.from(s) : s;
  let at = 0;
  try {
    while (at < b.length) at += writeSync(fd, b, at, b.length - at);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : null;
    // A reader that went away (`cctop statusline | head -c 0`) wanted nothing more.
    if (code === 'EPIPE') process.exit(0);
    if (code !== 'EAGAIN') throw err;
    queued = true;
    stream().on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    stream().write(b.subarray(at));
  }
}

/** Run `cctop statusline …` with `argv` (the words after the program), and set the exit code. */
export async function runStatusline(argv: readonly string[]): Promise<void> {
  const args = [...argv];
  // Run as `cctop statusline …` through cli.ts, the word is still there; run as a script, it is not.
  if (args[0] === 'statusline') args.shift();

  try {
    process.exitCode = await statuslineCommand(args, {
      out: (s) => write(1, typeof s === 'string' ? `${s}\n` : s),
      err: (s) => write(2, `${s}\n`),
      // Asked of the stream only by a command that shows a table; the line itself never asks.
      get isTty() {
        return process.stdout.isTTY === true;
      },
      get columns() {
        return process.stdout.columns;
      },
      env: process.env,
    });
  } catch (err) {
    // As `views/cli/main.ts` does: a bad argument is a message and exit 2, anything else a fault to show.
    const { UsageError } = await import('../views/cli/options.js');
    if (!(err instanceof UsageError)) throw err;
    write(2, `cctop: ${err.message}\n`);
    process.exitCode = 2;
  }
}
