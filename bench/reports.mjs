#!/usr/bin/env node
// The spend reports' benchmark: `cctop daily|monthly|blocks --json` on a warm index against the
// native ccusage's `daily|monthly|blocks --json --offline` and `node -e 0`, on the same history, in
// one run, each command run in turn with the others so a busy machine slows them alike.
//
//   node bench/reports.mjs --history DIR [--runs 7]
//
// DIR is a history from bench/gen-history.mjs (e.g. /work/bench-data/h1200). The index is
// made warm first (one `cctop --json`) in a cache directory of its own. Prints the median wall time
// of each, cctop's ratio to ccusage and to `node -e 0`, and checks that cctop's daily totals equal
// ccusage's (tokens exactly, cost within a cent).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
if (!args.history) {
  console.error('usage: node bench/reports.mjs --history DIR [--runs 7]');
  process.exit(2);
}
const runs = Number(args.runs ?? 7);
const cli = join(root, 'dist', 'cli.js');
const ccusage = execFileSync(process.execPath, [join(root, 'bench', 'install-peers.mjs')], {
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .pop();
const cache = mkdtempSync(join(tmpdir(), 'cctop-bench-reports-'));
const env = { ...process.env, HOME: args.history, CCTOP_CACHE_DIR: cache, TZ: 'UTC' };

function once(cmd, argv) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { s: Number(process.hrtime.bigint() - t0) / 1e9, out: r.stdout };
}

console.log(`history ${args.history}; warming the index …`);
once(process.execPath, [cli, '--json']);

const cases = {
  node0: [process.execPath, ['-e', '0']],
  'cctop daily': [process.execPath, [cli, 'daily', '--json']],
  'ccusage daily': [ccusage, ['daily', '--json', '--offline']],
  'cctop monthly': [process.execPath, [cli, 'monthly', '--json']],
  'ccusage monthly': [ccusage, ['monthly', '--json', '--offline']],
  'cctop blocks': [process.execPath, [cli, 'blocks', '--json']],
  'ccusage blocks': [ccusage, ['blocks', '--json', '--offline']],
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const last = {};
for (let i = 0; i < runs; i++) {
  for (const [name, [cmd, argv]] of Object.entries(cases)) {
    const r = once(cmd, argv);
    times[name].push(r.s);
    last[name] = r.out;
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
for (const [name, s] of Object.entries(m)) console.log(`${name.padEnd(16)} ${s.toFixed(3)} s`);
for (const r of ['daily', 'monthly', 'blocks'])
  console.log(
    `cctop ${r}: ${(m[`cctop ${r}`] / m[`ccusage ${r}`]).toFixed(2)}× ccusage, ${(m[`cctop ${r}`] / m.node0).toFixed(1)}× node -e 0`,
  );

const ours = JSON.parse(last['cctop daily']).totals;
const theirs = JSON.parse(last['ccusage daily']).totals;
const tokensAgree = ours.totalTokens === theirs.totalTokens;
const costAgrees = Math.abs(ours.cost.usd - theirs.totalCost) < 0.01;
console.log(
  `daily totals: cctop ${ours.totalTokens} tokens $${ours.cost.usd.toFixed(2)}, ccusage ${theirs.totalTokens} tokens $${theirs.totalCost.toFixed(2)} (${tokensAgree && costAgrees ? 'agree' : 'DIFFER'})`,
);
if (!tokensAgree || !costAgrees) process.exitCode = 1;
