#!/usr/bin/env node
// The team store's load test (issue 20, docs/scale.md): simulated developers pushing to one
// PostgreSQL with cctop's own batch writer (dist/store/upsert.js `upsertBatch`, the code `cctop push`
// runs), in one run, against a cluster this script makes and removes.
//
//   npm run build && node bench/team-load.mjs [--developers 100] [--sessions 50] [--minutes 10]
//     [--days 30] [--pool 10] [--baseline plain|none] [--explain [--budgets 20]] [--fsync on|off] [--seed 1]
//
// What is simulated, per developer (one database role in cctop_pusher, pushing from one machine):
//   history   --sessions sessions spread over the last --days days (a few projects, harnesses and
//             models; tokens and cost shaped like Claude Code's and Codex's), and the spend rows
//             they make (day × harness × model × project), as the ledger would give them. 0 to 4
//             of today's sessions are running (1.6 on average).
//   first     the first push: every row of the history, cut into batches of MAX_PUSH_BATCH_ROWS.
//   minutes   --minutes simulated minutes, back to back (no real waiting): each minute every
//             developer pushes what changed: each running session (more requests, tokens, cost,
//             last activity, state) and today's spend rows those sessions touched. Now and then a
//             session ends (pushed once more, as idle) or a new one starts. As push.ts does, a
//             developer with nothing changed does not connect, but for a heartbeat of its pushers
//             row once in PUSH_HEARTBEAT_MS.
// Each push sends what dist/store/push.js sends: it connects as its developer with connectStore
// (SCRAM password over TCP), checks the schema (`checkSchema`) and, after the first push, that the
// store has its pushers row, writes its batches with `upsertBatch`, and disconnects. At most --pool
// pushes run at once. Each minute's batches are also upserted again on kept connections (one per
// developer, opened once): what a pusher that kept its connection would cost.
//
// Baselines in the same run, printed in the same table:
//   plain     the same batches written by plain INSERTs (no ON CONFLICT, no primary key: an
//             append-only log, with the same row-level security) into tables of their own, in the
//             same pool (first push: new connections; minutes: kept ones); --baseline none skips it.
//   connect   connect as a developer + `SELECT 1` + disconnect: the floor of any push.
//   node0     `node -e 0`: what a one-shot `cctop push` pays to start before any of this.
// Reports rows per second, latency per push (p50/p95/max, and the connect share), the server's CPU
// (the postmaster and its children from /proc), WAL written, the database and per-table sizes after
// the first push and at the end, and with --explain the dashboard's queries under EXPLAIN ANALYZE.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
if (!existsSync(join(dist, 'store', 'upsert.js')))
  throw new Error('no dist/store/upsert.js: run npm run build first');
const { upsertBatch, MAX_PUSH_BATCH_ROWS } = await import(
  pathToFileURL(join(dist, 'store', 'upsert.js')).href
);
const { migrate, checkSchema } = await import(pathToFileURL(join(dist, 'store', 'migrate.js')).href);
const { ROLES } = await import(pathToFileURL(join(dist, 'store', 'schema.js')).href);
const { connectStore } = await import(pathToFileURL(join(dist, 'store', 'connect.js')).href);
const { PUSH_HEARTBEAT_MS } = await import(pathToFileURL(join(dist, 'store', 'push.js')).href);
const pg = createRequire(join(root, 'package.json'))('pg');

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) continue;
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
  else args[a.slice(2)] = process.argv[++i];
}
const positive = (name, fallback) => {
  const v = Number(args[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} wants a whole number of at least 1`);
  return v;
};
const DEVELOPERS = positive('developers', 100);
const SESSIONS = positive('sessions', 50);
const MINUTES = positive('minutes', 10);
const DAYS = positive('days', 30);
const POOL = positive('pool', 10);
const SEED = positive('seed', 1);
const BASELINE = args.baseline ?? 'plain';
const FSYNC = args.fsync ?? 'on';
const EXPLAIN = args.explain === true;
const BUDGETS = Number(args.budgets ?? 20);
if (!['plain', 'none'].includes(BASELINE)) throw new Error('--baseline is plain or none');
if (!['on', 'off'].includes(FSYNC)) throw new Error('--fsync is on or off');

// ── the cluster ─────────────────────────────────────────────────────────────────────────────────
// Made the way src/test-support/postgres.ts makes the tests' (that file is not in dist/): initdb into
// a temp directory, the server on a free loopback port, SCRAM passwords over TCP; as the `postgres`
// user through setpriv when run as root (PostgreSQL refuses root). Left at PostgreSQL's defaults
// (shared_buffers 128 MB, fsync on unless --fsync off) but for max_connections, so that the figures
// are an untuned server's.

function serverBin() {
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base)
    ? readdirSync(base)
        .filter((v) => /^\d+$/.test(v) && existsSync(join(base, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0)
    throw new Error('no PostgreSQL server (/usr/lib/postgresql/*/bin): apt-get install postgresql');
  return { bin: join(base, majors[0], 'bin'), major: majors[0] };
}
const { bin: BIN, major: PG_MAJOR } = serverBin();
const AS_ROOT = process.getuid?.() === 0;
const ADMIN = 'cctop_admin';
const READER = 'dashboard';
/**
 * Every developer role has one password, given as PGPASSWORD in the environment as a user's pusher
 * would have it: connectStore's own `password` option is overridden by the URL's empty one in pg
 * 8.23, so pg reads process.env.PGPASSWORD (or ~/.pgpass), as it does for a spawned `cctop push`.
 */
const DEVELOPER_PASSWORD = 'pw-developer';
const passwordOf = (role) => (role.startsWith('dev') ? DEVELOPER_PASSWORD : `pw-${role}`);
process.env.PGPASSWORD = DEVELOPER_PASSWORD;
const asOwner = (argv) =>
  AS_ROOT
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', ...argv]]
    : [argv[0], argv.slice(1)];

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'cctop-team-load-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'admin-password');
  writeFileSync(pwfile, `${passwordOf(ADMIN)}\n`, { mode: 0o600 });
  if (AS_ROOT) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
    chownSync(dir, id('-u'), id('-g'));
    chownSync(pwfile, id('-u'), id('-g'));
    chmodSync(dir, 0o700);
  }
  const [icmd, iargs] = asOwner([
    join(BIN, 'initdb'),
    '-D',
    data,
    '-U',
    ADMIN,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  const init = spawnSync(icmd, iargs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const [cmd, argv] = asOwner([
    join(BIN, 'postgres'),
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    // One kept connection per developer, the pool's new ones, and a few for the bench itself.
    `max_connections=${Math.max(100, DEVELOPERS + POOL + 20)}`,
    '-c',
    `fsync=${FSYNC}`,
  ]);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`postgres did not start: ${log}`)), 30_000);
    child.stderr.on('data', (b) => {
      log += b.toString();
      if (log.includes('ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code}): ${log}`));
    });
  });
  // setpriv execs postgres itself, so the child's pid is the postmaster's.
  const stop = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { port, pid: child.pid, stop };
}

