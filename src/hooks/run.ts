/**
 * `cctop hook <agent> <event>`: what an agent's hook runs. It reads the agent's payload, reduces it
 * to one `HookEvent`, appends that to the journal and hands it to every running cctop.
 *
 * It runs inside the agent's loop, so it must never be what the agent waits on or trips over: it
 * prints nothing but the answer an agent requires (`agentHooks(agent).answer(event)`, e.g. Cursor's
 * `{"continue":true}`), fails silently on anything wrong (an unknown agent or event, garbage input,
 * a refused runtime directory), reads at most `MAX_HOOK_INPUT_BYTES`, and stops waiting for input or
 * peers at its deadline (`bin.ts` ends the process at `HOOK_DEADLINE_MS` whatever is pending).
 *
 * Codex's `notify` is the exception to stdin: Codex runs the program with the JSON notification as
 * its last argument and may leave stdin inherited and open, so stdin is not read at all. Its event is
 * the notification's `type`. The installer writes `cctop hook codex notify --then <prog> <args…>`
 * when the user had a notifier of their own; that program is run, detached and not waited for, with
 * the same last argument, so installing cctop takes nothing away. (Codex's hooks file runs
 * `cctop hook codex <Event>` with a payload on stdin, like the other agents.)
 *
 * Not here: the process itself (`bin.ts`: the deadline timer, the exit code), the field spellings
 * (`reduce.ts`).
 */
import type { Readable } from 'node:stream';
import { type JsonObject, str } from '../model/json.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import { broadcastIn, type Delivery } from '../runtime/peers.js';
import { PROTOCOL_VERSION } from '../runtime/protocol.js';
import { appendJournal } from './journal.js';
import { isEventName, readPayload, reduceHook } from './reduce.js';
import { type HookAgent, type HookEvent, isHookAgent } from './types.js';

/**
 * How long `cctop hook` may take, from when its code starts, before it ends itself (exit 0) whatever
 * is pending. The agents run hooks in their own loop (Claude Code waits for a hook before the tool
 * it guards runs): a quarter of a second is already more than a person notices added to every tool
 * call, and well past what reading a payload and writing one line to a few sockets take.
 */
export const HOOK_DEADLINE_MS = 250;

/**
 * The most of stdin read. Every field a `HookEvent` keeps sits at the payload's top level; what makes
 * a payload large is a tool's whole input or result (`PostToolUse`), which is not kept. A cut payload
 * is still read for its top-level strings (`reduce.ts`). The rest of stdin is left unread.
 */
export const MAX_HOOK_INPUT_BYTES = 256 * 1024;

/** Of the deadline, what is kept for the journal and the peers after waiting for stdin. */
const DELIVERY_RESERVE_MS = 50;

/** The event Codex's `notify` entry is run as, and the flag that chains to the user's own notifier. */
const CODEX_NOTIFY = 'notify';
const THEN = '--then';

export interface HookIo {
  /** The words after `hook`: `<agent> <event> [...]`. */
  args: readonly string[];
  env: Env;
  stdin: Readable & { isTTY?: boolean };
  /**
   * What is waiting in stdin now, read without waiting (empty when stdin was never opened). A
   * process starved of CPU (a dozen hooks at once on two cores) reaches its deadlines with the
   * payload already in its pipe but not yet read: its timers run before its pending reads. Taking
   * what is there at each deadline keeps its event.
   */
  drain: () => Buffer;
  /** Where the agent's required answer goes (stdout). */
  out: (s: string) => void;
  ppid: number | null;
  now: () => number;
  /** When everything must be over, on `now`'s clock. */
  deadlineAt: number;
  /** The agent's required answer for an event (`agentHooks(agent).answer`), or null. */
  answer: (agent: HookAgent, event: string) => string | null;
  /** Start a program detached, never waited for (Codex's chained notifier). */
  chain: (argv: readonly string[]) => Promise<void>;
}

/** What a run did: for tests and the benchmark; the command itself shows none of it. */
export type HookOutcome =
  | { kind: 'ignored'; why: 'agent' | 'event' }
  | { kind: 'recorded'; event: HookEvent; journal: 'appended' | 'refused'; delivery: Delivery | null };

/** A hook under way. */
export interface HookRun {
  /** Settles once the hook has done all it will: ignored the call, or journaled and sent the event. */
  done: Promise<HookOutcome>;
  /**
   * For `bin.ts` when the deadline passes first: journal the event, synchronously, from what stdin
   * gave so far and what is waiting in it (`HookIo.drain`). Does nothing once it is journaled.
   */
  atDeadline(): void;
}

export async function runHook(io: HookIo): Promise<HookOutcome> {
  return startHook(io).done;
}

