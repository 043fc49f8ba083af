#!/usr/bin/env node
// The ACP client benchmark: what speaking ACP costs a driven run, start-up and per message, for
// this build's client (on the official SDK, @agentclientprotocol/sdk) and, with `--peer DIST`,
// another build's (the hand-written client before it, built from an older commit).
//
//   node bench/acp.mjs [--runs 15] [--messages 20000] [--peer /tmp/acp-hand/dist]
//
// The agent is a small ACP agent of the bench's own (a Node script written to a temp folder): it
// answers `initialize` and `session/new`, then streams `--messages` text chunks and ends the turn.
// Each build runs it through `stream()` from its `drive/index.js`, exactly as `cctop exec --acp`
// does, in turn, `--runs` times. Printed for each build (median, and p90 across runs):
//   import    a fresh `node` importing the build's `drive/index.js`, minus a fresh `node -e 0`
//             (and once per round, the SDK alone: this build loads it with its first ACP run)
//   started   from `stream()` to the `started` event: spawn, `initialize`, `session/new`
//   turn      a one-chunk prompt, from `stream()` to its outcome
//   per msg   (flood turn − one-chunk turn) / messages: what one `session/update` costs, read,
//             turned into an event and delivered through the queue to a consumer that keeps up
//   in-proc   the client alone, no process and no pipe: the build's `AcpConversation` fed the same
//             handshake and `--messages` update lines one by one, to its last event; per message
// with the bytes of the flood and the events delivered, so a run that lost messages shows.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = { runs: '15', messages: '20000' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const runs = Number(args.runs);
const messages = Number(args.messages);
const builds = [{ name: 'this build', dist: join(root, 'dist') }];
if (args.peer) builds.push({ name: 'peer', dist: args.peer });
for (const b of builds) {
  if (!existsSync(join(b.dist, 'drive', 'index.js')))
    throw new Error(`no ${b.dist}/drive/index.js: build it first`);
}

const AGENT = `
const SESSION = 'bench-session';
const count = Number(process.argv[2]);
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim() === '') continue;
    const m = JSON.parse(line);
    if (m.method === 'initialize')
      send({ id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'bench-acp', version: '1' }, agentCapabilities: {} } });
    else if (m.method === 'session/new') send({ id: m.id, result: { sessionId: SESSION } });
    else if (m.method === 'session/prompt') {
      for (let i = 0; i < count; i++)
        send({ method: 'session/update', params: { sessionId: SESSION, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'chunk ' + i + ' ' } } } });
      send({ id: m.id, result: { stopReason: 'end_turn' } });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const dir = mkdtempSync(join(tmpdir(), 'cctop-bench-acp-'));
const agent = join(dir, 'bench-acp');
writeFileSync(agent, `#!${process.execPath}\n${AGENT}`);
chmodSync(agent, 0o755);

/** A fresh `node` importing `what` (a file URL or a package name), minus a fresh `node -e 0`. */
function importMs(dist) {
  return freshImportMs(pathToFileURL(join(dist, 'drive', 'index.js')).href);
}

function freshImportMs(what) {
  const floor = spawnSync(process.execPath, ['-e', '0']);
  if (floor.status !== 0) throw new Error('node -e 0 failed');
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  const t1 = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `await import(${JSON.stringify(what)})`],
    { cwd: root },
  );
  const t2 = process.hrtime.bigint();
  if (r.status !== 0) throw new Error(`importing ${what}: ${r.stderr}`);
  return Number(t2 - t1 - (t1 - t0)) / 1e6;
}

async function turn(drive, count) {
  const t0 = performance.now();
  const run = drive.stream({
    agent: 'acp',
    acp: { name: 'bench-acp', command: [agent, String(count)] },
    prompt: 'go',
    cwd: dir,
    permission: 'default',
    env: 'minimal',
    timeoutMs: 120_000,
  });
  let started = null;
  let texts = 0;
  let bytes = 0;
  for await (const e of run) {
    if (e.kind === 'started') started = performance.now() - t0;
    if (e.kind === 'text') {
      texts++;
      bytes += e.text.length;
    }
  }
  await run.outcome;
  return { started, total: performance.now() - t0, texts, bytes };
}