// ── measuring ───────────────────────────────────────────────────────────────────────────────────

const TICK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/** utime, stime, cutime, cstime of a pid in seconds, and its parent, from /proc (null once it is gone). */
function procTimes(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return {
      ppid: Number(f[1]),
      own: (Number(f[11]) + Number(f[12])) / TICK,
      reaped: (Number(f[13]) + Number(f[14])) / TICK,
    };
  } catch {
    return null;
  }
}

/**
 * CPU seconds the server has used: the postmaster's own and its reaped children's (backends that
 * ended: one per push here) plus the live children's (checkpointer, autovacuum, open backends).
 */
function serverCpu(pid) {
  const main = procTimes(pid);
  if (main === null) return null;
  let total = main.own + main.reaped;
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const t = procTimes(Number(e));
    if (t !== null && t.ppid === pid) total += t.own;
  }
  return total;
}

const clientCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const ms = () => Number(process.hrtime.bigint()) / 1e6;
/** Nearest-rank percentile. */
const pct = (xs, p) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};

// ── the simulated developers ────────────────────────────────────────────────────────────────────

/** A small seeded generator (mulberry32), so two runs with one --seed push the same rows. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (r, xs) => xs[Math.floor(r() * xs.length)];
const between = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
const hex = (r, n) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
const uuid = (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;

/**
 * Each harness's models with price per million tokens (input, output, cache read, cache write) and
 * the tokens one request adds, shaped like real transcripts (a Claude Code request reads its whole
 * context from the cache; Codex reports reasoning, Claude does not). A null price is a model with no
 * known price: its cost is null and its tokens are unpriced, never $0.
 */
const HARNESSES = [
  {
    id: 'claude',
    weight: 0.65,
    models: [
      { id: 'claude-sonnet-4-5', price: [3, 15, 0.3, 3.75], weight: 0.7 },
      { id: 'claude-opus-4-1', price: [15, 75, 1.5, 18.75], weight: 0.3 },
    ],
    // Sub-agents and titles run on a small model: a second spend row on many days.
    side: { id: 'claude-haiku-4-5', price: [1, 5, 0.1, 1.25] },
    perRequest: { input: 40, output: 700, cacheRead: 55_000, cacheWrite: 2_500, reasoning: null },
  },
  {
    id: 'codex',
    weight: 0.27,
    models: [
      { id: 'gpt-5-codex', price: [1.25, 10, 0.125, null], weight: 0.8 },
      { id: 'gpt-5', price: [1.25, 10, 0.125, null], weight: 0.2 },
    ],
    side: null,
    perRequest: { input: 4_000, output: 900, cacheRead: 38_000, cacheWrite: null, reasoning: 500 },
  },
  {
    id: 'opencode',
    weight: 0.08,
    models: [
      { id: 'gemini-2.5-pro', price: [1.25, 10, 0.31, null], weight: 0.6 },
      { id: 'local/qwen3-coder-30b', price: null, weight: 0.4 },
    ],
    side: null,
    perRequest: { input: 6_000, output: 800, cacheRead: 20_000, cacheWrite: null, reasoning: 300 },
  },
];
const PROJECTS = [
  'api',
  'web',
  'billing',
  'infra',
  'mobile',
  'data-pipeline',
  'auth',
  'search',
  'docs',
  'cli',
];
const DAY_MS = 86_400_000;
const TODAY = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const dayOf = (t) => new Date(t).toISOString().slice(0, 10);
/** The database role (and so the developer) of the i-th simulated developer. */
const roleOf = (i) => `dev${String(i + 1).padStart(4, '0')}`;

function weighted(r, xs) {
  let x = r() * xs.reduce((n, v) => n + v.weight, 0);
  for (const v of xs) {
    x -= v.weight;
    if (x <= 0) return v;
  }
  return xs[xs.length - 1];
}

/** Tokens and cost of `n` requests on `model` of `harness` (each request's tokens varied ±50%). */
function usage(r, harness, model, n) {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  for (const k of Object.keys(t)) {
    const per = harness.perRequest[k];
    t[k] = per === null ? null : Math.round(per * n * (0.5 + r()));
  }
  const total = Object.values(t).reduce((s, v) => s + (v ?? 0), 0);
  if (model.price === null) return { tokens: t, costUsd: null, unpricedTokens: total };
  const [pin, pout, pread, pwrite] = model.price;
  const cost =
    ((t.input ?? 0) * pin +
      (t.output ?? 0) * pout +
      (t.cacheRead ?? 0) * pread +
      (t.cacheWrite ?? 0) * (pwrite ?? pin)) /
    1e6;
  return { tokens: t, costUsd: Math.round(cost * 1e6) / 1e6, unpricedTokens: 0 };
}

