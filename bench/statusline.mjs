#!/usr/bin/env node
// The statusline benchmark: what `cctop statusline` costs Claude Code after every message, against
// the floor of any Node command, on a real history with a warm index.
//
//   node bench/statusline.mjs [--history DIR] [--runs 40] [--concurrent 20] [--no-limits] [--cli PATH]
//
// DIR defaults to /work/bench-data/h1200 (a 1.2 GiB history; see bench/scan.mjs to make one). In order:
//   1. `cctop --json` once with HOME=DIR, so the index is warm (its time is printed).
//   2. One status line, then waiting for the background refresh it starts: the digest is now fresh.
//   3. `--runs` rounds of `node -e 0` and the status line in turn (the status line fed a stdin object
//      for the history's largest Claude session, as Claude Code 2.1.90 writes it): median and p95 of
//      each, and their ratios. Targets: median within 1.5x, p95 within 2x. On Linux also each one's
//      mean CPU (user + system, from /proc/self/stat) and its ratio.
//   4. Five status lines with the digest made old, each starting a refresh (waited for in between):
//      what the once-a-minute refresh costs the status line that starts it.
//   5. `--concurrent` status lines at once on a cache with the warm index but no digest: how many
//      refreshes they started (the refresh log's lines; it should be one).
// The status line runs as `dist/cli.js statusline` once `main.ts` routes it, else through
// `dist/statusline/bin.js` (the same command without the rest of the command line); it says which.
// `--cli PATH` runs another build's cli.js (one where main.ts routes `statusline`); without it, the
// package's `cctop` program (package.json's `bin`).
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = { history: '/work/bench-data/h1200', runs: '40', concurrent: '20' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--no-limits') args.noLimits = true;
  else if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const runs = Number(args.runs);
const history = args.history;
// The package's own program by default (package.json's `bin`: `dist/cctop.cjs`, which runs the line
// without loading an ES module), as a `cctop statusline` installed from the package runs.
const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin.cctop;
const cli = args.cli ?? join(root, bin);
if (!existsSync(cli)) throw new Error('no dist/: run npm run build first');

const env = { ...process.env, HOME: history };
delete env.CCTOP_CACHE_DIR;
delete env.XDG_CACHE_HOME;
delete env.CLAUDE_CONFIG_DIR;
const cache = join(history, '.cache', 'cctop');

const direct = join(dirname(cli), 'statusline', 'bin.js');

/** How the status line is run: through the command line when it knows `statusline`, else the direct entry. */
function entry() {
  try {
    execFileSync(process.execPath, [cli, 'statusline', '--help'], { stdio: 'ignore', env });
    return { argv: [cli, 'statusline'], name: 'cctop statusline' };
  } catch {
    return {
      argv: [direct],
      name: 'dist/statusline/bin.js (statusline not routed by main.ts yet)',
    };
  }
}
const line = entry();

/** The largest Claude transcript: a long session, whose tail and digest entry are the realistic case. */
function largestClaude(dir) {
  let best = { size: -1, path: null };
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl') && !e.name.startsWith('agent-')) {
        const size = statSync(p).size;
        if (size > best.size) best = { size, path: p };
      }
    }
  };
  walk(join(dir, '.claude', 'projects'));
  return best;
}

const session = largestClaude(history);
const nowS = Math.floor(Date.now() / 1000);
const stdin = JSON.stringify({
  session_id: basename(session.path, '.jsonl'),
  transcript_path: session.path,
  cwd: '/home/dev/src/project',
  model: { id: 'claude-opus-4-6', display_name: 'Opus 4.6' },
  workspace: { current_dir: '/home/dev/src/project', project_dir: '/home/dev/src/project' },
  version: '2.1.90',
  output_style: { name: 'default' },
  cost: { total_cost_usd: 12.34, total_duration_ms: 3600000, total_api_duration_ms: 900000 },
  context_window: {
    total_input_tokens: 900000,
    total_output_tokens: 40000,
    context_window_size: 200000,
    used_percentage: 41,
    current_usage: {
      input_tokens: 12,
      output_tokens: 800,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 80000,
    },
  },
  ...(args.noLimits
    ? {}
    : {
        rate_limits: {
          five_hour: { used_percentage: 42, resets_at: nowS + 7800 },
          seven_day: { used_percentage: 15.5, resets_at: nowS + 300000 },
        },
      }),
});

/**
 * CPU time (user + system, ms) of this process's children that have been waited for, from Linux's
 * `/proc/self/stat` (cutime, cstime; in clock ticks of 10 ms); null elsewhere. Each timed child is
 * waited for before the next starts, so the difference across one is that child's own CPU; the
 * status line's detached refresh is not this process's child, and is not counted.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
    return (Number(f[13]) + Number(f[14])) * CLOCK_TICK_MS;
  } catch {
    return null;
  }
}
/** Linux's USER_HZ is 100 on every architecture node runs on (getconf CLK_TCK). */
const CLOCK_TICK_MS = 10;

