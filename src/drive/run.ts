/**
 * Running an agent: spawn it in its own process group, read its stdout through the bounded line
 * reader into the parser, hand events to the consumer through the bounded queue, answer its control
 * channel, enforce the timeout, and kill and reap the whole group however the run ends.
 *
 * Back-pressure is the point of the shape. Lines are parsed only while the queue has room; when it
 * is full, stdout is paused, the pipe fills, and the agent blocks on its next write. A consumer that
 * reads slowly slows the agent; it never grows memory past the queue's depth.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { type AgentSpec, type Baseline, type Invocation, spec } from './agents/index.js';
import {
  Capture,
  EVENT_QUEUE_DEPTH,
  EVENT_QUEUE_RESUME,
  KILL_GRACE_MS,
  MAX_ARGUMENT_BYTES,
  MAX_COMMAND_LINE_BYTES,
  MAX_PENDING_APPROVALS,
} from './bounds.js';
import { childEnv, type Env } from './env.js';
import { DriveError } from './errors.js';
import { type AgentId, type Decision, type Event, isAgentId, isBlocking, type Outcome } from './events.js';
import { LineReader } from './lines.js';
import { StreamParser } from './parser.js';
import { EventQueue } from './queue.js';
import * as reaper from './reaper.js';
import { type Plan, planRequest, type Request } from './request.js';
import { defaultSessionDir, type Lease, SessionStore } from './sessions.js';

/** A running agent. Iterate it for events; await `outcome` for the result. */
export interface Run extends AsyncIterable<Event> {
  readonly agent: AgentId;
  /** The command line as spawned (prompt included); empty when the run never started. */
  readonly argv: readonly string[];
  /**
   * The result once the agent ran to an end, a failed turn included (`stop` says so). Rejects with a
   * {@link DriveError} when the agent could not run, died without a result, or was stopped.
   */
  readonly outcome: Promise<Outcome>;
  /** Resolves once the agent's process group is gone, however the run ended. Never rejects. */
  readonly closed: Promise<void>;
  /** Answer an `approval_request`. */
  respond(id: string, decision: Decision): void;
  /** Send another message mid-run; taken at the agent's next step (`interactive` runs, Claude). */
  send(text: string): void;
  /** Stop the run: the process group is killed and reaped, and `outcome` rejects with `cancelled`. */
  cancel(): void;
  stats(): RunStats;
}

/** What a run has done so far; `queueHighWater` is the evidence that back-pressure held. */
export interface RunStats {
  pid: number | null;
  lines: number;
  /** Lines longer than `MAX_LINE`, of which only the head was read. */
  linesCut: number;
  events: number;
  queued: number;
  queueHighWater: number;
}

type StopReason = 'timeout' | 'cancelled';

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The agent's executable: `bin` as a path, or its name looked up on the PATH the agent will get. */
export function locate(bin: string, env: Readonly<Record<string, string | undefined>>): string | null {
  if (bin.includes('/') || (process.platform === 'win32' && bin.includes('\\'))) {
    const p = isAbsolute(bin) ? bin : resolve(bin);
    return executable(p) ? p : null;
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of exts) {
      const p = join(dir, bin + ext);
      if (executable(p)) return p;
    }
  }
  return null;
}

/** Whether an agent is installed where `env`'s PATH would find it. */
export const installed = (agent: AgentId, env: Env = process.env): boolean =>
  locate(spec(agent).bin, env) !== null;

const DEFAULT_DENIAL = 'The user denied this tool call.';

class AgentRun implements Run {
  readonly agent: AgentId;
  argv: readonly string[] = [];
  readonly outcome: Promise<Outcome>;
  readonly closed: Promise<void>;

  private readonly spec: AgentSpec;
  private plan: Plan | null = null;
  /** What the conversation had counted before this run; unknown until the run has started. */
  private baseline: Baseline = { kind: 'unknown' };
  private child: ChildProcess | null = null;
  private bin: string;
  private readonly queue: EventQueue<Event>;
  private parser: StreamParser;
  private readonly reader = new LineReader();
  private readonly stderr = new Capture();
  /** Lines read but not yet parsed because the queue was full: at most one chunk's worth. */
  private ready: string[] = [];
  private readyAt = 0;
  private paused = false;
  private exited = false;
  private pipesClosed = false;
  private exitCode: number | null = null;
  private exitSignal: string | null = null;
  private stopping: StopReason | null = null;
  private finished = false;
  private stdinOpen = false;
  private messagesSent = 0;
  private lines = 0;
  private readonly approvals = new Map<string, unknown>();
  private timer: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number | null;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => this.stop('cancelled');
  private lease: Lease | null = null;
  private bindName: ((session: string) => void) | null = null;
  private tempDir: string | null = null;
  private resolveOutcome!: (o: Outcome) => void;
  private rejectOutcome!: (e: unknown) => void;
  private resolveClosed!: () => void;