function addUsage(a, b) {
  const tokens = {};
  for (const k of Object.keys(a.tokens))
    tokens[k] = a.tokens[k] === null && b.tokens[k] === null ? null : (a.tokens[k] ?? 0) + (b.tokens[k] ?? 0);
  const costUsd =
    a.costUsd === null && b.costUsd === null
      ? null
      : Math.round(((a.costUsd ?? 0) + (b.costUsd ?? 0)) * 1e6) / 1e6;
  return { tokens, costUsd, unpricedTokens: a.unpricedTokens + b.unpricedTokens };
}

/** The non-text facts a push carries beside the columns, with the keys dist/store/build.js gives them. */
function factsOf(s) {
  const window = s.harness.id === 'claude' ? 200_000 : 272_000;
  const lines = s.requests * 6;
  return {
    contextPercent: s.context,
    contextUsed: Math.round((s.context / 100) * window * 0.8),
    contextWindow: window,
    compactAt: s.harness.id === 'claude' ? 160_000 : null,
    toolCalls: s.requests * 2,
    toolFailures: Math.floor(s.requests / 25),
    compactions: Math.floor(s.requests / 120),
    aborts: Math.floor(s.requests / 200),
    linesAdded: lines,
    linesRemoved: Math.floor(lines / 3),
    running: s.running,
    deleted: false,
    subagents: s.harness.id === 'claude' ? Math.floor(s.requests / 60) : 0,
    stateSource: s.running ? 'hook' : 'inferred',
    inferred: null,
    permission: s.harness.id === 'codex' ? 'auto-edit' : 'ask',
    reasoningEffort: s.harness.id === 'codex' ? 'medium' : null,
    pendingTool: s.state === 'waiting' ? 'Bash' : null,
    costSource: s.model.price === null ? null : 'estimated',
    included: false,
    models: s.harness.side === null ? [s.model.id] : [s.model.id, s.harness.side.id],
    unpricedModels: s.model.price === null ? [s.model.id] : [],
  };
}

function sessionRow(dev, s) {
  return {
    host: dev.host,
    harness: s.harness.id,
    sessionId: s.id,
    project: s.project,
    title: null,
    model: s.model.id,
    state: s.state,
    startedAt: s.startedAt,
    lastActiveAt: s.lastActiveAt,
    requests: s.requests,
    tokens: { ...s.usage.tokens },
    costUsd: s.usage.costUsd,
    unpricedTokens: s.usage.unpricedTokens,
    facts: factsOf(s),
  };
}

const spendKey = (harness, day, model, project) => `${harness}\0${day}\0${model}\0${project}`;

/**
 * One developer's history, the same every time for one (seed, index): its sessions and the spend
 * rows they make. Made afresh for each pass of the first push rather than kept, so a run with
 * thousands of developers × thousands of sessions holds only the running part in memory.
 */
function history(index) {
  const r = rng(SEED * 1_000_003 + index);
  const name = roleOf(index);
  const projects = Array.from({ length: between(r, 2, 5) }, () => `/home/${name}/src/${pick(r, PROJECTS)}`);
  const running = Math.min(SESSIONS, pick(r, [0, 0, 1, 1, 1, 2, 2, 2, 3, 4]));
  const sessions = [];
  const spend = new Map();
  const addSpend = (harness, model, project, day, u, requests) => {
    const key = spendKey(harness.id, day, model.id, project);
    const row = spend.get(key);
    if (row === undefined)
      spend.set(key, { harness: harness.id, day, model: model.id, project, requests, ...u });
    else {
      Object.assign(row, addUsage(row, u));
      row.requests += requests;
    }
  };
  for (let i = 0; i < SESSIONS; i++) {
    const isRunning = i >= SESSIONS - running;
    // Past sessions fall on the last DAYS days (weekends quieter), running ones start today.
    let dayBack = 0;
    if (!isRunning) {
      do dayBack = between(r, DAYS > 1 ? 1 : 0, DAYS - 1);
      while (new Date(TODAY.getTime() - dayBack * DAY_MS).getUTCDay() % 6 === 0 && r() < 0.8);
    }
    const harness = weighted(r, HARNESSES);
    const model = weighted(r, harness.models);
    const start = TODAY.getTime() - dayBack * DAY_MS + between(r, 8 * 60, 18 * 60) * 60_000;
    const requests = isRunning ? between(r, 1, 40) : between(r, 5, 300);
    const s = {
      id: uuid(r),
      harness,
      model,
      project: pick(r, projects),
      state: isRunning ? pick(r, ['working', 'working', 'waiting']) : 'idle',
      running: isRunning,
      startedAt: new Date(start).toISOString(),
      lastActiveAt: new Date(start + requests * between(r, 20, 90) * 1_000).toISOString(),
      requests,
      context: between(r, 5, 95),
      usage: usage(r, harness, model, requests),
    };
    sessions.push(s);
    addSpend(harness, model, s.project, dayOf(start), s.usage, requests);
    if (harness.side !== null && r() < 0.6)
      addSpend(
        harness,
        harness.side,
        s.project,
        dayOf(start),
        usage(r, harness, harness.side, Math.ceil(requests / 10)),
        Math.ceil(requests / 10),
      );
  }
  return { index, name, host: `${name}-laptop`, projects, r, sessions, spend };
}

/** What a developer keeps between minutes: its running sessions and today's spend rows. */
function liveState(h) {
  const today = dayOf(TODAY.getTime());
  const spend = new Map([...h.spend].filter(([, row]) => row.day === today));
  return {
    role: h.name,
    host: h.host,
    projects: h.projects,
    r: h.r,
    running: h.sessions.filter((s) => s.running),
    spend,
  };
}

