#!/usr/bin/env node
// The live table's running cost: `cctop` in a real terminal (tmux) on a large history, measured from
// outside through /proc, the way `top` would see it.
//
//   node bench/live.mjs --history DIR [--idle 60]
//
// Reports the time until the table shows its first rows (the index warm), the resident memory once
// settled and at its peak, and the CPU it uses over --idle seconds with nothing changing. Linux
// only (it reads /proc); needs tmux.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
if (!args.history) {
  console.error('usage: node bench/live.mjs --history DIR [--idle 60]  (DIR from bench/gen-history.mjs)');
  process.exit(2);
}
if (spawnSync('tmux', ['-V']).status !== 0) {
  console.error('bench/live.mjs needs tmux (apt-get install tmux)');
  process.exit(2);
}
const idleSeconds = Number(args.idle ?? 60);
const cli = join(root, 'dist', 'cli.js');
const cache = mkdtempSync(join(tmpdir(), 'cctop-live-bench-'));
const env = { ...process.env, HOME: args.history, CCTOP_CACHE_DIR: cache };
const socket = `cctop-live-bench-${process.pid}`;
const tmux = (...a) => spawnSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resident and peak memory (MB) and CPU ticks (user + system) of a process, from /proc. */
function sample(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    rss: kb('VmRSS') / 1024,
    peak: kb('VmHWM') / 1024,
    ticks: Number(fields[11]) + Number(fields[12]),
  };
}

try {
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
  console.log('building the index (cctop --json) …');
  execFileSync(process.execPath, [cli, '--json'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const sessions = JSON.parse(execFileSync(process.execPath, [cli, '--json'], { env, maxBuffer: 1 << 30 }))
    .sessions.length;

  const started = Date.now();
  const envArgs = Object.entries({
    HOME: args.history,
    CCTOP_CACHE_DIR: cache,
    PATH: process.env.PATH ?? '',
  }).map(([k, v]) => `${k}=${v}`);
  tmux('new-session', '-d', '-s', 'live', '-x', '200', '-y', '50', 'env', ...envArgs, process.execPath, cli);
  const pid = Number(tmux('list-panes', '-t', 'live', '-F', '#{pane_pid}').stdout.trim());
  let firstRows = null;
  while (Date.now() - started < 60_000) {
    const screen = tmux('capture-pane', '-p', '-t', 'live').stdout.split('\n');
    const header = screen.findIndex((l) => l.includes('PROJECT · TITLE'));
    if (header >= 0 && (screen[header + 1] ?? '').trim().length > 0) {
      firstRows = Date.now() - started;
      break;
    }
    await sleep(20);
  }
  // Let the first full pass and the start-up garbage settle before measuring the idle cost.
  await sleep(20_000);
  const before = sample(pid);
  const rss = [];
  for (let s = 0; s < idleSeconds; s++) {
    await sleep(1000);
    rss.push(sample(pid).rss);
  }
  const after = sample(pid);
  rss.sort((a, b) => a - b);
  const hz = 100; // USER_HZ on Linux
  const cpu = ((after.ticks - before.ticks) / hz / idleSeconds) * 100;
  console.log(`sessions loaded:           ${sessions}`);
  console.log(`first rows on screen:      ${firstRows === null ? 'never (60 s)' : `${firstRows} ms`}`);
  console.log(
    `resident memory, idle:     median ${rss[rss.length >> 1].toFixed(0)} MB (min ${rss[0].toFixed(0)}, max ${rss.at(-1).toFixed(0)})`,
  );
  console.log(`resident memory, peak:     ${after.peak.toFixed(0)} MB`);
  console.log(`CPU with nothing changing: ${cpu.toFixed(2)}% of one core over ${idleSeconds} s`);
  tmux('send-keys', '-t', 'live', 'q');
  await sleep(500);
} finally {
  tmux('kill-server');
  rmSync(cache, { recursive: true, force: true });
}
