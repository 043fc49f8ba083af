#!/usr/bin/env node
// The scan benchmark: cctop against the native ccusage binary on the same history, in one run.
//
//   npm run bench -- --history DIR [--runs 3] [--mb 1200] [--small DIR] [--cli OTHER/dist/cli.js]
//                    [--only appended]
//
// Without --history (or when DIR is empty) a history is built first with
// bench/gen-history.mjs. Times, in order, each several runs with the median reported:
//   cat        reading every byte once (the floor)
//   ccusage    `ccusage session --json --offline` (native binary, installed by `npm run peers`)
//   cold       `cctop --json --no-cache` (every file parsed, index untouched)
//   build      `cctop --json` on an empty index (parse everything and store it)
//   node0      `node -e 0`, the floor of any Node command (run in turn with the warm runs)
//   warm       `cctop --json` with nothing changed
//   list       `cctop --list` with nothing changed
//   appended   `cctop --json` after appending 1 MB to each of ten transcripts (restored afterwards),
//              beside the floor of any Node reader there: the appended lines read and `JSON.parse`d
//              in a process that does nothing else (`bench/floor-read.mjs tail`)
// and the peak memory (RSS) of each. Prints ratios against ccusage (cold) and against `node -e 0`
// (warm, list, appended), and checks that cold, warm and appended runs agree with each other and
// with ccusage on tokens. With `--small DIR` (a smaller history, e.g. `gen-history.mjs --mb 200`),
// also times a warm run there, in turn with the warm run here: a warm run's cost should grow with
// what changed, not with the size of the history. With `--only appended`, only the index is built
// and the appended case timed (with the cold read of the appended files it is checked against).
// Each run's CPU seconds (user + system, from /usr/bin/time when present) are printed beside its
// wall time: on a shared machine they move less with the load.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const runs = Number(args.runs ?? 3);
// `--cli PATH`: another build's cli.js (an A/B against the commit before, run in the same sitting).
const cli = args.cli ?? join(root, 'dist', 'cli.js');