  constructor(request: Request) {
    this.agent = request.agent;
    // An unknown agent is refused by planRequest in start(); until then any spec will do.
    this.spec = spec(isAgentId(request.agent) ? request.agent : 'claude');
    this.bin = request.bin ?? this.spec.bin;
    this.timeoutMs = request.timeoutMs ?? null;
    this.signal = request.signal;
    this.parser = new StreamParser(this.spec.dialect);
    this.queue = new EventQueue<Event>(EVENT_QUEUE_DEPTH, EVENT_QUEUE_RESUME, () => this.pump());
    this.outcome = new Promise<Outcome>((res, rej) => {
      this.resolveOutcome = res;
      this.rejectOutcome = rej;
    });
    // A caller who only iterates (or only breaks out) never awaits the outcome; its rejection must
    // not surface as an unhandled one. Awaiting it still sees the error.
    this.outcome.catch(() => {});
    this.closed = new Promise<void>((res) => {
      this.resolveClosed = res;
    });
    try {
      this.start(request);
    } catch (e) {
      this.finish(e instanceof DriveError ? e : this.spawnError(e));
    }
  }

  private spawnError(e: unknown): DriveError {
    return new DriveError({
      kind: 'spawn',
      agent: this.agent,
      bin: this.bin,
      cause: e instanceof Error ? e.message : String(e),
    });
  }

  private start(request: Request): void {
    const plan = planRequest(request, this.spec.caps);
    this.plan = plan;
    this.parser = new StreamParser(this.spec.dialect, plan.format);
    if (this.signal?.aborted) throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    const parent = request.parentEnv ?? process.env;
    const env = childEnv(parent, request.env ?? 'minimal', this.spec.credentials, request.setEnv ?? {});
    const path = locate(this.bin, env);
    if (path === null) {
      throw new DriveError({
        kind: 'not_installed',
        agent: this.agent,
        bin: this.bin,
        hint: this.spec.installHint,
      });
    }
    if (request.session !== undefined) this.openNamedSession(request, plan, parent);
    // Before the spawn: once running, the agent adds this run to the records the baseline is read from.
    this.baseline = this.spec.baseline(plan, env);
    let schemaFile: string | null = null;
    if (plan.schema !== null && this.spec.schemaInFile) {
      this.tempDir = mkdtempSync(join(tmpdir(), 'cctop-drive-'));
      schemaFile = join(this.tempDir, 'schema.json');
      writeFileSync(schemaFile, JSON.stringify(plan.schema), { mode: 0o600 });
    }
    const inv = this.spec.invocation(plan, schemaFile);
    this.checkCommandLine(inv);
    this.argv = [path, ...inv.args];
    const child = spawn(path, inv.args, {
      cwd: plan.cwd,
      env: { ...env, ...inv.env },
      // Its own process group: the whole tree can be killed, and a terminal's Ctrl-C reaches us first.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    child.on('error', (e) => {
      // Only a failure to start arrives here before `spawn`; later ones (a failed kill) change nothing.
      if (child.pid === undefined) this.finish(this.spawnError(e));
    });
    if (child.pid === undefined) return;
    reaper.track(child, () => this.stop('cancelled'));
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout?.on('end', () => {
      this.ready.push(...this.reader.end());
      this.pump();
    });
    // Decoded by the stream, so a character split across two chunks is not mangled at the seam.
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => this.stderr.append(chunk));
    child.on('exit', (code, signal) => this.onExit(code, signal));
    child.on('close', () => {
      this.pipesClosed = true;
      this.pump();
    });
    this.feedStdin(inv);
    if (this.timeoutMs !== null) this.timer = setTimeout(() => this.stop('timeout'), this.timeoutMs);
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private checkCommandLine(inv: Invocation): void {
    let total = 0;
    for (const a of inv.args) {
      const n = Buffer.byteLength(a) + 1;
      total += n;
      if (n > MAX_ARGUMENT_BYTES || total > MAX_COMMAND_LINE_BYTES) {
        throw new DriveError({
          kind: 'invalid_request',
          what: `the command line for ${this.agent} is too large (an argument of ${n} bytes, ${total} in all): shorten the system prompt or schema`,
        });
      }
    }
  }

