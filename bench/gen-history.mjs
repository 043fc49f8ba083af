#!/usr/bin/env node
// Writes a heavy user's agent history (a `$HOME` of Claude Code and Codex sessions) for the
// benchmarks, from what the repository owns: the demo history (`demo/home`), the lab's recordings of
// the real CLIs (`lab/fixtures/`), and sessions made up here in the same on-disk shapes. Nothing
// beside the repository is read, so `npm run bench` works on a clone.
//
//   node bench/gen-history.mjs --out DIR [--mb 1200] [--seed 7] [--codex-share 0.3]
//                              [--sources demo,lab,made-up]
//
// `--sources` picks what sessions are made of (all three by default). The lab's Claude Code 2.1.328
// transcripts write one record per content block of a response, each with the response's usage;
// ccusage counts those differently from the lab's ledger (and from cctop), so a comparison with
// ccusage leaves `lab` out.
//
// Sizes follow a heavy real user's profile (3,142 files, 1.24 GiB; per file p50 105 KB, p90 654 KB,
// p99 5.4 MB, largest 87 MB): `--mb 1200` makes about 4,000 files, `--mb 200` about 700. Each file
// is one session: whole sessions chained one after another, every copied line given fresh ids
// (session, uuid, message id, request id, call id) and later timestamps, so no two lines are the same
// message and nothing dedupes away. A Codex chain keeps its running token total going up, as one
// real rollout does. DIR/manifest.json lists every file with its bytes and lines, so a benchmark can
// say what it read. The same seed gives the same history, byte for byte.
//
// Not here: timing anything (bench/scan.mjs, search.mjs, live.mjs and reports.mjs do).
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
if (!args.out) {
  console.error(
    'usage: node bench/gen-history.mjs --out DIR [--mb 1200] [--seed 7] [--codex-share 0.3] [--sources demo,lab,made-up]',
  );
  process.exit(2);
}
const SEED = Number(args.seed ?? 7) >>> 0 || 7;
const TARGET_BYTES = Number(args.mb ?? 1200) * 1024 * 1024;
const CODEX_SHARE = Number(args['codex-share'] ?? 0.3);
const SOURCES = new Set((args.sources ?? 'demo,lab,made-up').split(','));
for (const x of SOURCES)
  if (!['demo', 'lab', 'made-up'].includes(x)) {
    console.error(`--sources: ${x} is not one of demo, lab, made-up`);
    process.exit(2);
  }

let seed = SEED;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
const iso = (ms) => new Date(ms).toISOString();

/** Every `.jsonl` under `dir`, sorted (so the sources, and the history, do not depend on readdir). */
function jsonlUnder(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.jsonl') && statSync(join(dir, p)).isFile())
    .sort()
    .map((p) => join(dir, p));
}
const records = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

// ---- made-up sessions, in the demo's shapes, with words a search benchmark looks for -----------

const PROMPTS = [
  'The invoice export hydrates every row twice. Find out why and fix it.',
  'Tests fail on paths with parentheses in them. Make the loader quote them.',
  'Add a retry with backoff to the webhook sender, capped at five tries.',
  'Rename the config file option and keep reading the old name for one release.',
  'The dashboard shows the wrong timezone for the last run. Fix the formatting.',
  'Split the parser module in two: reading the file, and understanding the records.',
  'Why does the build take a minute longer since yesterday? Look at the lock file.',
  'Write a test for the empty file case, then make it pass.',
];
const FILES = [
  'src/export.ts',
  'src/loader.ts',
  'src/webhook.ts',
  'src/config.ts',
  'src/parser.ts',
  'test/loader.test.ts',
];
const ANSWERS = [
  'Found it: the cache hydrates the rows again when the file is reopened. Fixed, and the test passes.',
  'The path was passed to the shell unquoted, so paths with parentheses broke. Quoted now.',
  'Done. The file reads the old option too, with a warning that names the new one.',
  'The lock file pulled a newer compiler. Pinned it back; the build is fast again.',
];

