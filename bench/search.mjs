#!/usr/bin/env node
// The search benchmark: the full-text index over a history's conversations, in one run.
//
//   node bench/search.mjs --history DIR [--runs 7]
//
// Without --history (or when DIR has no manifest.json) a 1,200 MiB history is built first with
// bench/gen-history.mjs in a temporary directory, and removed at the end. Measures:
//   size      the search index (search.sqlite) against the transcripts' bytes (target: at most 1/4)
//   build     `cctop search --wait WORD` on an empty search index (the session index already warm:
//             `cctop --json` runs first, untimed), with its peak memory
//   node0     `node -e 0`, the floor of any Node command, run in turn with the queries
//   rare, common, the, phrase
//             `cctop search …` with nothing changed (target: each at most 2× node0)
//   full      the rare query when a minute has passed since the last search stat'ed every
//             transcript (FULL_LOOK_MS: between such looks a search stats only the newest 512)
//   appended  `cctop search` after appending 1 MiB to each of ten transcripts (a person's message
//             with a word of its own, then lines of the file's own head with fresh ids); `extra` is
//             what that costs over a warm query. Checks that the word is found in all ten sessions.
//             The ten are the sessions being worked on: their files are made the newest first.
// The files are restored (truncated back) afterwards, and the cache directory removed.
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
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const runs = Number(args.runs ?? 7);
const cli = join(root, 'dist', 'cli.js');
const QUERIES = {
  rare: ['hydrates'],
  common: ['file'],
  the: ['the'],
  phrase: ['"paths with parentheses"'],
};

let history = args.history;
let madeHistory = false;
if (!history || !existsSync(join(history, 'manifest.json'))) {
  history = history ?? mkdtempSync(join(tmpdir(), 'cctop-history-'));
  madeHistory = args.history === undefined;
  const gen = join(root, 'bench', 'gen-history.mjs');
  console.log(`building a ${args.mb ?? 1200} MiB history in ${history} …`);
  execFileSync(process.execPath, [gen, '--out', history, '--mb', String(args.mb ?? 1200)], {
    stdio: 'inherit',
  });
}

function transcripts(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== '.cache') out.push(...transcripts(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
const files = transcripts(history);
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
const cache = mkdtempSync(join(tmpdir(), 'cctop-search-cache-'));
const env = { ...process.env, HOME: history, CCTOP_CACHE_DIR: cache, TZ: 'UTC' };

/** Run a command: wall seconds, peak RSS (MiB, sampled from /proc) and stdout. */
function timed(cmd, argv) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    let peak = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {}
    }, 5);
    child.on('exit', (code) => {
      clearInterval(poll);
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) reject(new Error(`${cmd} ${argv.join(' ')} exited ${code}`));
      else resolve({ wall, peak, out });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const search = (q, more = []) => timed(process.execPath, [cli, 'search', ...q, '--json', ...more]);
const fmt = (xs) => xs.map((x) => x.toFixed(3)).join(' ');

// Ten Claude transcripts grow by 1 MiB each: a message with a word of its own, then head lines.
const grown = files
  .filter((f) => f.includes('/.claude/'))
  .slice(0, 10)
  .map((f) => ({ f, size: statSync(f).size }));
const now = Date.now() / 1000;
for (const { f } of grown) utimesSync(f, now, now);

/** Make the next search stat every transcript, as the first one a minute after the last would. */
const Database = createRequire(join(root, 'package.json'))('better-sqlite3');
function forgetFullLook() {
  const db = new Database(join(cache, 'search.sqlite'));
  db.prepare("DELETE FROM meta WHERE key = 'looked'").run();
  db.close();
}
function append(word) {
  for (const { f } of grown) {
    const lines = readFileSync(f, 'utf8').split('\n').slice(0, 400).filter(Boolean);
    const first = JSON.parse(lines[0]);
    const user = {
      type: 'user',
      sessionId: first.sessionId ?? basename(f, '.jsonl'),
      cwd: first.cwd,
      uuid: `bench-${Date.now()}`,
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: `please look at the ${word} in this session` },
    };
    let add = `${JSON.stringify(user)}\n`;
    for (let k = 0; Buffer.byteLength(add) < 1 << 20; k++) {
      const o = JSON.parse(lines[k % lines.length]);
      const tag = `bench${Date.now()}${k}`;
      if (o.message?.id) o.message.id += tag;
      if (o.requestId) o.requestId += tag;
      if (o.uuid) o.uuid = `${o.uuid.slice(0, 20)}${tag}`.slice(0, 36);
      add += `${JSON.stringify(o)}\n`;
    }
    appendFileSync(f, add);
  }
}
const restore = () => {
  for (const { f, size } of grown) truncateSync(f, size);
};