  private openNamedSession(request: Request, plan: Plan, parent: Env): void {
    const named = request.session!;
    const store = named.store ?? new SessionStore(defaultSessionDir(parent));
    const project = resolve(named.project ?? plan.cwd);
    this.lease = store.acquire(project, named.name);
    const record = store.get(project, named.name);
    if (record !== null && record.agent !== this.agent) {
      throw new DriveError({
        kind: 'session_conflict',
        name: named.name,
        project,
        bound: record.agent,
        requested: this.agent,
      });
    }
    if (named.fork === true) {
      if (!this.spec.caps.fork)
        throw new DriveError({ kind: 'unsupported', agent: this.agent, what: 'forking a session' });
      if (record === null) {
        throw new DriveError({
          kind: 'invalid_request',
          what: `there is no session named "${named.name}" to fork`,
        });
      }
    }
    if (record !== null) plan.session = { kind: 'resume', id: record.session, fork: named.fork === true };
    // An agent that takes a chosen id gets one now, so the name is known to mean it from the start.
    else if (this.spec.caps.mintSession) plan.session = { kind: 'mint', id: randomUUID() };
    else plan.session = { kind: 'new' };
    this.bindName = (session) => store.bind(project, named.name, this.agent, session);
  }

  private feedStdin(inv: Invocation): void {
    const stdin = this.child?.stdin;
    if (!stdin) return;
    // A child that exits before reading its input makes the write fail with EPIPE; its exit says why.
    stdin.on('error', () => {
      this.stdinOpen = false;
    });
    switch (inv.stdin.kind) {
      case 'none':
        stdin.end();
        return;
      case 'prompt':
        stdin.end(inv.stdin.text);
        return;
      case 'channel':
        this.stdinOpen = true;
        this.writeLine({
          type: 'control_request',
          request_id: 'cctop-init',
          request: { subtype: 'initialize' },
        });
        this.writeUser(inv.stdin.prompt);
        return;
    }
  }

  private writeLine(message: unknown): void {
    if (!this.stdinOpen) return;
    this.child?.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private writeUser(text: string): void {
    this.messagesSent++;
    this.writeLine({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } });
  }

  private onStdout(chunk: Buffer): void {
    if (this.stopping !== null || this.finished) return;
    for (const line of this.reader.feed(chunk)) this.ready.push(line);
    this.pump();
  }

  /** Parse ready lines while the queue has room; pause stdout when it has none; finish when all is read. */
  private pump(): void {
    if (this.finished) return;
    while (this.readyAt < this.ready.length && this.stopping === null) {
      if (this.queue.full) {
        if (!this.paused) {
          this.paused = true;
          this.child?.stdout?.pause();
        }
        return;
      }
      const line = this.ready[this.readyAt++]!;
      this.handleLine(line);
    }
    this.ready = [];
    this.readyAt = 0;
    if (this.paused) {
      this.paused = false;
      this.child?.stdout?.resume();
    }
    if (this.pipesClosed) this.finish(null);
  }

  private handleLine(line: string): void {
    this.lines++;
    const events = this.parser.push(line);
    // Control notes first: an approval answered on the caller's behalf must not reach the caller.
    const answered = new Set<string>();
    for (const note of this.parser.takeControl()) {
      switch (note.kind) {
        case 'approval':
          if (this.plan?.approvals !== true || this.approvals.size >= MAX_PENDING_APPROVALS) {
            // Not asked for (nobody would answer), or past the bound: denied, so the agent moves on.
            this.answer(
              note.id,
              { behavior: 'deny', reason: 'No one is available to approve this tool call.' },
              note.input,
            );
            answered.add(note.id);
          } else this.approvals.set(note.id, note.input);
          break;
        case 'withdrawn':
          this.approvals.delete(note.id);
          break;
        case 'unanswerable':
          // Unanswered, the agent would wait for this reply until the timeout.
          this.writeLine({
            type: 'control_response',
            response: {
              subtype: 'error',
              request_id: note.id,
              error: `cctop does not handle ${note.subtype} requests`,
            },
          });
          break;
      }
    }
    for (const event of events) {
      if (event.kind === 'approval_request' && answered.has(event.id)) continue;
      if (event.kind === 'started' && this.bindName !== null) {
        try {
          this.bindName(event.session);
        } catch {
          // The run goes on; the name simply stays unbound, and the next run says why when it reads it.
        }
        this.bindName = null;
      }
      this.queue.push(event);
    }
    // Under stream-json input Claude waits for another message after each turn; once every message
    // sent has its turn, closing stdin lets it exit instead of idling until the timeout.
    if (this.stdinOpen && this.parser.turns >= this.messagesSent) this.closeStdin();
  }