function firstBatch(h) {
  return {
    host: h.host,
    version: 'bench',
    timeZone: 'UTC',
    sessions: h.sessions.map((s) => sessionRow(h, s)),
    spend: [...h.spend.values()].map((row) => ({ ...row, tokens: { ...row.tokens } })),
  };
}

/** Rows the simulated minutes added (new sessions, new spend keys), for the final count. */
const made = { sessions: 0, spend: 0 };

/** One simulated minute of a developer's work: what changed, as the batch its push sends. */
function minuteBatch(dev, now) {
  const r = dev.r;
  const today = dayOf(TODAY.getTime());
  const changedSessions = [];
  const changedSpend = new Set();
  const stillRunning = [];
  // Now and then a new session starts (a developer with nothing running starts one more often).
  if (r() < (dev.running.length === 0 ? 0.05 : 0.03)) {
    const harness = weighted(r, HARNESSES);
    const model = weighted(r, harness.models);
    const startedAt = new Date(now).toISOString();
    made.sessions++;
    dev.running.push({
      id: uuid(r),
      harness,
      model,
      project: pick(r, dev.projects),
      state: 'working',
      running: true,
      startedAt,
      lastActiveAt: startedAt,
      requests: 0,
      context: 3,
      usage: usage(r, harness, model, 0),
    });
  }
  for (const s of dev.running) {
    const ends = r() < 1 / 40;
    const waiting = !ends && r() < 0.25;
    const n = waiting ? between(r, 0, 1) : between(r, 1, 6);
    const u = usage(r, s.harness, s.model, n);
    s.usage = addUsage(s.usage, u);
    s.requests += n;
    s.context = Math.min(99, s.context + between(r, 0, 3));
    s.state = ends ? 'idle' : waiting ? 'waiting' : 'working';
    s.running = !ends;
    s.lastActiveAt = new Date(now).toISOString();
    changedSessions.push(sessionRow(dev, s));
    if (!ends) stillRunning.push(s);
    if (n > 0) {
      const key = spendKey(s.harness.id, today, s.model.id, s.project);
      const row = dev.spend.get(key);
      if (row === undefined) {
        made.spend++;
        dev.spend.set(key, {
          harness: s.harness.id,
          day: today,
          model: s.model.id,
          project: s.project,
          requests: n,
          ...u,
        });
      } else {
        Object.assign(row, addUsage(row, u));
        row.requests += n;
      }
      changedSpend.add(key);
    }
  }
  dev.running = stillRunning;
  return {
    host: dev.host,
    version: 'bench',
    timeZone: 'UTC',
    sessions: changedSessions,
    spend: [...changedSpend].map((k) => {
      const row = dev.spend.get(k);
      return { ...row, tokens: { ...row.tokens } };
    }),
  };
}

/** A batch cut into pieces of at most MAX_PUSH_BATCH_ROWS rows, sessions first, as a push cuts them. */
function cut(batch) {
  const rows = [...batch.sessions.map((s) => ['s', s]), ...batch.spend.map((s) => ['p', s])];
  if (rows.length === 0) return [batch];
  const parts = [];
  for (let i = 0; i < rows.length; i += MAX_PUSH_BATCH_ROWS) {
    const slice = rows.slice(i, i + MAX_PUSH_BATCH_ROWS);
    parts.push({
      ...batch,
      sessions: slice.filter(([k]) => k === 's').map(([, v]) => v),
      spend: slice.filter(([k]) => k === 'p').map(([, v]) => v),
    });
  }
  return parts;
}
const rowsOf = (batch) => batch.sessions.length + batch.spend.length;

// ── the plain-INSERT baseline ───────────────────────────────────────────────────────────────────
// The same columns and the same row-level security as cctop's tables, without a primary key or
// index, written with INSERT … SELECT FROM unnest (the shape of upsertBatch's statements) and no
// ON CONFLICT: what an append-only log of pushes would cost to write, and how fast it would grow.

const PLAIN_SETUP = ['sessions', 'spend_daily', 'pushers']
  .map(
    (t) => `
CREATE TABLE plain_${t} (LIKE ${t} INCLUDING DEFAULTS);
ALTER TABLE plain_${t} ENABLE ROW LEVEL SECURITY;
CREATE POLICY plain_${t}_own ON plain_${t} TO ${ROLES.pusher}
  USING (developer = current_user) WITH CHECK (developer = current_user);
GRANT SELECT, INSERT ON plain_${t} TO ${ROLES.pusher};`,
  )
  .join('\n');

const PLAIN_SESSIONS = `
INSERT INTO plain_sessions (host, harness, session_id, project, title, model, state, started_at, last_active_at,
  requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd,
  unpriced_tokens, facts)
SELECT $1, r.h, r.id, r.p, r.t, r.m, r.st, r.sa, r.la, r.rq, r.i, r.o, r.cr, r.cw, r.rs, r.c, r.u, r.f::jsonb
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[],
  $9::timestamptz[], $10::integer[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
  $16::numeric[], $17::bigint[], $18::text[]) AS r(h, id, p, t, m, st, sa, la, rq, i, o, cr, cw, rs, c, u, f)`;
const PLAIN_SPEND = `
INSERT INTO plain_spend_daily (host, harness, day, model, project, requests, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, unpriced_tokens)
SELECT $1, r.h, r.d, r.m, r.p, r.rq, r.i, r.o, r.cr, r.cw, r.rs, r.c, r.u
FROM unnest($2::text[], $3::date[], $4::text[], $5::text[], $6::integer[], $7::bigint[], $8::bigint[],
  $9::bigint[], $10::bigint[], $11::bigint[], $12::numeric[], $13::bigint[]) AS r(h, d, m, p, rq, i, o, cr, cw, rs, c, u)`;