/** The client alone: a conversation fed its agent's lines in-process, per message in µs. */
async function inProcess(dist, count) {
  const { AcpConversation } = await import(pathToFileURL(join(dist, 'drive', 'acp', 'client.js')).href);
  const { acpSpec } = await import(pathToFileURL(join(dist, 'drive', 'acp', 'spec.js')).href);
  const { planRequest } = await import(pathToFileURL(join(dist, 'drive', 'request.js')).href);
  const { PassThrough } = await import('node:stream');
  const acp = { name: 'bench-acp', command: ['bench-acp'] };
  const plan = planRequest(
    { agent: 'acp', acp, prompt: 'go', cwd: dir, permission: 'default' },
    acpSpec(acp).caps,
  );
  let events = 0;
  let settled = null;
  const done = new Promise((resolve) => {
    settled = resolve;
  });
  const host = {
    broke: () => settled(),
    settled: () => settled(),
    emit: (es) => {
      events += es.length;
    },
    ready: () => {},
  };
  const c = new AcpConversation(plan, acp, host);
  const stdin = new PassThrough();
  stdin.resume();
  c.begin(stdin);
  const tick = () => new Promise((r) => setImmediate(r));
  const say = async (line) => {
    events += c.read(line).length;
  };
  for (let i = 0; i < 5; i++) await tick();
  await say(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {} } }));
  for (let i = 0; i < 5; i++) await tick();
  await say(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 'bench-session' } }));
  for (let i = 0; i < 5; i++) await tick();
  const lines = [];
  for (let i = 0; i < count; i++)
    lines.push(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 'bench-session',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${i} ` } },
        },
      }),
    );
  const t0 = performance.now();
  // As the runner hands them: a batch, then the event loop turns (which is when the SDK reads them).
  for (let i = 0; i < lines.length; i += 256) {
    for (const line of lines.slice(i, i + 256)) await say(line);
    await tick();
  }
  await say(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }));
  await done;
  const ms = performance.now() - t0;
  c.abandon();
  if (events < count) throw new Error(`in-process: ${events} events for ${count} messages`);
  return (ms / count) * 1000;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const fmt = (xs, unit, digits = 1) =>
  `${quantile(xs, 0.5).toFixed(digits)} ${unit} (p90 ${quantile(xs, 0.9).toFixed(digits)})`;

const results = [];
const sdkImport = [];
for (const b of builds) {
  b.drive = await import(pathToFileURL(join(b.dist, 'drive', 'index.js')).href);
  b.import = [];
  b.started = [];
  b.turn = [];
  b.perMsg = [];
  b.inProc = [];
  b.delivered = null;
}
// One turn each first, not counted: a build's first ACP run loads what it loads once per process.
for (const b of builds) await turn(b.drive, 1);
// Builds take turns each round, so a busy machine slows both alike.
for (let r = 0; r < runs; r++) {
  sdkImport.push(freshImportMs('@agentclientprotocol/sdk'));
  for (const b of builds) {
    b.import.push(importMs(b.dist));
    const one = await turn(b.drive, 1);
    const flood = await turn(b.drive, messages);
    b.started.push(one.started);
    b.turn.push(one.total);
    b.perMsg.push(((flood.total - one.total) / messages) * 1000);
    b.delivered = flood;
    b.inProc.push(await inProcess(b.dist, messages));
  }
}
console.log(
  `ACP client: ${runs} runs, a flood of ${messages} session/update chunks per run, Node ${process.version}`,
);
console.log(
  `the SDK alone: ${fmt(sdkImport, 'ms')} to import in a fresh node (paid by this build's first ACP run only)`,
);
for (const b of builds) {
  console.log(`\n${b.name}  ${b.dist}`);
  console.log(`  import    ${fmt(b.import, 'ms')}`);
  console.log(`  started   ${fmt(b.started, 'ms')}`);
  console.log(`  turn      ${fmt(b.turn, 'ms')}`);
  console.log(`  per msg   ${fmt(b.perMsg, 'µs')}`);
  console.log(`  in-proc   ${fmt(b.inProc, 'µs')} per message`);
  console.log(
    `  delivered ${b.delivered.texts} text events, ${b.delivered.bytes} bytes of text in the last flood`,
  );
  results.push(b);
}
rmSync(dir, { recursive: true, force: true });