/** A Claude Code session of `turns` prompts, each read, edited and answered, in Claude Code 2.1's shape. */
function madeUpClaude(turns) {
  const out = [];
  const sessionId = uuid();
  const cwd = '/home/dev/src/made-up';
  let parent = null;
  let t = Date.parse('2026-10-01T09:00:00Z');
  const later = (ms) => {
    t += ms;
    return iso(t);
  };
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.80',
    gitBranch: 'main',
  };
  const push = (rec) => {
    const uuidNow = uuid();
    out.push({ parentUuid: parent, ...base, ...rec, uuid: uuidNow, timestamp: later(4000) });
    parent = uuidNow;
  };
  for (let n = 0; n < turns; n++) {
    push({ type: 'user', message: { role: 'user', content: pick(PROMPTS) } });
    for (const name of ['Read', 'Edit']) {
      const id = `toolu_${hex(24)}`;
      const file = pick(FILES);
      push({
        type: 'assistant',
        requestId: `req_${hex(24)}`,
        message: {
          model: 'claude-sonnet-4-5-20250929',
          id: `msg_${hex(24)}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id, name, input: { file_path: `${cwd}/${file}` } }],
          stop_reason: 'tool_use',
          usage: {
            input_tokens: 6,
            cache_creation_input_tokens: 200 + Math.floor(rand() * 2000),
            cache_read_input_tokens: 20_000 + n * 3000,
            output_tokens: 40 + Math.floor(rand() * 400),
          },
        },
      });
      push({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: id, content: `the file ${file}:\n${pick(ANSWERS)}` }],
        },
      });
    }
    push({
      type: 'assistant',
      requestId: `req_${hex(24)}`,
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: `msg_${hex(24)}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: pick(ANSWERS) }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 4,
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 24_000 + n * 3000,
          output_tokens: 120,
        },
      },
    });
  }
  return out;
}

/** A Codex rollout of `turns` prompts, each with a shell call, in codex-cli 0.58's shape (as the demo's). */
function madeUpCodex(turns) {
  const out = [];
  let t = Date.parse('2026-10-01T09:00:00Z');
  const at = () => {
    t += 3000;
    return iso(t);
  };
  const cwd = '/home/dev/src/made-up';
  out.push({
    timestamp: at(),
    type: 'session_meta',
    payload: { id: uuid(), timestamp: at(), cwd, originator: 'codex_cli_rs', cli_version: '0.58.0' },
  });
  const total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  for (let n = 0; n < turns; n++) {
    const ask = pick(PROMPTS);
    out.push({
      timestamp: at(),
      type: 'turn_context',
      payload: {
        cwd,
        approval_policy: 'on-request',
        sandbox_policy: { mode: 'workspace-write' },
        model: 'gpt-5.1-codex',
        effort: 'medium',
        summary: 'auto',
      },
    });
    out.push({
      timestamp: at(),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: ask }] },
    });
    out.push({ timestamp: at(), type: 'event_msg', payload: { type: 'user_message', message: ask } });
    const call = `call_${hex(24)}`;
    out.push({
      timestamp: at(),
      type: 'response_item',
      payload: {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', `sed -n 1,80p ${pick(FILES)}`], workdir: cwd }),
        call_id: call,
      },
    });
    out.push({
      timestamp: at(),
      type: 'response_item',
      payload: {
        type: 'function_call_output',
        call_id: call,
        output: JSON.stringify({ output: pick(ANSWERS), metadata: { exit_code: 0, duration_seconds: 0.2 } }),
      },
    });
    const last = {
      input_tokens: 9000 + 500 * n,
      cached_input_tokens: 8000 + 500 * n,
      output_tokens: 150,
      reasoning_output_tokens: 60,
      total_tokens: 9150 + 500 * n,
    };
    for (const k of Object.keys(total)) total[k] += last[k];
    out.push({
      timestamp: at(),
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 272_000 },
      },
    });
    const answer = pick(ANSWERS);
    out.push({
      timestamp: at(),
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] },
    });
    out.push({ timestamp: at(), type: 'event_msg', payload: { type: 'agent_message', message: answer } });
  }
  return out;
}