const PLAIN_PUSHER = 'INSERT INTO plain_pushers (host, cctop_version, time_zone) VALUES ($1, $2, $3)';

async function insertPlain(client, b) {
  const col = (rows, f) => rows.map(f);
  await client.query('BEGIN');
  try {
    if (b.sessions.length > 0) {
      const s = b.sessions;
      await client.query(PLAIN_SESSIONS, [
        b.host,
        ...[
          (x) => x.harness,
          (x) => x.sessionId,
          (x) => x.project,
          (x) => x.title,
          (x) => x.model,
          (x) => x.state,
        ].map((f) => col(s, f)),
        col(s, (x) => x.startedAt),
        col(s, (x) => x.lastActiveAt),
        col(s, (x) => x.requests),
        ...['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'].map((k) => col(s, (x) => x.tokens[k])),
        col(s, (x) => x.costUsd),
        col(s, (x) => x.unpricedTokens),
        col(s, (x) => JSON.stringify(x.facts)),
      ]);
    }
    if (b.spend.length > 0) {
      const p = b.spend;
      await client.query(PLAIN_SPEND, [
        b.host,
        col(p, (x) => x.harness),
        col(p, (x) => x.day),
        col(p, (x) => x.model),
        col(p, (x) => x.project),
        col(p, (x) => x.requests),
        ...['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'].map((k) => col(p, (x) => x.tokens[k])),
        col(p, (x) => x.costUsd),
        col(p, (x) => x.unpricedTokens),
      ]);
    }
    await client.query(PLAIN_PUSHER, [b.host, b.version, b.timeZone]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

// ── running the pushes ──────────────────────────────────────────────────────────────────────────

const DB = 'team';
const connectAs = async (role, database = DB) => {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: cluster.port,
    user: role,
    password: passwordOf(role),
    database,
    application_name: 'cctop-bench',
  });
  await c.connect();
  return c;
};
const admin = async (text, params = [], database = DB) => {
  const c = await connectAs(ADMIN, database);
  try {
    return await c.query(text, params);
  } finally {
    await c.end();
  }
};
const walLsn = async () => (await admin('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
const walBytes = async (from) =>
  Number((await admin('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn) AS d', [from])).rows[0].d);

/** Run tasks with at most POOL at once; each task's figures go into `stats`. */
async function pool(tasks) {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(POOL, tasks.length) }, worker));
}

/** push.ts's question before sending deltas: does the store still have this machine's pushers row? */
const KNOWS_US_SQL = 'SELECT 1 FROM pushers WHERE developer = current_user AND host = $1';

/** A developer's connection as `cctop push` opens it (dist/store/connect.js, PGPASSWORD given). */
async function pusherClient(role) {
  const url = `postgres://${role}@127.0.0.1:${cluster.port}/${DB}`;
  const c = await connectStore(url, { PGPASSWORD: DEVELOPER_PASSWORD });
  if (c.kind !== 'connected') throw new Error(c.error);
  return c.client;
}

/**
 * One phase: every push of `batches` ([developer, batch, first], or a null batch for connect +
 * SELECT 1), POOL at once. A push sends what dist/store/push.js sends: checkSchema, then (after the
 * first push) the pushers-row check, then the batches through `write`. It connects as its developer
 * and disconnects after, as `cctop push` does (once, or each time under `--every`), unless `kept`
 * holds the developer's open connection (what a pusher that kept its connection would cost). Adds
 * the phase's figures to `all`.
 */
async function phase(batches, write, all, kept = null) {
  const lsn = await walLsn();
  const cpu0 = serverCpu(cluster.pid);
  const client0 = clientCpu();
  const t0 = ms();
  let rows = 0;
  await pool(
    batches.map(([role, made, first]) => async () => {
      // A first push's batch is made when its turn comes, so that only POOL histories are in memory.
      const batch = typeof made === 'function' ? made() : made;
      const a = ms();
      const c = kept?.get(role) ?? (await pusherClient(role));
      const b = ms();
      try {
        if (batch === null) await c.query('SELECT 1');
        else {
          const check = await checkSchema(c);
          if (check.kind !== 'current') throw new Error(check.message);
          if (!first) await c.query(KNOWS_US_SQL, [batch.host]);
          for (const part of cut(batch)) await write(c, part);
        }
      } finally {
        if (kept === null) await c.end();
      }
      const z = ms();
      rows += batch === null ? 0 : rowsOf(batch);
      if (kept === null) all.connect.push(b - a);
      all.write.push(z - b);
      all.total.push(z - a);
    }),
  );
  const wall = (ms() - t0) / 1000;
  const cpu1 = serverCpu(cluster.pid);
  all.pushes += batches.length;
  all.rows += rows;
  all.wall += wall;
  all.serverCpu += cpu0 === null || cpu1 === null ? Number.NaN : cpu1 - cpu0;
  all.clientCpu += clientCpu() - client0;
  all.wal += await walBytes(lsn);
  return { rows, wall };
}
const newStats = () => ({
  pushes: 0,
  rows: 0,
  wall: 0,
  serverCpu: 0,
  clientCpu: 0,
  wal: 0,
  connect: [],
  write: [],
  total: [],
});

/**
 * The store holds exactly the rows pushed: concurrent pushes lost and duplicated nothing. Counted as
 * the superuser (no row-level security); a difference ends the run with an error.
 */
async function checkRows(what, expected) {
  const r = await admin(
    'SELECT (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM spend_daily)::int AS spend',
  );
  const got = r.rows[0];
  if (got.sessions !== expected.sessions || got.spend !== expected.spend)
    throw new Error(
      `${what}: the store holds ${got.sessions} sessions and ${got.spend} spend rows, ${expected.sessions} and ${expected.spend} were pushed`,
    );
  console.log(
    `${what}: every row pushed is in the store, once (${got.sessions} sessions, ${got.spend} spend rows)`,
  );
}

