/**
 * `cctop statusline` wired straight to the process, without `views/cli/main.ts` and the modules every
 * other command needs: the status line runs after every message Claude Code sends, and loading the
 * rest of the command line adds about a quarter of node's own start-up to each run (measured by
 * `bench/statusline.mjs`). `cli.ts` can hand `cctop statusline …` here before loading `main.ts`;
 * `node dist/statusline/bin.js [--format …]` runs it too (the benchmark does, to compare).
 */
import { statuslineCommand } from '../views/cli/statusline.js';

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const args = process.argv.slice(2);
// Run as `cctop statusline …` through cli.ts, the word is still there; run as a script, it is not.
if (args[0] === 'statusline') args.shift();

try {
  process.exitCode = await statuslineCommand(args, {
    out: (s) => process.stdout.write(typeof s === 'string' ? `${s}\n` : s),
    err: (s) => process.stderr.write(`${s}\n`),
    isTty: process.stdout.isTTY === true,
    columns: process.stdout.columns,
    env: process.env,
  });
} catch (err) {
  // As `main.ts` does: a bad argument is a message and exit 2, anything else a fault to show.
  const { UsageError } = await import('../views/cli/options.js');
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`cctop: ${err.message}\n`);
  process.exitCode = 2;
}
