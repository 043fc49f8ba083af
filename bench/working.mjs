// An agent at work: the run users make most while an agent writes its transcript.
//
//   node bench/working.mjs --history DIR --base OTHER/dist/cli.js [--head dist/cli.js] [--runs 9]
//
// One Claude transcript of DIR (a history made by bench/gen-history.mjs) gets one more line, a copy of
// its last assistant line with fresh ids and the time of now, just before each `cctop --json`, so every
// run goes through the index: the warm document sees the transcript grow and declines, the index
// patches the one session and writes the patch back. Base and head run in turn, each with its own
// cache, after `node -e 0`; CPU seconds and peak RSS come from /usr/bin/time. The transcript is
// restored to its size afterwards.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
if (!args.history || !args.base)
  throw new Error('usage: node bench/working.mjs --history DIR --base OTHER/dist/cli.js [--runs 9]');
const runs = Number(args.runs ?? 9);
const dir = join(args.history, '.claude', 'projects', '-home-dev-src-project-01');
const file = join(
  dir,
  readdirSync(dir)
    .filter((x) => x.endsWith('.jsonl'))
    .sort()[0],
);
const size = statSync(file).size;
const last = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .reverse()
  .find((l) => l.includes('"assistant"'));
const builds = [
  { name: 'base', cli: args.base },
  { name: 'head', cli: args.head ?? join(root, 'dist', 'cli.js') },
].map((b) => ({ ...b, cache: mkdtempSync(join(tmpdir(), 'cctop-working-')) }));

/** One run: wall seconds, CPU seconds (user + system) and peak RSS (MiB). */
function timed(b, argv) {
  const env = { ...process.env, HOME: args.history, CCTOP_CACHE_DIR: b.cache, TZ: 'UTC' };
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', ...argv], { env, maxBuffer: 1 << 30 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [user, sys, kb] = r.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys, rss: kb / 1024 };
}

let k = 0;
/** The agent writes one more line. */
function write() {
  const o = JSON.parse(last);
  const tag = `working${Date.now()}${k++}`;
  if (o.message?.id) o.message.id += tag;
  if (o.requestId) o.requestId += tag;
  if (o.uuid) o.uuid = `${o.uuid.slice(0, 20)}${tag}`.slice(0, 36);
  o.timestamp = new Date().toISOString();
  appendFileSync(file, `${JSON.stringify(o)}\n`);
}

const results = { 'node -e 0': [], base: [], head: [] };
try {
  // Written a moment ago before the first answer is kept, as an agent's transcript is.
  write();
  for (const b of builds) timed(b, [process.execPath, b.cli, '--json']);
  for (let i = 0; i < runs; i++) {
    results['node -e 0'].push(timed(builds[0], [process.execPath, '-e', '0']));
    for (const b of builds) {
      write();
      results[b.name].push(timed(b, [process.execPath, b.cli, '--json']));
    }
  }
} finally {
  truncateSync(file, size);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(results['node -e 0'].map((r) => r.wall));
console.log(`history ${args.history}: one line written to ${file} before each run; ${runs} rounds`);
for (const [name, rs] of Object.entries(results)) {
  const wall = median(rs.map((r) => r.wall));
  console.log(
    `${name.padEnd(10)} wall ${wall.toFixed(3)} s (${(wall / floor).toFixed(2)}× node -e 0)  CPU ${median(rs.map((r) => r.cpu)).toFixed(3)} s  peak ${Math.max(...rs.map((r) => r.rss)).toFixed(0)} MiB`,
  );
}