async function sizes() {
  const db = (await admin('SELECT pg_database_size(current_database()) AS b')).rows[0].b;
  const tables = (
    await admin(`
SELECT c.relname AS name, pg_relation_size(c.oid) AS heap, pg_indexes_size(c.oid) AS indexes,
  pg_total_relation_size(c.oid) AS total, s.n_live_tup AS live, s.n_dead_tup AS dead,
  s.n_tup_upd AS upd, s.n_tup_hot_upd AS hot, s.autovacuum_count AS vacuums
FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
ORDER BY c.relname`)
  ).rows;
  return { db: Number(db), tables };
}

const mib = (b) => (Number(b) / 1048576).toFixed(2);
function printSizes(title, s) {
  console.log(`\n${title}: database ${mib(s.db)} MiB (pg_database_size)`);
  console.log(
    '| table | live rows | dead rows | updates (HOT) | heap MiB | indexes MiB | total MiB | bytes/row |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const t of s.tables) {
    const live = Number(t.live);
    const perRow = live > 0 ? Math.round(Number(t.total) / live) : '─';
    console.log(
      `| ${t.name} | ${live} | ${t.dead} | ${t.upd} (${t.hot}) | ${mib(t.heap)} | ${mib(t.indexes)} | ${mib(t.total)} | ${perRow} |`,
    );
  }
}

// ── the dashboard's queries ─────────────────────────────────────────────────────────────────────

const iso = (t) => new Date(t).toISOString().slice(0, 10);

/**
 * The dashboard's periods in UTC (views/team computes them in its own zone): the day, its ISO week
 * and its calendar month. `periodDays(TODAY)` is now; `periodDays(last day of last month)` is a
 * month at its fullest, which is what a poll on a month's last day reads.
 */
function periodDays(date) {
  const t = date.getTime();
  const monday = t - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  const monthFrom = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const monthTo = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0);
  return {
    day: { from: iso(t), to: iso(t) },
    week: { from: iso(monday), to: iso(monday + 6 * DAY_MS) },
    month: { from: iso(monthFrom), to: iso(monthTo) },
  };
}
const LAST_MONTH_END = new Date(Date.UTC(TODAY.getUTCFullYear(), TODAY.getUTCMonth(), 0));

/**
 * Team budgets of the kinds `cctop store budget set` makes, so that the dashboard's budget query has
 * work: one for the team's month, then by turns a developer's day, a project's week, a harness's month.
 */
async function addBudgets(n) {
  const c = await connectAs(ADMIN);
  try {
    for (let i = 0; i < n; i++) {
      const dev = roleOf(i % DEVELOPERS);
      const kind = i === 0 ? 'team' : ['developer', 'project', 'harness'][i % 3];
      await c.query(
        'INSERT INTO budgets (name, period, usd, developer, project, harness) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          `${kind}-${i}`,
          kind === 'developer' ? 'day' : kind === 'project' ? 'week' : 'month',
          kind === 'team' ? 50_000 : 200,
          kind === 'developer' ? dev : null,
          kind === 'project' ? `/home/${dev}/src` : null,
          kind === 'harness' ? pick(Math.random, HARNESSES).id : null,
        ],
      );
    }
  } finally {
    await c.end();
  }
}

/**
 * The SQL the dashboard's own readers (dist/store/team-*.js) send, with their parameters: one poll as
 * views/team/poller.ts makes it now (sessions; spend over the month, reaching back a week when the
 * month is younger; budgets), and the spend and budget reads of a poll on last month's last day.
 */
async function dashboardQueries(client) {
  const found = ['team-sessions', 'team-spend', 'team-budgets'].every((f) =>
    existsSync(join(dist, 'store', `${f}.js`)),
  );
  if (!found) return { poll: Number.NaN, queries: [] };
  const load = (f) => import(pathToFileURL(join(dist, 'store', `${f}.js`)).href);
  const { readTeamSessions } = await load('team-sessions');
  const { readTeamSpend } = await load('team-spend');
  const { readBudgetSpend } = await load('team-budgets');
  const sent = [];
  const recording = {
    query: (text, params) => {
      sent.push({ text, params });
      return client.query(text, params);
    },
  };
  const now = periodDays(TODAY);
  const weekBack = iso(TODAY.getTime() - 6 * DAY_MS);
  const t0 = ms();
  await readTeamSessions(recording);
  await readTeamSpend(recording, [weekBack, now.month.from].sort()[0], now.month.to);
  await readBudgetSpend(recording, now);
  const poll = ms() - t0;
  const end = periodDays(LAST_MONTH_END);
  await readTeamSpend(recording, end.month.from, end.month.to);
  await readBudgetSpend(recording, end);
  const names = [
    'readTeamSessions',
    `readTeamSpend ${[weekBack, now.month.from].sort()[0]}..${now.month.to}`,
    'readBudgetSpend now',
    `readTeamSpend ${end.month.from}..${end.month.to} (a whole month)`,
    `readBudgetSpend on ${end.day.from} (a month's last day)`,
  ];
  return { poll, queries: sent.map((q, i) => ({ name: `${names[i]} (dist/store/team-*.js)`, ...q })) };
}

/**
 * Changes this bench makes after measuring the schema as it is, to show what they change; not in the
 * schema (src/store/schema.ts) until someone decides they are worth their cost on every push (the
 * partial index of live sessions measured here first is in the schema now):
 * - spend_daily in day order (CLUSTER): what monthly partitions give by construction, and roughly
 *   what a store that grew day by day has. The bench loads each developer's whole history at once,
 *   so one day's rows are spread over the whole table: the worst case for a read of a month.
 */
const CANDIDATE_CHANGES = ['CLUSTER spend_daily USING spend_daily_day'];