console.log(`history: ${files.length} files, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${history}`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
);
try {
  const listing = await timed(process.execPath, [cli, '--json']);
  console.log(`session index (cctop --json, untimed warm-up): ${listing.wall.toFixed(2)} s`);
  const build = await search(QUERIES.rare, ['--wait']);
  const dbBytes = ['', '-wal'].reduce(
    (n, s) => n + (statSync(join(cache, `search.sqlite${s}`), { throwIfNoEntry: false })?.size ?? 0),
    0,
  );
  console.log(`build: ${build.wall.toFixed(2)} s, peak RSS ${build.peak.toFixed(0)} MiB`);
  console.log(
    `size: ${(dbBytes / 2 ** 20).toFixed(1)} MiB for ${(bytes / 2 ** 20).toFixed(0)} MiB of transcripts = ${((100 * dbBytes) / bytes).toFixed(1)}% (target ≤ 25%)`,
  );
  await search(QUERIES.rare); // one look after the build, so the runs below find nothing to read

  const walls = { node0: [] };
  for (const k of Object.keys(QUERIES)) walls[k] = [];
  walls.full = [];
  const found = {};
  for (let i = 0; i < runs; i++) {
    walls.node0.push((await timed(process.execPath, ['-e', '0'])).wall);
    for (const [k, q] of Object.entries(QUERIES)) {
      const r = await search(q);
      walls[k].push(r.wall);
      const doc = JSON.parse(r.out);
      found[k] = { results: doc.results.length, behind: doc.behind };
    }
    forgetFullLook();
    walls.full.push((await search(QUERIES.rare)).wall);
  }
  const node0 = median(walls.node0);
  console.log('');
  console.log('| run | median (s) | ÷ node -e 0 | runs | results |');
  console.log('| --- | ---: | ---: | --- | ---: |');
  for (const [k, w] of Object.entries(walls))
    console.log(
      `| ${k} | ${median(w).toFixed(3)} | ${(median(w) / node0).toFixed(2)} | ${fmt(w)} | ${found[k]?.results ?? ''} |`,
    );

  const appended = [];
  const appendedNode0 = [];
  const warmAgain = [];
  let hits = null;
  for (let i = 0; i < Math.min(runs, 5); i++) {
    restore();
    await search(QUERIES.rare); // the restored files read again: the index matches them
    warmAgain.push((await search(QUERIES.rare)).wall);
    const word = `benchword${i}x${Date.now().toString(36)}`;
    append(word);
    appendedNode0.push((await timed(process.execPath, ['-e', '0'])).wall);
    const r = await search([word]);
    appended.push(r.wall);
    const doc = JSON.parse(r.out);
    hits = { sessions: new Set(doc.results.map((h) => h.session)).size, behind: doc.behind };
  }
  restore();
  const extra = median(appended) - median(warmAgain);
  console.log('');
  console.log(
    `appended (10 × 1 MiB): median ${median(appended).toFixed(3)} s (runs ${fmt(appended)}), warm ${median(warmAgain).toFixed(3)} s, extra ${extra.toFixed(3)} s; node -e 0 ${median(appendedNode0).toFixed(3)} s`,
  );
  console.log(
    `the appended word is found in ${hits?.sessions} of 10 sessions; behind: ${JSON.stringify(hits?.behind)}`,
  );
} finally {
  restore();
  rmSync(cache, { recursive: true, force: true });
  if (madeHistory) rmSync(history, { recursive: true, force: true });
}
