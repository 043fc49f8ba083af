#!/usr/bin/env node
// The Copilot OpenTelemetry export benchmark: what one long-lived export costs a cold `cctop --json`,
// against the native ccusage reading the same home in the same command.
//
//   node bench/copilot-otel.mjs [--mb 50] [--sessions 50] [--runs 3] [--cli PATH]
//
// It builds a home in a temporary folder whose only Copilot data is one export of about `--mb` MB
// (the recorded export `lab/fixtures/sources/copilot/home/.copilot/otel/copilot-otel-4.jsonl`,
// repeated with `--sessions` session ids and fresh response ids), then prints, per run, the time to
// read its bytes (the floor), `cctop --json --provider copilot --no-cache` (every session of the
// export from cold), and `ccusage copilot session --json --offline` when `npm run peers` installed
// it, with the ratio; and the sessions and tokens each found, which must agree.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = new URL('..', import.meta.url).pathname;
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const MB = Number(arg('mb', '50'));
const SESSIONS = Number(arg('sessions', '50'));
const RUNS = Number(arg('runs', '3'));
const CLI = arg('cli', join(REPO, 'dist', 'cli.js'));
const PEER = join(
  REPO,
  '.peers',
  'node_modules',
  '@ccusage',
  `ccusage-${process.platform}-${process.arch}`,
  'bin',
  'ccusage',
);

const RECORDED = join(
  REPO,
  'lab',
  'fixtures',
  'sources',
  'copilot',
  'home',
  '.copilot',
  'otel',
  'copilot-otel-4.jsonl',
);
const RECORDED_ID = 'e284c345-bfd9-4cab-a4ee-8bd88ab0188d';

const home = mkdtempSync(join(tmpdir(), 'cctop-bench-otel-'));
const otel = join(home, '.copilot', 'otel');
mkdirSync(otel, { recursive: true });
const lines = readFileSync(RECORDED, 'utf8')
  .split('\n')
  .filter((l) => l.length > 0);
const path = join(otel, 'long-lived.jsonl');
const fd = openSync(path, 'w');
let bytes = 0;
for (let i = 0; bytes < MB * 1e6; i++) {
  const id = `bench-${String(i % SESSIONS).padStart(4, '0')}-0000-4000-8000-000000000000`;
  for (const l of lines) {
    const out = `${l.replaceAll(RECORDED_ID, id).replaceAll('lab_chat_', `r${i}_`)}\n`;
    bytes += Buffer.byteLength(out);
    writeSync(fd, out);
  }
}
closeSync(fd);

const env = { PATH: process.env.PATH ?? '', HOME: home, TZ: 'UTC', CCTOP_CACHE_DIR: join(home, 'cache') };
const timed = (f) => {
  const t = performance.now();
  const v = f();
  return [performance.now() - t, v];
};
const sum = (xs, k) => xs.reduce((n, x) => n + (x[k] ?? 0), 0);

console.log(`export: ${path}, ${(bytes / 1e6).toFixed(1)} MB, ${SESSIONS} sessions`);
for (let run = 1; run <= RUNS; run++) {
  const [floor] = timed(() => readFileSync(path));
  const [ours, doc] = timed(() =>
    JSON.parse(
      execFileSync(process.execPath, [CLI, '--json', '--provider', 'copilot', '--no-cache'], {
        env,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      }),
    ),
  );
  const line = [`run ${run}: read ${floor.toFixed(0)} ms`, `cctop ${ours.toFixed(0)} ms`];
  const oursTokens = doc.sessions.reduce(
    (n, s) => n + s.tokens.input + s.tokens.output + (s.tokens.cacheRead ?? 0),
    0,
  );
  if (existsSync(PEER)) {
    const [peer, report] = timed(() =>
      JSON.parse(
        execFileSync(PEER, ['copilot', 'session', '--json', '--offline'], {
          env,
          encoding: 'utf8',
          maxBuffer: 1 << 28,
        }),
      ),
    );
    const s = report.sessions;
    const peerTokens = sum(s, 'inputTokens') + sum(s, 'outputTokens') + sum(s, 'cacheReadTokens');
    line.push(`ccusage ${peer.toFixed(0)} ms`, `cctop/ccusage ${(ours / peer).toFixed(2)}`);
    line.push(`sessions ${doc.sessions.length}/${s.length}, tokens ${oursTokens}/${peerTokens}`);
  } else line.push(`sessions ${doc.sessions.length}, tokens ${oursTokens} (no ccusage: npm run peers)`);
  console.log(line.join(', '));
}
rmSync(home, { recursive: true, force: true });