export function startHook(io: HookIo): HookRun {
  const [agent, event, ...rest] = io.args;
  const nothing = { atDeadline: () => {} };
  if (agent === undefined || !isHookAgent(agent))
    return { done: Promise.resolve({ kind: 'ignored', why: 'agent' }), ...nothing };
  if (event === undefined || !isEventName(event))
    return { done: Promise.resolve({ kind: 'ignored', why: 'event' }), ...nothing };

  // First: the agent waits for this, and it depends on the event alone.
  const answer = safely(() => io.answer(agent, event));
  if (answer !== null) io.out(answer);

  const notify = agent === 'codex' && event === CODEX_NOTIFY ? codexNotifyArgs(rest) : null;
  const chunks: Buffer[] = [];
  let recorded: Recorded | null = null;
  const record = (text: string): Recorded => {
    const payload = readPayload(text);
    const reduced = reduceHook({
      agent,
      event: notify !== null ? codexEvent(payload) : event,
      payload,
      at: io.now(),
      ppid: io.ppid,
    });
    const dir = runtimeDir(io.env);
    if (dir.kind === 'ok') appendJournal(dir.path, reduced);
    recorded = { event: reduced, dir: dir.kind === 'ok' ? dir.path : null };
    return recorded;
  };

  const done = (async (): Promise<HookOutcome> => {
    const text =
      notify !== null
        ? notify.payload.slice(0, MAX_HOOK_INPUT_BYTES)
        : await readStdin(io.stdin, {
            maxBytes: MAX_HOOK_INPUT_BYTES,
            until: io.deadlineAt - DELIVERY_RESERVE_MS,
            now: io.now,
            chunks,
            drain: io.drain,
          });
    const r = recorded ?? record(text);
    if (notify !== null && notify.chained.length > 0)
      await safelyAsync(() => io.chain([...notify.chained, notify.payload]));
    if (r.dir === null) return { kind: 'recorded', event: r.event, journal: 'refused', delivery: null };
    const message = { v: PROTOCOL_VERSION, kind: 'hook', event: r.event } as const;
    const delivery = await broadcastIn(r.dir, message, io.deadlineAt - io.now());
    return { kind: 'recorded', event: r.event, journal: 'appended', delivery };
  })();

  return {
    done,
    atDeadline: () => {
      if (recorded !== null || notify !== null) return;
      const text = Buffer.concat([...chunks, io.drain()])
        .subarray(0, MAX_HOOK_INPUT_BYTES)
        .toString('utf8');
      record(text);
    },
  };
}

/** The event as reduced, and the runtime directory it was journaled in (null when refused). */
interface Recorded {
  event: HookEvent;
  dir: string | null;
}

/**
 * The words after `hook codex notify`: `[--then <prog> <args…>] <payload>`. Codex appends the
 * payload, so it is always the last word; what stands between `--then` and it is the chained program.
 */
export function codexNotifyArgs(rest: readonly string[]): { payload: string; chained: string[] } {
  const payload = rest.length > 0 ? rest[rest.length - 1]! : '';
  const chained = rest[0] === THEN ? rest.slice(1, -1) : [];
  return { payload, chained };
}

/** Codex's event: the notification's `type` (`agent-turn-complete`), else `notify`. */
function codexEvent(payload: JsonObject | null): string {
  const type = payload === null ? null : str(payload.type);
  return type !== null && isEventName(type) ? type : CODEX_NOTIFY;
}

/** How `readStdin` reads. */
export interface StdinReading {
  maxBytes: number;
  /** When to stop waiting, on `now`'s clock. */
  until: number;
  now: () => number;
  /** Filled with what arrives, as it arrives. */
  chunks?: Buffer[];
  /** What is waiting unread when the wait ends (see `HookIo.drain`). */
  drain?: () => Buffer;
}

/**
 * Stdin as text: up to `maxBytes`, until it ends or `until` passes, whichever is first; at that
 * point, what is waiting unread is taken too. A terminal is not read (someone ran the command by
 * hand). Never rejects.
 */
export function readStdin(stream: Readable & { isTTY?: boolean }, how: StdinReading): Promise<string> {
  const { maxBytes, chunks = [], drain = () => Buffer.alloc(0) } = how;
  if (stream.isTTY === true) return Promise.resolve('');
  return new Promise((resolve) => {
    let size = 0;
    let over = false;
    const finish = (timedOut: boolean) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      stream.off('data', onData);
      if (timedOut && size < maxBytes) {
        const rest = drain();
        if (rest.length > 0) chunks.push(rest);
      }
      // Nothing more is wanted: a writer that keeps the pipe open must not keep this process alive.
      stream.destroy();
      resolve(Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'));
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(b);
      size += b.length;
      if (size >= maxBytes) finish(false);
    };
    const timer = setTimeout(() => finish(true), Math.max(0, how.until - how.now()));
    stream.on('data', onData);
    stream.once('end', () => finish(false));
    stream.once('error', () => finish(false));
  });
}

/** Run a program detached from this process: its own session, stdio ignored, never waited for. */
export async function chainDetached(argv: readonly string[]): Promise<void> {
  const [prog, ...args] = argv;
  if (prog === undefined || prog.length === 0) return;
  const { spawn } = await import('node:child_process');
  const child = spawn(prog, args, { detached: true, stdio: 'ignore' });
  // A program that cannot start (gone since it was installed) reports it here, after this returns.
  child.on('error', () => {});
  child.unref();
}

function safely<T>(f: () => T | null): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

async function safelyAsync(f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch {
    // The hook goes on without it.
  }
}
