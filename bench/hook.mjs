#!/usr/bin/env node
// The hook benchmark: what `cctop hook` costs an agent on every event it fires, against the floor of
// any Node command, with and without a running cctop to hand the event to.
//
//   node bench/hook.mjs [--runs 100] [--cli PATH]
//
// Each of `--runs` rounds runs, in turn:
//   node0   `node -e 0`
//   alone   `cctop hook claude PermissionRequest` with no cctop running (journal only)
//   peer    the same with a cctop running: a child process holding a `HookFeed` (the socket and the
//           journal a live cctop listens on), which counts what it receives
//   direct  `node dist/hooks/bin.js claude PermissionRequest` (no cli.js in between), with the peer
// each fed the same payload on stdin (a permission request as Claude Code 2.1.328 wrote it in the
// lab, `lab/fixtures/hooks/claude/approve-stream`). Printed: median, p95 and worst of each, their
// ratios to node0's, the journal's size, and how many events the running cctop received.
// `--cli PATH` runs another build's cli.js.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = { runs: '100' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const runs = Number(args.runs);
const cli = args.cli ?? join(root, 'dist', 'cli.js');
const dist = dirname(cli);
if (!existsSync(join(dist, 'hooks', 'bin.js')))
  throw new Error(`no ${dist}/hooks/bin.js: run npm run build first`);

const payload = JSON.stringify({
  session_id: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
  transcript_path: '/home/dev/.claude/projects/-home-dev-src-app/257ae998-a8d3-4e35-adba-fb73d79f40f9.jsonl',
  cwd: '/home/dev/src/app',
  prompt_id: 'e8c1ea6f-fad2-4f7f-9df4-9398b109ee10',
  permission_mode: 'default',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch lab-approved.txt && echo lab-touched', description: 'Run the lab command' },
  permission_suggestions: [
    {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'touch lab-approved.txt && echo lab-touched' }],
      behavior: 'allow',
      destination: 'localSettings',
    },
    { type: 'addDirectories', directories: ['/home/dev/src/app'], destination: 'session' },
    { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
  ],
});

const home = mkdtempSync(join(tmpdir(), 'cctop-bench-hook-'));
const alone = join(home, 'alone');
const withPeer = join(home, 'with-peer');
const envFor = (dir) => ({ PATH: process.env.PATH ?? '', HOME: home, CCTOP_RUNTIME_DIR: dir });

function timed(argv, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(process.execPath, argv, { env, stdio: ['pipe', 'ignore', 'inherit'] });
    c.stdin.on('error', () => {});
    c.stdin.end(payload);
    c.on('error', reject);
    c.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}`));
      else resolve(ms);
    });
  });
}

/** A running cctop: a child process holding a HookFeed, counting events; `count()` asks it how many. */
async function runningCctop(dir) {
  const feed = pathToFileURL(join(dist, 'hooks', 'feed.js')).href;
  const script = `
    const { HookFeed } = await import(${JSON.stringify(feed)});
    const feed = new HookFeed({ CCTOP_RUNTIME_DIR: ${JSON.stringify(dir)} });
    let n = 0;
    feed.on('event', () => n++);
    await feed.start();
    process.stdout.write('ready ' + (feed.problem ?? 'ok') + '\\n');
    process.stdin.on('data', () => process.stdout.write(n + ' ' + JSON.stringify(feed.stats) + '\\n'));
    process.stdin.on('end', () => feed.stop());
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  const waiters = [];
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const next = () =>
    new Promise((resolve) => (lines.length ? resolve(lines.shift()) : waiters.push(resolve)));
  const ready = await next();
  if (ready !== 'ready ok') throw new Error(`the running cctop did not start: ${ready}`);
  return {
    count: async () => {
      child.stdin.write('?');
      return next();
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.stdin.end();
      }),
  };
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const worst = (xs) => Math.max(...xs);

try {
  const peer = await runningCctop(withPeer);
  const times = { node0: [], alone: [], peer: [], direct: [] };
  // In turn, so that a machine whose speed drifts slows all of them alike.
  for (let i = 0; i < runs; i++) {
    times.node0.push(await timed(['-e', '0'], envFor(alone)));
    times.alone.push(await timed([cli, 'hook', 'claude', 'PermissionRequest'], envFor(alone)));
    times.peer.push(await timed([cli, 'hook', 'claude', 'PermissionRequest'], envFor(withPeer)));
    times.direct.push(
      await timed([join(dist, 'hooks', 'bin.js'), 'claude', 'PermissionRequest'], envFor(withPeer)),
    );
  }
  // Let the last events land before asking.
  await new Promise((r) => setTimeout(r, 200));
  const received = await peer.count();
  await peer.stop();

  console.log(`cli ${cli}; payload ${Buffer.byteLength(payload)} bytes on stdin; ${runs} rounds`);
  const n0 = times.node0;
  console.log('run      median (ms)  p95 (ms)  worst (ms)  median ÷ node  worst ÷ node');
  for (const [name, t] of Object.entries(times))
    console.log(
      `${name.padEnd(8)} ${median(t).toFixed(1).padStart(11)}  ${p95(t).toFixed(1).padStart(8)}  ${worst(t).toFixed(1).padStart(10)}  ${(median(t) / median(n0)).toFixed(2).padStart(13)}  ${(worst(t) / worst(n0)).toFixed(2).padStart(12)}`,
    );
  const journal = (dir) => {
    const p = join(dir, 'hooks.jsonl');
    return existsSync(p)
      ? `${statSync(p).size} bytes, ${readFileSync(p, 'utf8').split('\n').filter(Boolean).length} lines`
      : 'none';
  };
  console.log(`journal alone: ${journal(alone)}; with the peer: ${journal(withPeer)}`);
  console.log(
    `the running cctop received ${received.split(' ')[0]} events of ${2 * runs} sent (stats ${received.split(' ').slice(1).join(' ')})`,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
