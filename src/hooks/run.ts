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
 * A deciding hook (`cctop hook claude PermissionRequest --hold SECONDS`, installed by `cctop hooks
 * install --approvals`) is the other exception, to "never what the agent waits on": once its event is
 * journaled and sent, it holds the request for up to SECONDS so that it can be answered from
 * anywhere (`approvals/hold.ts`), and prints the answer the agent reads, or nothing when the hold
 * ends unanswered (the agent's own dialog, shown meanwhile, decides).
 *
 * Not here: the process itself (`bin.ts`: the deadline timer, the exit code), the field spellings
 * (`reduce.ts`).
 */
import type { Readable } from 'node:stream';
import type { Hold, HoldResult } from '../approvals/hold.js';
import { type HookDecider, MAX_HOLD_SECONDS, type ReleaseWhy } from '../approvals/types.js';
import { type JsonObject, str } from '../model/json.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import { broadcastIn, type Delivery } from '../runtime/peers.js';
import { PROTOCOL_VERSION } from '../runtime/protocol.js';
import { appendJournal } from './journal.js';
import { isEventName, readPayload, reduceHook } from './reduce.js';
import { type HookAgent, type HookEvent, isHookAgent, MAX_HOOK_FIELD_CHARS } from './types.js';

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

/** The flag of a deciding hook, followed by how many seconds it may hold a request. */
export const HOLD_FLAG = '--hold';

/** How long a holding hook's broadcast to the running cctops may take (an ordinary hook's whole deadline). */
const HOLD_BROADCAST_MS = 200;

/** How many seconds `args` (the words after `hook`) ask to hold, or null when they ask none (or a bad number). */
export function holdSecondsIn(args: readonly string[]): number | null {
  const at = args.indexOf(HOLD_FLAG);
  if (at < 2) return null;
  const n = Number(args[at + 1]);
  return Number.isInteger(n) && n > 0 && n <= MAX_HOLD_SECONDS ? n : null;
}

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
  /** The agent's decider, when its hook holds requests (`hooks/deciders.ts`); absent: nothing is held. */
  decider?: (agent: HookAgent) => Promise<HookDecider | null>;
  /** This process's id, written with a held request (a request whose hook is gone is not open). */
  pid?: number;
  /** Waits between a hold's looks. */
  sleep?: (ms: number) => Promise<void>;
}

/** What a run did: for tests and the benchmark; the command itself shows none of it. */
export type HookOutcome =
  | { kind: 'ignored'; why: 'agent' | 'event' }
  | {
      kind: 'recorded';
      event: HookEvent;
      journal: 'appended' | 'refused';
      delivery: Delivery | null;
      /** What a held request came to; null when nothing was held. */
      held: HoldResult | null;
    };

/** A hook under way. */
export interface HookRun {
  /** Settles once the hook has done all it will: ignored the call, or journaled and sent the event. */
  done: Promise<HookOutcome>;
  /**
   * For `bin.ts` when the deadline passes first: journal the event, synchronously, from what stdin
   * gave so far and what is waiting in it (`HookIo.drain`). Does nothing once it is journaled.
   */
  atDeadline(): void;
  /** For `bin.ts` on a signal: end a hold now (its request is settled as `why`). */
  stop(why: ReleaseWhy): void;
}

export async function runHook(io: HookIo): Promise<HookOutcome> {
  return startHook(io).done;
}

