#!/usr/bin/env node
// The cold benchmark: `cctop --json --no-cache` and a first build (`--json` on an empty index)
// against the native ccusage on the same history, A/B against another build, in one sitting.
//
//   node bench/cold.mjs --history DIR [--base OTHER/dist/cli.js] [--head THIS/dist/cli.js] [--runs 3]
//                       [--floor]
//
// The commands run in turn, round after round (ccusage, cold head, cold base, build head, build
// base), so a shared machine's drift falls on all of them alike. Each run is timed by GNU time
// (`/usr/bin/time`): wall seconds, CPU seconds (user + system, every thread) and peak RSS; the load
// average is noted before each run, since on a loaded machine wall time says more about the load
// than about the program, and CPU time less so. Medians are printed, with the ratios to ccusage.
// With `--floor`, two more commands run in turn with them: the least a Node reader can do with the
// same bytes (`bench/floor-read.mjs`), every line `JSON.parse`d on as many threads as the machine
// has (`floor parse`), and every line only found (`floor split`). They read no index and keep
// nothing: they say how far below ccusage a reader written for Node can go at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  // A flag without a value (`--floor`) is true.
  if (a.startsWith('--'))
    args[a.slice(2)] = process.argv[i + 1]?.startsWith('--') === false ? process.argv[++i] : true;
}
const history = args.history;
if (!history) throw new Error('--history DIR (a history from bench/gen-history.mjs)');
const runs = Number(args.runs ?? 3);
// `--head PATH`: this build's cli.js copied elsewhere, so the tree can be rebuilt while the bench runs.
const head = args.head ?? join(root, 'dist', 'cli.js');
const base = args.base ?? null;
const ccusage = spawnSync(process.execPath, [join(root, 'bench', 'install-peers.mjs')], { encoding: 'utf8' })
  .stdout.trim()
  .split('\n')
  .pop();

const cache = mkdtempSync(join(tmpdir(), 'cctop-cold-cache-'));
const env = { ...process.env, HOME: history, CCTOP_CACHE_DIR: cache, TZ: 'UTC' };

/** One run under GNU time: wall and CPU seconds, peak RSS in MiB, the 1-minute load before it. */
function timed(argv, split = false) {
  const load = loadavg()[0];
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', ...argv], {
    env: split ? { ...env, FLOOR_SPLIT: '1' } : env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  const [wall, user, sys, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys, rss: kb / 1024, load };
}

const floor = join(root, 'bench', 'floor-read.mjs');
const threads = String(availableParallelism());
const list = [
  { name: 'ccusage', argv: [ccusage, 'session', '--json', '--offline'] },
  ...(args.floor !== undefined
    ? [
        { name: 'floor parse', argv: [process.execPath, floor, 'all', history, threads] },
        { name: 'floor split', argv: [process.execPath, floor, 'all', history, threads], split: true },
      ]
    : []),
  { name: 'cold head', argv: [process.execPath, head, '--json', '--no-cache'] },
  ...(base ? [{ name: 'cold base', argv: [process.execPath, base, '--json', '--no-cache'] }] : []),
  { name: 'build head', argv: [process.execPath, head, '--json'], empty: true },
  ...(base ? [{ name: 'build base', argv: [process.execPath, base, '--json'], empty: true }] : []),
];
const results = Object.fromEntries(list.map((c) => [c.name, []]));
for (let i = 0; i < runs; i++) {
  for (const c of list) {
    if (c.empty) rmSync(cache, { recursive: true, force: true });
    const r = timed(c.argv, c.split === true);
    results[c.name].push(r);
    console.log(
      `round ${i + 1} ${c.name.padEnd(10)} wall ${r.wall.toFixed(2)} s  cpu ${r.cpu.toFixed(2)} s  rss ${r.rss.toFixed(0)} MiB  load ${r.load.toFixed(1)}`,
    );
  }
}
rmSync(cache, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cc = {
  wall: median(results.ccusage.map((r) => r.wall)),
  cpu: median(results.ccusage.map((r) => r.cpu)),
};
console.log('\nmedians            wall (s)  ÷ ccusage   cpu (s)  ÷ ccusage   peak RSS (MiB)  load');
for (const c of list) {
  const rs = results[c.name];
  const wall = median(rs.map((r) => r.wall));
  const cpu = median(rs.map((r) => r.cpu));
  const loads = rs.map((r) => r.load);
  console.log(
    `${c.name.padEnd(18)} ${wall.toFixed(2).padStart(8)}  ${(wall / cc.wall).toFixed(2).padStart(9)}  ${cpu.toFixed(2).padStart(8)}  ${(cpu / cc.cpu).toFixed(2).padStart(9)}  ${Math.max(
      ...rs.map((r) => r.rss),
    )
      .toFixed(0)
      .padStart(14)}  ${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}`,
  );
}