/** Each query run once (warm), then under EXPLAIN (ANALYZE, BUFFERS); the plans printed, a summary returned. */
async function explainAll(c, queries) {
  const summary = [];
  for (const q of queries) {
    await c.query(q.text, q.params);
    const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.params)).rows.map(
      (r) => r['QUERY PLAN'],
    );
    const exec = plan.map((l) => /Execution Time: ([\d.]+) ms/.exec(l)).find((m) => m !== null);
    const buffers = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(
      plan.find((l) => l.includes('Buffers:')) ?? '',
    );
    summary.push({
      name: q.name,
      ms: exec ? Number(exec[1]) : Number.NaN,
      pages: Number(buffers?.[1] ?? 0) + Number(buffers?.[2] ?? 0),
    });
    console.log(`\n-- ${q.name}\n${plan.join('\n')}`);
  }
  return summary;
}

/** EXPLAIN ANALYZE, as the dashboard's read-only role, of the queries a team dashboard runs. */
async function explainQueries() {
  const likely = [
    {
      name: 'spend per developer per day, the last 30 days',
      text: `SELECT developer, day, sum(requests) AS requests, sum(cost_usd) AS cost_usd, sum(unpriced_tokens) AS unpriced
FROM spend_daily WHERE day > current_date - 30 GROUP BY developer, day ORDER BY developer, day`,
      params: [],
    },
    {
      name: 'running and waiting sessions active in the last 15 minutes',
      text: `SELECT s.developer, s.host, s.harness, s.session_id, s.project, s.model, s.state, s.last_active_at, s.cost_usd,
  p.pushed_at
FROM sessions s JOIN pushers p ON p.developer = s.developer AND p.host = s.host
WHERE s.state IN ('working', 'waiting') AND s.last_active_at > now() - interval '15 minutes'
ORDER BY s.last_active_at DESC LIMIT 500`,
      params: [],
    },
  ];
  await addBudgets(BUDGETS);
  await admin('VACUUM ANALYZE');
  const c = await connectAs(READER);
  try {
    const real = await dashboardQueries(c);
    const queries = [...likely, ...real.queries];
    if (real.queries.length === 0)
      console.log('\n(no dist/store/team-*.js: only the likely queries are explained)');
    else
      console.log(
        `\none dashboard poll now (three queries, warm, as views/team polls): ${real.poll.toFixed(1)} ms`,
      );
    console.log(
      `\nthe dashboard's queries (EXPLAIN (ANALYZE, BUFFERS), as a cctop_reader role, ${BUDGETS} budgets):`,
    );
    const before = await explainAll(c, queries);
    const changing = ms();
    for (const sql of CANDIDATE_CHANGES) await admin(sql);
    await admin('ANALYZE');
    console.log(
      `\nthe same after these changes (${((ms() - changing) / 1000).toFixed(1)} s):\n${CANDIDATE_CHANGES.join(';\n')}`,
    );
    const after = await explainAll(c, queries);
    console.log('\n| query | execution ms | pages (8 KiB) | after the changes: ms | pages |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const [i, q] of before.entries())
      console.log(
        `| ${q.name} | ${q.ms.toFixed(1)} | ${q.pages} | ${after[i].ms.toFixed(1)} | ${after[i].pages} |`,
      );
  } finally {
    await c.end();
  }
}

// ── the run ─────────────────────────────────────────────────────────────────────────────────────

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const cpuModel = cpus()[0]?.model ?? '?';
console.log(
  `cctop team-store load test: ${DEVELOPERS} developers × ${SESSIONS} sessions over ${DAYS} days, ${MINUTES} simulated minutes, pool ${POOL} connections; PostgreSQL ${PG_MAJOR} (fsync ${FSYNC}), ${cpus().length} × ${cpuModel}, Node ${process.versions.node}; load average ${loadavg()}`,
);
const cluster = await startCluster();
const kept = new Map();
try {
  await setUp();
  const first = newStats();
  const firstPlain = newStats();
  const { counted, sizes: afterFirst } = await firstPush(first, firstPlain);

  // The simulated minutes, each pushed three ways: new connections (one-shot pushes), kept
  // connections (the same batches again: an upsert of the same values costs what the first did),
  // and the plain-INSERT baseline on the kept connections.
  const devs = Array.from({ length: DEVELOPERS }, (_, i) => liveState(history(i)));
  const opened = ms();
  await pool(devs.map((d) => async () => kept.set(d.role, await pusherClient(d.role))));
  const openSeconds = (ms() - opened) / 1000;
  const minutes = newStats();
  const minutesKept = newStats();
  const minutesPlain = newStats();
  const perMinute = [];
  let simNow = Date.now();
  for (let m = 0; m < MINUTES; m++) {
    simNow += 60_000;
    // As push.ts: a developer with nothing changed does not connect, but for a heartbeat (the
    // pushers row) once in PUSH_HEARTBEAT_MS.
    const batches = [];
    let quiet = 0;
    for (const d of devs) {
      const b = minuteBatch(d, simNow);
      if (rowsOf(b) > 0 || simNow - d.lastPush >= PUSH_HEARTBEAT_MS) {
        batches.push([d.role, b, false]);
        d.lastPush = simNow;
      } else quiet++;
    }
    const each = await phase(batches, upsertBatch, minutes);
    const keep = await phase(batches, upsertBatch, minutesKept, kept);
    const running = devs.reduce((n, d) => n + d.running.length, 0);
    perMinute.push({
      minute: m + 1,
      pushes: batches.length,
      quiet,
      rows: each.rows,
      running,
      each: each.wall,
      keep: keep.wall,
    });
    if (BASELINE === 'plain') await phase(batches, insertPlain, minutesPlain, kept);
  }
  await checkRows(`after ${MINUTES} minutes`, {
    sessions: counted.sessions + made.sessions,
    spend: counted.spend + made.spend,
  });
  const atEnd = await sizes();

  // Baselines that write nothing: connect + SELECT 1, and node -e 0.
  const connectOnly = newStats();
  await phase(
    devs.map((d) => [d.role, null, false]),
    null,
    connectOnly,
  );
  const node0 = [];
  for (let i = 0; i < 9; i++) {
    const a = ms();
    spawnSync(process.execPath, ['-e', '0']);
    node0.push(ms() - a);
  }

  console.log('\nper simulated minute:');
  console.log(
    '| minute | pushes | quiet (no push) | rows pushed | running sessions after | wall s, new connections | wall s, kept connections |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const p of perMinute)
    console.log(
      `| ${p.minute} | ${p.pushes} | ${p.quiet} | ${p.rows} | ${p.running} | ${p.each.toFixed(2)} | ${p.keep.toFixed(2)} |`,
    );

  const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '─');
  const three = (xs) =>
    xs.length === 0 ? '─' : `${f1(pct(xs, 0.5))} / ${f1(pct(xs, 0.95))} / ${f1(pct(xs, 1))}`;
  const row = (name, s) =>
    s.pushes === 0
      ? null
      : `| ${name} | ${s.pushes} | ${s.rows} | ${s.wall.toFixed(2)} | ${s.rows === 0 ? '─' : Math.round(s.rows / s.wall)} | ${(s.pushes / s.wall).toFixed(1)} | ${three(s.total)} | ${s.connect.length === 0 ? '─' : f1(pct(s.connect, 0.5))} | ${three(s.write)} | ${f1(s.serverCpu)} (${(s.serverCpu / s.wall).toFixed(2)}) | ${f1((s.serverCpu / s.pushes) * 1000)} | ${f1(s.clientCpu)} | ${mib(s.wal)} |`;
  console.log(
    `\nfigures (at most ${POOL} pushes at once; latency per push in ms; connect = open and authenticate (SCRAM); write = checkSchema + the batches' transactions):`,
  );
  console.log(
    '| run | pushes | rows | wall s | rows/s | pushes/s | push p50 / p95 / max | connect p50 | write p50 / p95 / max | server CPU s (cores) | server CPU ms/push | bench CPU s | WAL MiB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const line of [
    row('first push, upsertBatch', first),
    row('first push, plain INSERT', firstPlain),
    row(`${MINUTES} minutes, upsertBatch, new connection each push`, minutes),
    row(`${MINUTES} minutes, upsertBatch, kept connections`, minutesKept),
    row(`${MINUTES} minutes, plain INSERT, kept connections`, minutesPlain),
    row('connect + SELECT 1 + disconnect', connectOnly),
  ])
    if (line !== null) console.log(line);
  console.log(`| node -e 0 | ${node0.length} | | | | | ${three(node0)} | | | | | | |`);

  const perMin = minutes.rows / MINUTES;
  // The need: the pushes a minute actually made (quiet developers do not connect), in a real minute.
  const needPushes = minutes.pushes / MINUTES / 60;
  const took = (s) => s.pushes / s.wall;
  console.log(
    `\nrows a minute: ${Math.round(perMin)} (${(perMin / DEVELOPERS).toFixed(1)} per developer) in ${Math.round(minutes.pushes / MINUTES)} pushes; at one push a minute the store must take ${(perMin / 60).toFixed(1)} rows/s in ${needPushes.toFixed(2)} pushes/s; back to back it took ${took(minutes).toFixed(1)} pushes/s on new connections (${(took(minutes) / needPushes).toFixed(1)}× the need) and ${took(minutesKept).toFixed(1)} on kept ones (${(took(minutesKept) / needPushes).toFixed(1)}×)`,
  );
  console.log(
    `opening ${DEVELOPERS} kept connections took ${openSeconds.toFixed(2)} s; WAL a minute ${mib(minutes.wal / MINUTES)} MiB (one push of each batch); load average at the end ${loadavg()}`,
  );
  printSizes('after the first push', afterFirst);
  printSizes(
    `after ${MINUTES} minutes (every minute's batches upserted twice: new and kept connections)`,
    atEnd,
  );

  if (EXPLAIN) await explainQueries();
} finally {
  for (const c of kept.values()) await c.end().catch(() => {});
  await cluster.stop();
}

