#!/usr/bin/env node
// How fast each way of reading a Claude line goes, per core, on the same lines in one process: the
// skim's strict walk alone (every byte checked as JSON.parse would, nothing kept), `JSON.parse` (what
// any reader that builds the line's objects pays), and Claude's byte reader (`lineFromBytes`: the
// walk plus picking the keys it needs), and Codex's byte reader on Codex rollout lines (`codex`). It says
// where a cold read's parsing time goes, beside the floors of bench/floor-read.mjs.
//
//   node bench/skim-speed.mjs --history DIR [--mib 60] [--passes 2] [--ways walk,json,claude,codex]
//                             [--base CHECKOUT]
//
// `--base` runs each way of a second checkout's build (`CHECKOUT/dist`) beside this one's, interleaved.
//
// The lines are read into memory first; CPU time (user + system, `process.cpuUsage`) covers the
// passes over them only. Each way runs in its own fresh process, in turn, so none warms another.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const WAYS = (args.ways ?? 'walk,json,claude').split(',');
const ROOTS = args.base ? [root, args.base] : [root];

/** Every file under `dir`, sorted, depth first (Claude's projects hold files; Codex's dates nest). */
function filesUnder(dir) {
  const out = [];
  for (const d of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...filesUnder(p));
    else if (d.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

if (args.way === undefined) {
  if (!args.history) throw new Error('--history DIR (a history from bench/gen-history.mjs)');
  for (const way of [...WAYS, ...WAYS])
    for (const at of ROOTS) {
      const r = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), ...process.argv.slice(2), '--way', way, '--root', at],
        { encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`${way}: ${r.stderr}`);
      process.stdout.write(`${ROOTS.length > 1 ? (at === root ? 'head ' : 'base ') : ''}${r.stdout}`);
    }
} else {
  const from = args.root ?? root;
  const { skipValue } = await import(join(from, 'dist', 'providers', 'skim.js'));
  const claude = await import(join(from, 'dist', 'providers', 'claude', 'bytes.js'));
  const codex = await import(join(from, 'dist', 'providers', 'codex', 'bytes.js'));
  const budget = Number(args.mib ?? 60) * 2 ** 20;
  const passes = Number(args.passes ?? 2);
  const dir = join(args.history, args.way === 'codex' ? '.codex/sessions' : '.claude/projects');
  const lines = [];
  let bytes = 0;
  for (const f of filesUnder(dir)) {
    if (bytes >= budget) break;
    const b = readFileSync(f);
    bytes += b.length;
    for (let at = 0; at < b.length; ) {
      let nl = b.indexOf(10, at);
      if (nl < 0) nl = b.length;
      if (nl > at) lines.push([b, at, nl]);
      at = nl + 1;
    }
  }
  const read = {
    walk: (b, s, e) => skipValue(b, s, e),
    json: (b, s, e) => JSON.parse(b.toString('utf8', s, e)),
    claude: (b, s, e) => claude.lineFromBytes(b, s, e),
    codex: (b, s, e) => codex.lineFromBytes(b, s, e),
  }[args.way];
  const t0 = process.cpuUsage();
  for (let p = 0; p < passes; p++) for (const [b, s, e] of lines) read(b, s, e);
  const used = process.cpuUsage(t0);
  const cpu = (used.user + used.system) / 1e6;
  const mb = (bytes * passes) / 1e6;
  console.log(
    `${args.way.padEnd(7)} ${lines.length} lines, ${mb.toFixed(0)} MB in ${cpu.toFixed(3)} CPU-s: ${(mb / cpu).toFixed(0)} MB/s`,
  );
}
