#!/usr/bin/env node
// The pty host's memory and CPU per held agent: what `cctop run` costs while agents are held.
//
//   node bench/pty-host.mjs [--dist dist] [--agents 10] [--lines 20000]
//
// Starts a private pty host from `--dist` (this build's by default; another build's to compare),
// holds one agent and then `--agents` agents on it, each a Node script that prints `--lines` coloured
// lines of about 110 bytes at 150×40 and then waits, read by a terminal that stays attached. Once
// all of it has reached the terminals, it prints the host's resident memory (VmRSS, VmHWM) and its
// CPU seconds (user+sys) for each, and the difference per agent beyond the first.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const dist = resolve(arg('dist', 'dist'));
const lines = Number(arg('lines', '20000'));
const { reachHost } = await import(join(dist, 'runtime/pty-client.js'));
const { frame, FrameReader } = await import(join(dist, 'runtime/pty-wire.js'));
const script = `for (let i = 0; i < ${lines}; i++) process.stdout.write('\\x1b[38;2;' + (i % 255) + ';10;200m' + ('line ' + i + ' ').repeat(12) + '\\x1b[0m\\r\\n'); setInterval(() => {}, 1e6);`;

async function measure(n) {
  const root = mkdtempSync(join(tmpdir(), 'cctop-bench-pty-'));
  const env = { ...process.env, CCTOP_RUNTIME_DIR: join(root, 'run') };
  const socks = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const r = await reachHost(env, true);
    if (r.kind !== 'ok') throw new Error(r.why);
    const reader = new FrameReader();
    r.sock.on('data', (c) => {
      for (const f of reader.push(c) ?? []) if (f.type === 'd') bytes += f.body.length;
    });
    r.sock.write(
      frame('S', {
        agent: process.execPath,
        args: ['-e', script],
        cwd: root,
        env: { PATH: process.env.PATH },
        cols: 150,
        rows: 40,
      }),
    );
    socks.push(r.sock);
  }
  const want = n * lines * 110;
  for (let t = 0; t < 1200 && bytes < want; t++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 2000));
  const runs = JSON.parse(readFileSync(join(root, 'run', 'pty-runs.json'), 'utf8'));
  const field = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const host = Number(field(runs[0].pid)[1]);
  const status = readFileSync(`/proc/${host}/status`, 'utf8');
  const mib = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)[1]) / 1024;
  const cpu = field(host);
  const out = {
    agents: n,
    outputMB: bytes / 1e6,
    rssMiB: mib('VmRSS'),
    hwmMiB: mib('VmHWM'),
    cpuS: (Number(cpu[11]) + Number(cpu[12])) / 100,
  };
  for (const r of runs) process.kill(r.pid, 'SIGKILL');
  for (const s of socks) s.destroy();
  await new Promise((r) => setTimeout(r, 500));
  rmSync(root, { recursive: true, force: true });
  return out;
}

const one = await measure(1);
const many = await measure(Number(arg('agents', '10')));
const f = (x) => x.toFixed(2);
for (const m of [one, many])
  console.log(
    `${m.agents} agents: ${f(m.outputMB)} MB drawn; host RSS ${f(m.rssMiB)} MiB (peak ${f(m.hwmMiB)}); host CPU ${f(m.cpuS)} s`,
  );
const extra = many.agents - one.agents;
console.log(
  `per agent beyond the first: ${f((many.rssMiB - one.rssMiB) / extra)} MiB, ${f((many.cpuS - one.cpuS) / extra)} CPU s`,
);