async function setUp() {
  await admin(`CREATE DATABASE ${DB}`, [], 'postgres');
  const c = await connectAs(ADMIN);
  try {
    await migrate(c);
    if (BASELINE === 'plain') await c.query(PLAIN_SETUP);
    await c.query(`CREATE ROLE ${READER} LOGIN PASSWORD '${passwordOf(READER)}' IN ROLE ${ROLES.reader}`);
    for (let i = 0; i < DEVELOPERS; i++) {
      const name = roleOf(i);
      await c.query(`CREATE ROLE ${name} LOGIN PASSWORD '${passwordOf(name)}' IN ROLE ${ROLES.pusher}`);
    }
  } finally {
    await c.end();
  }
}

/** Every developer's whole history, on new connections; returns the sizes after it. */
async function firstPush(first, firstPlain) {
  const counted = { sessions: 0, spend: 0 };
  const batches = (count) =>
    Array.from({ length: DEVELOPERS }, (_, i) => [
      roleOf(i),
      () => {
        const b = firstBatch(history(i));
        if (count) {
          counted.sessions += b.sessions.length;
          counted.spend += b.spend.length;
        }
        return b;
      },
      true,
    ]);
  await phase(batches(true), upsertBatch, first);
  if (BASELINE === 'plain') await phase(batches(false), insertPlain, firstPlain);
  console.log(
    `first push: ${counted.sessions} session rows + ${counted.spend} spend rows (${Math.round((counted.sessions + counted.spend) / DEVELOPERS)} per developer)`,
  );
  await checkRows('after the first push', counted);
  return { counted, sizes: await sizes() };
}