  private closeStdin(): void {
    if (!this.stdinOpen) return;
    this.stdinOpen = false;
    this.approvals.clear();
    this.child?.stdin?.end();
  }

  private answer(id: string, decision: Decision, input: unknown): void {
    const original = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
    const response =
      decision.behavior === 'allow'
        ? { behavior: 'allow', updatedInput: decision.updatedInput ?? original }
        : { behavior: 'deny', message: decision.reason ?? DEFAULT_DENIAL };
    this.writeLine({ type: 'control_response', response: { subtype: 'success', request_id: id, response } });
  }

  respond(id: string, decision: Decision): void {
    if (this.plan !== null && !this.plan.approvals) {
      throw new DriveError({
        kind: 'unsupported',
        agent: this.agent,
        what: 'approvals on a run started without approvals: true',
      });
    }
    if (this.finished || this.stopping !== null || !this.stdinOpen) {
      throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    }
    if (!this.approvals.has(id)) {
      throw new DriveError({
        kind: 'invalid_request',
        what: `no approval request "${id.slice(0, 80)}" is waiting`,
      });
    }
    const input = this.approvals.get(id);
    this.approvals.delete(id);
    this.answer(id, decision, input);
  }

  send(text: string): void {
    if (this.plan !== null && !this.plan.interactive) {
      throw new DriveError({
        kind: 'unsupported',
        agent: this.agent,
        what: 'mid-run input on a run started without interactive: true',
      });
    }
    if (this.finished || this.stopping !== null || !this.stdinOpen) {
      // The turn settled: a new message is a new run that resumes the session.
      throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    }
    this.writeUser(text);
  }

  cancel(): void {
    this.stop('cancelled');
  }

  stats(): RunStats {
    return {
      pid: this.child?.pid ?? null,
      lines: this.lines,
      linesCut: this.reader.cut,
      events: this.queue.delivered,
      queued: this.queue.length,
      queueHighWater: this.queue.highWater,
    };
  }

