/**
 * `cctop hook` wired to the process: `cli.ts` hands `cctop hook …` here before it loads anything
 * else, since every hook of every agent starts this process and its start-up is the cost
 * (`bench/hook.mjs` measures it). `node dist/hooks/bin.js <agent> <event>` runs it too.
 *
 * This file owns the promises `run.ts` cannot keep on its own: the exit code is 0 whatever happens
 * (a hook's failure must never be the agent's), and the process ends at `HOOK_DEADLINE_MS` even when
 * something it waits on never answers (stdin that never closes, a peer that never reads); what it
 * had read by then is still journaled. A deciding hook (`--hold SECONDS`) has that many seconds more;
 * a signal ends its hold at once, settled as the agent giving up on it.
 *
 * Imports only the hook's own modules and the agents' small tables (`agents.ts`).
 */
import { readSync } from 'node:fs';
import { loadAgentHooks } from './agent-loader.js';
import { loadDecider } from './deciders.js';
import {
  chainDetached,
  HOOK_DEADLINE_MS,
  type HookRun,
  holdSecondsIn,
  MAX_HOOK_INPUT_BYTES,
  startHook,
} from './run.js';
import { isHookAgent } from './types.js';

let run: HookRun | null = null;
let stdinOpened = false;

const leave = (): never => process.exit(0);

/** At the deadline (or on any fault): journal what was read, then go. */
const giveUp = (): never => {
  try {
    run?.atDeadline();
  } catch {
    // Nothing more to save.
  }
  return leave();
};

/**
 * What is waiting in stdin now, read without waiting: once `process.stdin` is open on a pipe or
 * socket, node has made it non-blocking, so a read returns what is there or fails at once. A file
 * reads to its end; a terminal is never read.
 */
function drainStdin(): Buffer {
  if (!stdinOpened || process.stdin.isTTY === true) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let size = 0;
  const buf = Buffer.alloc(64 * 1024);
  while (size < MAX_HOOK_INPUT_BYTES) {
    let n = 0;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch {
      break;
    }
    if (n === 0) break;
    parts.push(Buffer.from(buf.subarray(0, n)));
    size += n;
  }
  return Buffer.concat(parts);
}

// Run as a script, the words are the hook's own; run as `cctop hook …` (or `cctop [options] hook …`,
// through `main.ts`), they are those after the command's name.
const argv = process.argv.slice(2);
const direct = /[\\/]hooks[\\/]bin\.[jt]s$/.test(process.argv[1] ?? '');
const args = direct ? argv : argv.slice(argv.indexOf('hook') + 1);

const holdMs = (holdSecondsIn(args) ?? 0) * 1000;
const deadlineAt = Date.now() + HOOK_DEADLINE_MS + holdMs;
setTimeout(giveUp, HOOK_DEADLINE_MS + holdMs).unref();
process.on('uncaughtException', giveUp);
process.on('unhandledRejection', giveUp);
// The agent closed its end of stdout: nothing to tell it any more, and nothing to fail over.
process.stdout.on('error', () => {});
// The agent stopped waiting (its own timeout, an interrupt): a held request is settled as such.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
  process.on(signal, () => {
    try {
      run?.stop('hook-ended');
    } catch {
      // Nothing more to save.
    }
    leave();
  });

try {
  // The one table this event's agent needs (an unknown agent needs none: it gets no answer).
  const agent = args[0];
  const hooks = agent !== undefined && isHookAgent(agent) ? await loadAgentHooks(agent) : null;
  run = startHook({
    args,
    env: process.env,
    // Opened only when wanted: touching `process.stdin` opens it.
    get stdin() {
      stdinOpened = true;
      return process.stdin;
    },
    drain: drainStdin,
    out: (s) => process.stdout.write(`${s}\n`),
    ppid: process.ppid,
    now: Date.now,
    deadlineAt,
    answer: (_agent, event) => hooks?.answer(event) ?? null,
    chain: chainDetached,
    decider: loadDecider,
    pid: process.pid,
  });
  await run.done;
  // A held request's decision is written last: on a system where a pipe is written asynchronously
  // (macOS), exiting at once could lose it. The deadline timer still bounds this wait.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
} catch {
  // Exit 0 below, as on success.
}
leave();