// ---- the sources ---------------------------------------------------------------------------------

const demoClaude = jsonlUnder(join(root, 'demo', 'home', '.claude', 'projects')).filter(
  (p) => !p.includes('/subagents/'),
);
const labClaude = jsonlUnder(join(root, 'lab', 'fixtures', 'claude'));
const claudeSources = [
  ...(SOURCES.has('demo') ? demoClaude.map(records) : []),
  ...(SOURCES.has('lab') ? labClaude.map(records) : []),
  ...(SOURCES.has('made-up') ? Array.from({ length: 6 }, (_, i) => madeUpClaude(4 + i * 3)) : []),
].filter((lines) => lines.some((l) => l.type === 'assistant' && l.message?.usage));

// Codex chains are made of rollouts in one shape (codex-cli 0.58's, as the demo's are): the lab's
// 0.169 rollouts carry records of their own beside the running totals, so they are not spliced in.
const demoCodex = jsonlUnder(join(root, 'demo', 'home', '.codex', 'sessions'));
const codexSources = [
  ...(SOURCES.has('demo') ? demoCodex.map(records) : []),
  ...(SOURCES.has('made-up') ? Array.from({ length: 4 }, (_, i) => madeUpCodex(5 + i * 4)) : []),
].filter((lines) => lines.some((l) => l.type === 'event_msg' && l.payload?.type === 'token_count'));

if (claudeSources.length === 0 || codexSources.length === 0) {
  console.error(`--sources ${[...SOURCES].join(',')} gives no Claude Code or no Codex sessions to copy`);
  process.exit(2);
}

// ---- sizes ---------------------------------------------------------------------------------------

/** The profile's file sizes: a log-normal through p50 = 105 KB and p90 = 654 KB (z of p90 = 1.2816). */
const MU = Math.log(105 * 1024);
const SIGMA = (Math.log(654 * 1024) - MU) / 1.2816;
/** The profile's largest file; a history of a GiB or more has one of this size. */
const MAX_FILE_BYTES = 87 * 1024 * 1024;
/** No session file is smaller than this (a real one has at least its opening records). */
const MIN_FILE_BYTES = 4 * 1024;

function sampleSize() {
  const u1 = Math.max(rand(), 1e-12);
  const u2 = rand();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.min(MAX_FILE_BYTES, Math.max(MIN_FILE_BYTES, Math.round(Math.exp(MU + SIGMA * z))));
}

// ---- writing -------------------------------------------------------------------------------------

/** Sessions start over two months before this, so `daily`, `weekly` and `blocks` have history. */
const BASE_MS = Date.parse('2026-09-01T08:00:00Z');
const DAY_MS = 86_400_000;

function writeLines(path, bytes, lineAt) {
  const fd = openSync(path, 'w');
  let written = 0;
  let lines = 0;
  try {
    for (let copy = 0; written < bytes; copy++) {
      for (const s of lineAt(copy)) {
        writeSync(fd, s);
        written += Buffer.byteLength(s);
        lines++;
        if (written >= bytes) break;
      }
    }
  } finally {
    closeSync(fd);
  }
  return { written, lines };
}

function writeClaude(path, bytes, sessionId, startMs, cwd) {
  let t = startMs;
  return writeLines(path, bytes, function* (copy) {
    const src = pick(claudeSources);
    const k = `${sessionId.slice(0, 6)}${copy.toString(36)}`;
    for (const line of src) {
      const l = structuredClone(line);
      if ('sessionId' in l) l.sessionId = sessionId;
      if (l.uuid) l.uuid = `${l.uuid.slice(0, 28)}${k}`.slice(0, 36);
      if (l.parentUuid) l.parentUuid = `${l.parentUuid.slice(0, 28)}${k}`.slice(0, 36);
      if (l.requestId) l.requestId = `${l.requestId}_${k}`;
      if (l.message?.id) l.message.id = `${l.message.id}_${k}`;
      if ('cwd' in l) l.cwd = cwd;
      if (l.timestamp) {
        t += 1500 + Math.floor(rand() * 20_000);
        l.timestamp = iso(t);
      }
      yield `${JSON.stringify(l)}\n`;
    }
  });
}