  private stop(reason: StopReason): void {
    if (this.finished || this.stopping !== null) return;
    this.stopping = reason;
    const child = this.child;
    if (child === null || child.pid === undefined) {
      this.finish(null);
      return;
    }
    // Lines not yet parsed are dropped and the pipe drained, or a paused stdout would never close.
    this.ready = [];
    this.readyAt = 0;
    if (this.paused) {
      this.paused = false;
      child.stdout?.resume();
    }
    this.closeStdin();
    if (!this.exited) {
      reaper.signalGroup(child.pid, 'SIGTERM', child);
      this.killTimer = setTimeout(() => {
        if (child.pid !== undefined) reaper.signalGroup(child.pid, 'SIGKILL', child);
      }, KILL_GRACE_MS);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    const child = this.child;
    // The agent is gone; whatever it left running in its group (a shell, a server a tool started)
    // goes too, or it would hold the pipes open and outlive the run.
    if (child?.pid !== undefined) reaper.signalGroup(child.pid, 'SIGKILL', child);
    if (child) reaper.untrack(child);
    if (this.killTimer !== null) clearTimeout(this.killTimer);
  }

  private finish(failure: DriveError | null): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.child !== null) reaper.untrack(this.child);
    this.stdinOpen = false;
    const outcome = this.buildOutcome();
    const error = failure ?? this.judge(outcome);
    this.lease?.release();
    if (this.tempDir !== null) rmSync(this.tempDir, { recursive: true, force: true });
    if (error !== null) {
      this.rejectOutcome(error);
      this.queue.end(error);
    } else {
      this.resolveOutcome(outcome);
      this.queue.end();
    }
    this.resolveClosed();
  }

  private buildOutcome(): Outcome {
    const t =
      this.plan === null
        ? this.parser.terminal()
        : this.spec.settle(this.parser.terminal(), this.plan, this.baseline);
    const settled = this.plan?.format === 'text' ? this.exitCode === 0 : this.parser.sawTerminal;
    return {
      agent: this.agent,
      session: t.session,
      model: t.model,
      text: t.text,
      usage: t.usage,
      threadUsage: t.threadUsage,
      threadCostUsd: t.threadCostUsd,
      stop: settled ? t.stop : { kind: 'unfinished' },
      rateLimit: t.rateLimit,
      exitCode: this.exitCode,
      signal: this.exitSignal,
      stderr: this.stderr.text(),
      unparsed: t.unparsed,
      firstUnparsed: t.firstUnparsed,
      structured: t.structured,
      errorStatus: t.errorStatus,
      errorMessage: t.errorMessage,
    };
  }

  /** The error for a run that ended by itself, or null when it ended with an outcome. */
  private judge(outcome: Outcome): DriveError | null {
    const bin = this.bin;
    const agent = this.agent;
    if (this.stopping === 'timeout') {
      return new DriveError({
        kind: 'timeout',
        agent,
        bin,
        timeoutMs: this.timeoutMs ?? 0,
        partial: outcome,
      });
    }
    if (this.stopping === 'cancelled') return new DriveError({ kind: 'cancelled', agent, bin });
    // The agent settled its turn (even a failed one), or exited cleanly: that is an outcome.
    if (outcome.stop.kind !== 'unfinished' || this.exitCode === 0) return null;
    const stderr = outcome.stderr;
    if (this.spec.authFailure(stderr)) {
      const line =
        stderr
          .trim()
          .split('\n')
          .find((l) => this.spec.authFailure(l)) ?? 'no usable login';
      return new DriveError({
        kind: 'not_authenticated',
        agent,
        bin,
        hint: this.spec.loginHint,
        message: line.trim(),
      });
    }
    const limit = outcome.rateLimit;
    if ((limit !== null && isBlocking(limit)) || /rate.?limit|\b429\b|quota exceeded/i.test(stderr)) {
      const message =
        limit !== null && isBlocking(limit)
          ? `${limit.status}${limit.window ? ` (${limit.window})` : ''}${limit.resetsAt !== null ? `, resets at ${new Date(limit.resetsAt * 1000).toISOString()}` : ''}`
          : (
              stderr
                .trim()
                .split('\n')
                .find((l) => /rate.?limit|\b429\b|quota/i.test(l)) ?? 'rate limited'
            ).trim();
      return new DriveError({ kind: 'rate_limited', agent, bin, message, partial: outcome });
    }
    return new DriveError({
      kind: 'failed',
      agent,
      bin,
      exitCode: this.exitCode,
      signal: this.exitSignal,
      stderr,
      partial: outcome,
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return {
      next: () => this.queue.next(),
      // Breaking out of the loop: the consumer is gone, so the agent goes too, and the loop's exit
      // waits until its process group has been reaped.
      return: async () => {
        this.queue.drop();
        this.stop('cancelled');
        await this.closed;
        return { done: true, value: undefined };
      },
    };
  }
}

/**
 * Start an agent and return the run: iterate it for events, `await run.outcome` for the result.
 * Never throws; every failure arrives through the outcome (and ends the iteration with the same error).
 *
 * Read the events: a run whose events nobody reads stalls the agent once the queue is full (by
 * design: that is the back-pressure). Use {@link run} when only the outcome matters.
 */
export function stream(request: Request): Run {
  return new AgentRun(request);
}

/**
 * Run an agent to its end and resolve with the outcome, a failed turn included. Rejects with a
 * {@link DriveError} when it could not run, died without a result, timed out or was cancelled.
 * Approvals need {@link stream}: here nobody could answer them.
 */
export async function run(request: Request): Promise<Outcome> {
  if (request.approvals === true) {
    throw new DriveError({
      kind: 'unsupported',
      agent: request.agent,
      what: 'approvals through run(), where nobody can answer them; use stream()',
    });
  }
  const r = stream(request);
  for await (const _ of r) {
    // Drained so the agent never waits on a full queue; the outcome carries what matters.
  }
  return r.outcome;
}