function timed(cmd, argv, childEnv = env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const cpu0 = childrenCpuMs();
    const c = spawn(cmd, argv, { env: childEnv, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
    });
    c.stdin.end(stdin);
    c.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const cpu1 = childrenCpuMs();
      const cpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
      if (code !== 0) reject(new Error(`${cmd} ${argv.join(' ')} exited ${code}`));
      else resolve({ ms, cpuMs, out });
    });
  });
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function refreshDone(dir, timeoutMs = 120_000) {
  const lock = join(dir, 'statusline-refresh.lock');
  const t0 = Date.now();
  await sleep(50);
  while (existsSync(lock) && Date.now() - t0 < timeoutMs) await sleep(50);
}

const t0 = Date.now();
execFileSync(process.execPath, [cli, '--json'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
console.log(`history ${history}: warm index in ${Date.now() - t0} ms (cctop --json)`);
console.log(`session ${basename(session.path)}: ${(session.size / 2 ** 20).toFixed(1)} MiB transcript`);
console.log(`status line: ${line.name}`);

// A fresh digest, as after the last refresh.
const first = await timed(process.execPath, line.argv);
await refreshDone(cache);
const digest = join(cache, 'statusline.json');
console.log(`first line (no or old digest): ${first.ms.toFixed(0)} ms: ${first.out.trim()}`);
console.log(`digest ${digest}: ${statSync(digest).size} bytes`);

// In turn, so that a machine whose speed drifts slows all of them alike.
const times = { node0: [], statusline: [], ...(line.argv[0] === cli ? { direct: [] } : {}) };
/** Each one's CPU over all rounds (ms), or null where it cannot be read. */
const cpu = { node0: 0, statusline: 0, direct: 0 };
const addCpu = (name, r) => {
  cpu[name] = cpu[name] === null || r.cpuMs === null ? null : cpu[name] + r.cpuMs;
};
let shown = '';
for (let i = 0; i < runs; i++) {
  const n = await timed(process.execPath, ['-e', '0']);
  times.node0.push(n.ms);
  addCpu('node0', n);
  const r = await timed(process.execPath, line.argv);
  times.statusline.push(r.ms);
  addCpu('statusline', r);
  shown = r.out.trim();
  if (times.direct) {
    const d = await timed(process.execPath, [direct]);
    times.direct.push(d.ms);
    addCpu('direct', d);
  }
}
console.log(`line: ${shown}`);
for (const [name, t] of Object.entries(times))
  console.log(
    `${name.padEnd(10)} median ${median(t).toFixed(1)} ms  p95 ${p95(t).toFixed(1)} ms  (${runs} runs)`,
  );
console.log(
  `ratio      median ${(median(times.statusline) / median(times.node0)).toFixed(2)}x (target 1.5x)  p95 ${(p95(times.statusline) / p95(times.node0)).toFixed(2)}x (target 2x)`,
);
if (times.direct)
  console.log(
    `direct     median ${(median(times.direct) / median(times.node0)).toFixed(2)}x  p95 ${(p95(times.direct) / p95(times.node0)).toFixed(2)}x (dist/statusline/bin.js, without main.ts)`,
  );
// CPU moves less with the machine's load than wall time: the mean over the rounds (the clock ticks
// of 10 ms average out over them), and its ratio to node's.
if (cpu.node0 !== null && cpu.statusline !== null)
  console.log(
    `cpu        node0 mean ${(cpu.node0 / runs).toFixed(1)} ms  statusline mean ${(cpu.statusline / runs).toFixed(1)} ms  ratio ${(cpu.statusline / cpu.node0).toFixed(2)}x${times.direct && cpu.direct !== null ? `  direct ${(cpu.direct / cpu.node0).toFixed(2)}x` : ''}`,
  );

// The status line that finds the digest old starts the refresh: its own cost, the refresh aside.
const stale = [];
for (let i = 0; i < 5; i++) {
  const d = JSON.parse(readFileSync(digest, 'utf8'));
  writeFileSync(digest, JSON.stringify({ ...d, builtAtMs: d.builtAtMs - 3_600_000 }));
  stale.push((await timed(process.execPath, line.argv)).ms);
  await refreshDone(cache);
}
console.log(`stale      median ${median(stale).toFixed(1)} ms  (5 runs, each starting a refresh)`);

// Many status lines at once, none with a digest: one refresh between them.
const crowd = mkdtempSync(join(tmpdir(), 'cctop-statusline-crowd-'));
try {
  for (const f of ['index.sqlite', 'zone.json'])
    if (existsSync(join(cache, f))) copyFileSync(join(cache, f), join(crowd, f));
  const crowdEnv = { ...env, CCTOP_CACHE_DIR: crowd };
  const n = Number(args.concurrent);
  const all = await Promise.all(
    Array.from({ length: n }, () => timed(process.execPath, line.argv, crowdEnv)),
  );
  await refreshDone(crowd);
  const log = join(crowd, 'statusline-refresh.log');
  const started = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  console.log(
    `concurrent ${n} status lines at once: ${started.length} refresh${started.length === 1 ? '' : 'es'} started; slowest line ${Math.max(...all.map((r) => r.ms)).toFixed(0)} ms`,
  );
  for (const l of started) console.log(`  ${l}`);
} finally {
  rmSync(crowd, { recursive: true, force: true });
}
