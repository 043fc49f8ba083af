#!/usr/bin/env node
/**
 * The package's `cctop` program. CommonJS on purpose: `cctop statusline` runs after every message
 * Claude Code sends, and on Node 20 loading any ES module first brings node's ES module loader and
 * ~40 of node's own modules with it (about 12 ms of CPU, a fifth of node's own start). So the status
 * line goes straight to `statusline/launch.cts`, and every other command to `cli.js`, as before.
 */
if (process.argv[2] === 'statusline') {
  // Required only here: any other command has no use for it.
  const launch: typeof import('./statusline/launch.cjs') = require('./statusline/launch.cjs');
  void launch.runLine(process.argv.slice(2));
} else void import('./cli.js');