/** The running token totals a Codex `token_count` carries; a chained copy adds those before it. */
const TOTAL_KEYS = [
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
  'total_tokens',
];

function writeCodex(path, bytes, sessionId, startMs, cwd) {
  let t = startMs;
  let carry = Object.fromEntries(TOTAL_KEYS.map((k) => [k, 0]));
  return writeLines(path, bytes, function* (copy) {
    const src = pick(codexSources);
    let last = null;
    for (const line of src) {
      if (line.type === 'session_meta' && copy > 0) continue;
      const l = structuredClone(line);
      if (l.type === 'session_meta') {
        l.payload.id = sessionId;
        l.payload.cwd = cwd;
        l.payload.timestamp = iso(t);
      }
      if (l.type === 'turn_context' && l.payload) l.payload.cwd = cwd;
      if (l.timestamp) {
        t += 1000 + Math.floor(rand() * 15_000);
        l.timestamp = iso(t);
      }
      if (l.payload?.call_id) l.payload.call_id = `${l.payload.call_id}_${copy}`;
      const total =
        l.type === 'event_msg' && l.payload?.type === 'token_count'
          ? l.payload.info?.total_token_usage
          : null;
      if (total) {
        for (const k of TOTAL_KEYS) if (typeof total[k] === 'number') total[k] += carry[k];
        last = total;
      }
      yield `${JSON.stringify(l)}\n`;
    }
    if (last)
      carry = Object.fromEntries(
        TOTAL_KEYS.map((k) => [k, typeof last[k] === 'number' ? last[k] : carry[k]]),
      );
  });
}

const manifest = {
  seed: SEED,
  targetBytes: TARGET_BYTES,
  sources: { claude: claudeSources.length, codex: codexSources.length },
  files: [],
};
let total = 0;
let largestDue = TARGET_BYTES >= 1024 * 1024 * 1024;
while (total < TARGET_BYTES) {
  let size = largestDue ? MAX_FILE_BYTES : sampleSize();
  largestDue = false;
  size = Math.min(size, TARGET_BYTES - total + MIN_FILE_BYTES);
  const id = uuid();
  const start = BASE_MS + Math.floor(rand() * 60 * DAY_MS);
  // About 250 projects, each a folder of sessions.
  const project = `project-${id.slice(0, 2)}`;
  const cwd = `/home/dev/src/${project}`;
  let rel;
  let res;
  if (rand() < CODEX_SHARE) {
    const d = iso(start);
    rel = join(
      '.codex',
      'sessions',
      d.slice(0, 4),
      d.slice(5, 7),
      d.slice(8, 10),
      `rollout-${d.slice(0, 19).replaceAll(':', '-')}-${id}.jsonl`,
    );
    mkdirSync(join(args.out, dirname(rel)), { recursive: true });
    res = writeCodex(join(args.out, rel), size, id, start, cwd);
  } else {
    rel = join('.claude', 'projects', `-home-dev-src-${project}`, `${id}.jsonl`);
    mkdirSync(join(args.out, dirname(rel)), { recursive: true });
    res = writeClaude(join(args.out, rel), size, id, start, cwd);
  }
  manifest.files.push({ path: rel, bytes: res.written, lines: res.lines });
  total += res.written;
}
manifest.totalBytes = total;
manifest.fileCount = manifest.files.length;
writeFileSync(join(args.out, 'manifest.json'), JSON.stringify(manifest));
console.log(`${manifest.fileCount} files, ${(total / 1048576).toFixed(1)} MiB under ${args.out}`);