let history = args.history;
if (!history || !existsSync(join(history, 'manifest.json'))) {
  history = history ?? mkdtempSync(join(tmpdir(), 'cctop-history-'));
  const gen = join(root, 'bench', 'gen-history.mjs');
  console.log(`building a ${args.mb ?? 1200} MiB history in ${history} …`);
  execFileSync(process.execPath, [gen, '--out', history, '--mb', String(args.mb ?? 1200)], {
    stdio: 'inherit',
  });
}
const ccusage = execFileSync(process.execPath, [join(root, 'bench', 'install-peers.mjs')], {
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .pop();

function transcripts(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...transcripts(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
const files = transcripts(history);
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
const cache = mkdtempSync(join(tmpdir(), 'cctop-bench-cache-'));
const env = { ...process.env, HOME: history, CCTOP_CACHE_DIR: cache, TZ: 'UTC' };
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const only = args.only ?? null;
if (only !== null && only !== 'appended') throw new Error('--only takes one case: appended');

/** Run a command, returning wall seconds, peak RSS (MiB, sampled from /proc) and stdout. */
function timed(cmd, argv, { stdout = false, env: childEnv = env } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const usage = gnuTime ? `${cache}.time` : null;
    const child = usage
      ? spawn(gnuTime, ['-f', '%U %S %M', '-o', usage, cmd, ...argv], {
          env: childEnv,
          stdio: ['ignore', stdout ? 'pipe' : 'ignore', 'inherit'],
        })
      : spawn(cmd, argv, { env: childEnv, stdio: ['ignore', stdout ? 'pipe' : 'ignore', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    let peak = 0;
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {}
    };
    const poll = setInterval(sample, 5);
    child.on('exit', (code) => {
      clearInterval(poll);
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      // /usr/bin/time's own figures: the child's CPU and its peak RSS (the sampler sees only `time`).
      let cpu = null;
      if (usage) {
        const [user, sys, maxKb] = readFileSync(usage, 'utf8')
          .trim()
          .split('\n')
          .pop()
          .split(' ')
          .map(Number);
        cpu = user + sys;
        peak = Math.max(peak, maxKb / 1024);
        rmSync(usage, { force: true });
      }
      if (code !== 0) reject(new Error(`${cmd} ${argv.join(' ')} exited ${code}`));
      else resolve({ wall, cpu, peak, out });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Several commands run in turn, `runs` rounds: on a shared machine whose speed drifts by a third
 * within an hour, only figures taken side by side can be divided by each other.
 */
async function inTurn(list) {
  const walls = Object.fromEntries(list.map((c) => [c.name, []]));
  const cpus = Object.fromEntries(list.map((c) => [c.name, []]));
  const peaks = Object.fromEntries(list.map((c) => [c.name, 0]));
  const outs = {};
  for (let i = 0; i < runs; i++) {
    for (const c of list) {
      const r = await timed(c.cmd, c.argv, { stdout: true, env: c.env });
      walls[c.name].push(r.wall);
      cpus[c.name].push(r.cpu);
      peaks[c.name] = Math.max(peaks[c.name], r.peak);
      outs[c.name] = r.out;
    }
  }
  for (const c of list) report(c.name, walls[c.name], cpus[c.name], peaks[c.name], outs[c.name]);
}
/** A case's figures kept and printed: median wall and CPU seconds, each run's, the peak RSS. */
function report(name, walls, cpu, peak, out) {
  const known = cpu.every((x) => x !== null);
  results[name] = { wall: median(walls), walls, cpu: known ? median(cpu) : null, peak, out };
  const cpuText = known
    ? `  CPU median ${median(cpu).toFixed(3)} s (${cpu.map((x) => x.toFixed(2)).join(' ')})`
    : '';
  console.log(
    `${name.padEnd(9)} median ${median(walls).toFixed(3)} s  runs ${walls.map((x) => x.toFixed(2)).join(' ')}${cpuText}  peak RSS ${peak.toFixed(0)} MiB`,
  );
}
const results = {};
async function measure(name, cmd, argv, before) {
  const walls = [];
  const cpu = [];
  const peaks = [];
  let out = '';
  for (let i = 0; i < runs; i++) {
    if (before) await before();
    const r = await timed(cmd, argv, { stdout: true });
    walls.push(r.wall);
    cpu.push(r.cpu);
    peaks.push(r.peak);
    out = r.out;
  }
  report(name, walls, cpu, Math.max(...peaks), out);
}

// Ten transcripts grow by 1 MiB each: lines of each file's own head, with fresh ids so they count.
const grown = files
  .filter((f) => f.includes('/.claude/'))
  .slice(0, 10)
  .map((f) => ({ f, size: statSync(f).size }));
function appendMegabyte() {
  for (const { f } of grown) {
    const head = readFileSync(f, 'utf8').split('\n').slice(0, 400).filter(Boolean);
    let add = '';
    let k = 0;
    while (Buffer.byteLength(add) < 1 << 20) {
      const o = JSON.parse(head[k++ % head.length]);
      const tag = `bench${Date.now()}${k}`;
      if (o.message?.id) o.message.id += tag;
      if (o.requestId) o.requestId += tag;
      if (o.uuid) o.uuid = `${o.uuid.slice(0, 20)}${tag}`.slice(0, 36);
      add += `${JSON.stringify(o)}\n`;
    }
    appendFileSync(f, add);
  }
}
// An agent's transcript that grows was written to a moment ago: the warm answers watch such files
// for growth (`GROWING_MS`), and find an append to an older one only at their next sweep. The ten
// are made recent before anything is timed, as an agent at work would have left them.
for (const { f } of grown) utimesSync(f, new Date(), new Date());
const restore = () => {
  for (const { f, size } of grown) truncateSync(f, size);
};

console.log(`history: ${files.length} files, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${history}`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
);
try {
  if (only === 'appended')
    await timed(process.execPath, [cli, '--json']); // the index, built once
  else await everyCase();
  const appendedNode0 = [];
  const appendedNode0Cpu = [];
  const parsedOnly = [];
  await measure('appended', process.execPath, [cli, '--json'], async () => {
    restore();
    await timed(process.execPath, [cli, '--json']); // index matches the restored files
    appendMegabyte();
    const floor = await timed(process.execPath, ['-e', '0']);
    appendedNode0.push(floor.wall);
    appendedNode0Cpu.push(floor.cpu);
    // The least any Node reader does here: read the appended bytes and JSON.parse each line.
    const tails = grown.flatMap(({ f, size }) => [f, String(size)]);
    parsedOnly.push(await timed(process.execPath, [join(root, 'bench', 'floor-read.mjs'), 'tail', ...tails]));
  });
  const afterAppend = results.appended.out;
  // A cold read of the very files the last appended run answered for (still appended).
  const coldAppended = (await timed(process.execPath, [cli, '--json', '--no-cache'], { stdout: true })).out;
  restore();
  const coldAfter =
    only === null
      ? (await timed(process.execPath, [cli, '--json', '--no-cache'], { stdout: true })).out
      : null;

  const strip = (s) => {
    const d = JSON.parse(s);
    d.generatedAt = '';
    for (const x of d.sessions) x.deleted = false;
    return JSON.stringify(d.sessions.map((x) => [x.id, x.tokens, x.cost.usd]));
  };
  const sameAppended = strip(afterAppend) === strip(coldAppended);
  // The whole document, byte for byte but for the moment it was made.
  const bare = (s) => s.replace(/"generatedAt":\s*"[^"]*"/, '"generatedAt":""');
  const identical = bare(afterAppend) === bare(coldAppended);
  if (only === null) compare(strip, coldAfter);

  console.log('');
  console.log(
    '| run | median (s) | ÷ ccusage | ÷ node -e 0 | CPU median (s) | CPU ÷ node -e 0 | peak RSS (MiB) |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const floor = { appended: median(appendedNode0) };
  const floorCpu = { appended: appendedNode0Cpu.every((x) => x !== null) ? median(appendedNode0Cpu) : null };
  const fixed = (x, n) => (x === null || x === undefined || !Number.isFinite(x) ? '─' : x.toFixed(n));
  for (const [name, r] of Object.entries(results)) {
    const node0 = floor[name] ?? results.node0?.wall ?? null;
    const node0Cpu = name in floorCpu ? floorCpu[name] : (results.node0?.cpu ?? null);
    const ratio = (a, b) => (a === null || b === null ? null : a / b);
    console.log(
      `| ${name} | ${r.wall.toFixed(3)} | ${fixed(ratio(r.wall, results.ccusage?.wall ?? null), 2)} | ${fixed(ratio(r.wall, node0), 2)} | ${fixed(r.cpu, 3)} | ${fixed(ratio(r.cpu, node0Cpu), 2)} | ${r.peak.toFixed(0)} |`,
    );
  }
  console.log(
    `node -e 0 before each appended run: median ${median(appendedNode0).toFixed(3)} s, CPU ${fixed(floorCpu.appended, 3)} s`,
  );
  const parsedWall = median(parsedOnly.map((r) => r.wall));
  console.log(
    `the appended lines read and JSON.parse'd, nothing else (bench/floor-read.mjs tail): median ${parsedWall.toFixed(3)} s (${(parsedWall / median(appendedNode0)).toFixed(2)}× node -e 0), CPU ${fixed(median(parsedOnly.map((r) => r.cpu)), 3)} s`,
  );
  if (results['warm-small'])
    console.log(
      `warm on this history ÷ warm on ${args.small}: ${(results.warm.wall / results['warm-small'].wall).toFixed(2)}`,
    );
  console.log('');
  console.log(`appended (index) = appended (cold): ${sameAppended}`);
  console.log(`appended (index) = appended (cold), the whole document bar generatedAt: ${identical}`);
  if (only === null) tokensAgainstCcusage();
} finally {
  restore();
  rmSync(cache, { recursive: true, force: true });
}

/** Every case but the appended one: the floor, the peer, cold, a build, warm runs. */
async function everyCase() {
  await measure('cat', 'sh', ['-c', `find '${history}' -name '*.jsonl' -print0 | xargs -0 cat > /dev/null`]);
  await measure('ccusage', ccusage, ['session', '--json', '--offline']);
  await measure('cold', process.execPath, [cli, '--json', '--no-cache']);
  await measure('build', process.execPath, [cli, '--json'], () =>
    rmSync(cache, { recursive: true, force: true }),
  );
  const small = args.small;
  const smallEnv = small
    ? { ...env, HOME: small, CCTOP_CACHE_DIR: mkdtempSync(join(tmpdir(), 'cctop-bench-small-')) }
    : null;
  if (smallEnv) await timed(process.execPath, [cli, '--json'], { env: smallEnv });
  await timed(process.execPath, [cli, '--list']);
  await inTurn([
    { name: 'node0', cmd: process.execPath, argv: ['-e', '0'] },
    { name: 'warm', cmd: process.execPath, argv: [cli, '--json'] },
    { name: 'list', cmd: process.execPath, argv: [cli, '--list'] },
    ...(smallEnv
      ? [{ name: 'warm-small', cmd: process.execPath, argv: [cli, '--json'], env: smallEnv }]
      : []),
  ]);
  if (smallEnv) rmSync(smallEnv.CCTOP_CACHE_DIR, { recursive: true, force: true });
}

/** Cold, warm and cold after the appends were undone agree session by session. */
function compare(strip, coldAfter) {
  const same =
    strip(results.cold.out) === strip(results.warm.out) && strip(results.cold.out) === strip(coldAfter);
  console.log(`cold = warm = cold after restore (tokens and cost per session): ${same}`);
}

/** Both tools count the same tokens per harness. */
function tokensAgainstCcusage() {
  const tokens = (doc, p) =>
    doc.sessions
      .filter((s) => s.provider === p)
      .reduce(
        (n, s) =>
          n +
          (s.tokens.input ?? 0) +
          (s.tokens.output ?? 0) +
          (s.tokens.cacheRead ?? 0) +
          (s.tokens.cacheWrite ?? 0),
        0,
      );
  const peer = JSON.parse(results.ccusage.out).session;
  const peerTokens = (p) =>
    peer
      .filter((s) => s.agent === p)
      .reduce((n, s) => n + s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheCreationTokens, 0);
  const doc = JSON.parse(results.cold.out);
  for (const p of ['claude', 'codex'])
    console.log(
      `${p} tokens: cctop ${tokens(doc, p)} ccusage ${peerTokens(p)} ${tokens(doc, p) === peerTokens(p) ? 'equal' : 'DIFFERENT'}`,
    );
}
