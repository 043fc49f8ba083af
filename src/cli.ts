#!/usr/bin/env node
/**
 * The `cctop` executable. Everything it does lives in `views/cli/main.ts`; this file only wires it to
 * the process, so importing cctop as a library never touches `process.exit`.
 */
// `cctop statusline` runs after every message Claude Code sends: it is handed its own entry before
// the rest of the command line is loaded (see statusline/bin.ts).
// `cctop hook` runs on every event of every agent whose hooks cctop installed: likewise (hooks/bin.ts).
if (process.argv[2] === 'statusline') await import('./statusline/bin.js');
else if (process.argv[2] === 'hook') await import('./hooks/bin.js');
else await runMain();

async function runMain(): Promise<void> {
  const { main } = await import('./views/cli/main.js');

  // A closed pipe (`cctop --list | head`) is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  const code = await main(process.argv.slice(2), {
    out: (s) => {
      if (typeof s === 'string') process.stdout.write(`${s}\n`);
      else {
        process.stdout.write(s);
        process.stdout.write('\n');
      }
    },
    write: (chunks) => {
      // One vectored write rather than thousands of small ones.
      process.stdout.cork();
      for (const c of chunks) process.stdout.write(c);
      process.stdout.uncork();
    },
    err: (s) => process.stderr.write(`${s}\n`),
    page: async (text) => {
      const { pageText } = await import('./views/cli/pager.js');
      await pageText(text, process.env, (t) => process.stdout.write(t));
    },
    isTty: process.stdout.isTTY === true,
    columns: process.stdout.columns,
    env: process.env,
  });
  process.exitCode = code;
}