export function startHook(io: HookIo): HookRun {
  const [agent, event, ...rest] = io.args;
  const nothing = { atDeadline: () => {}, stop: () => {} };
  if (agent === undefined || !isHookAgent(agent))
    return { done: Promise.resolve({ kind: 'ignored', why: 'agent' }), ...nothing };
  if (event === undefined || !isEventName(event))
    return { done: Promise.resolve({ kind: 'ignored', why: 'event' }), ...nothing };

  // First: the agent waits for this, and it depends on the event alone.
  const answer = safely(() => io.answer(agent, event));
  if (answer !== null) io.out(answer);

  const notify = agent === 'codex' && event === CODEX_NOTIFY ? codexNotifyArgs(rest) : null;
  const holdSeconds = notify === null ? holdSecondsIn(io.args) : null;
  // Stdin and the peers get what an ordinary hook gets, however long the hold may be.
  const ordinaryEnd =
    holdSeconds === null ? io.deadlineAt : Math.min(io.deadlineAt, io.now() + HOOK_DEADLINE_MS);
  const chunks: Buffer[] = [];
  let recorded: Recorded | null = null;
  let hold: Hold | null = null;
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
    recorded = { event: reduced, payload, dir: dir.kind === 'ok' ? dir.path : null };
    return recorded;
  };

  const done = (async (): Promise<HookOutcome> => {
    const text =
      notify !== null
        ? notify.payload.slice(0, MAX_HOOK_INPUT_BYTES)
        : await readStdin(io.stdin, {
            maxBytes: MAX_HOOK_INPUT_BYTES,
            until: ordinaryEnd - DELIVERY_RESERVE_MS,
            now: io.now,
            chunks,
            drain: io.drain,
          });
    const r = recorded ?? record(text);
    if (notify !== null && notify.chained.length > 0)
      await safelyAsync(() => io.chain([...notify.chained, notify.payload]));
    if (r.dir === null)
      return { kind: 'recorded', event: r.event, journal: 'refused', delivery: null, held: null };
    const message = { v: PROTOCOL_VERSION, kind: 'hook', event: r.event } as const;
    const budget = holdSeconds === null ? io.deadlineAt - io.now() : HOLD_BROADCAST_MS;
    const delivery = await broadcastIn(r.dir, message, budget);
    let held: HoldResult | null = null;
    if (holdSeconds !== null && io.decider !== undefined) {
      hold = await startHolding(io, agent, event, r, holdSeconds);
      if (hold !== null) {
        held = await hold.done;
        if (held.kind === 'delivered') io.out(held.output);
      }
    }
    return { kind: 'recorded', event: r.event, journal: 'appended', delivery, held };
  })();

  return {
    done,
    stop: (why) => hold?.stop(why),
    atDeadline: () => {
      hold?.stop('timeout');
      if (recorded !== null || notify !== null) return;
      const text = Buffer.concat([...chunks, io.drain()])
        .subarray(0, MAX_HOOK_INPUT_BYTES)
        .toString('utf8');
      record(text);
    },
  };
}

/** The event as reduced, its payload, and the runtime directory it was journaled in (null when refused). */
interface Recorded {
  event: HookEvent;
  payload: JsonObject | null;
  dir: string | null;
}

/**
 * Register the request and start holding it, when the agent decides this event and the session is
 * known (a request of no session could be answered by no one who can prove which it is); else null.
 */
async function startHolding(
  io: HookIo,
  agent: HookAgent,
  event: string,
  r: Recorded,
  seconds: number,
): Promise<Hold | null> {
  const decider = await safelyAsyncValue(() => io.decider!(agent));
  if (decider === null || !decider.events.includes(event)) return null;
  if (r.dir === null || r.payload === null || r.event.session === null) return null;
  const { approvalsDir } = await import('../approvals/store.js');
  const { startHold } = await import('../approvals/hold.js');
  const { APPROVAL_VERSION, MAX_QUESTIONS } = await import('../approvals/types.js');
  const { randomBytes } = await import('node:crypto');
  const dir = approvalsDir(r.dir);
  if (dir === null) return null;
  const payload = r.payload;
  const asked = decider.ask(payload);
  const at = io.now();
  const movedOn = decider.watch(payload);
  return startHold({
    dir,
    runtime: r.dir,
    request: {
      v: APPROVAL_VERSION,
      id: randomBytes(16).toString('hex'),
      agent,
      session: r.event.session,
      cwd: r.event.cwd,
      tool: r.event.tool,
      input: r.event.input,
      kind: asked.kind,
      questions: asked.questions.slice(0, MAX_QUESTIONS).map((q) => q.slice(0, MAX_HOOK_FIELD_CHARS)),
      at,
      expiresAt: Math.min(io.deadlineAt, at + seconds * 1000),
      pid: io.pid ?? process.pid,
    },
    now: io.now,
    sleep: io.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms))),
    agentPid: io.ppid,
    movedOn,
    render: (answer) => decider.render(answer.verdict, payload),
  });
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

async function safelyAsyncValue<T>(f: () => Promise<T | null>): Promise<T | null> {
  try {
    return await f();
  } catch {
    // No decider: the hook only watches, as without --approvals.
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
