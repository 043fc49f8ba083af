/**
 * Running an agent: spawn it in its own process group, read its stdout through the bounded line
 * reader into the parser, hand events to the consumer through the bounded queue, answer its control
 * channel, enforce the timeout, and kill and reap the whole group however the run ends.
 *
 * Back-pressure is the point of the shape. Lines are parsed only while the queue has room; when it
 * is full, stdout is paused, the pipe fills, and the agent blocks on its next write. A consumer that
 * reads slowly slows the agent; it never grows memory past the queue's depth.
 *
 * This module wires the pieces and keeps the run's state; each job is its own module: finding the
 * executable (`locate.ts`), taking a named session (`named.ts`), the process group (`group.ts`),
 * the paced stdout (`pump.ts`), what is said over its pipes (`conversation.ts`: lines, Claude's
 * control channel or JSON-RPC such as ACP), and telling how the run ended (`verdict.ts`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { specFor } from './acp/spec.js';
import { expectCredential } from './agents/credentials.js';
import { type AgentSpec, type Baseline, checkCommandLine, type Invocation, spec } from './agents/index.js';
import { announced } from './announced-run.js';
import { Capture, EVENT_QUEUE_DEPTH, EVENT_QUEUE_RESUME, SETTLED_EXIT_MS } from './bounds.js';
import { type Conversation, type ConversationHost, LineConversation } from './conversation.js';
import type { CredentialSource } from './credentials.js';
import { childEnv } from './env.js';
import { DriveError } from './errors.js';
import type { AgentId, Decision, Event, Outcome } from './events.js';
import { ProcessGroup, spawnGroup } from './group.js';
import { locate } from './locate.js';
import { claimName } from './named.js';
import { LinePump } from './pump.js';
import { EventQueue } from './queue.js';
import { type Plan, planRequest, type Request } from './request.js';
import type { Run, RunStats } from './run-types.js';
import type { Lease } from './sessions.js';
import { MAX_STREAM_RESULTS, type StreamResult, settle } from './settle.js';
import { type Ended, judge, outcomeOf, type StopReason } from './verdict.js';

// Part of running an agent as callers know it (`cctop/drive` and the tests import it from here).
export { installed } from './locate.js';

export type { Run, RunStats } from './run-types.js';

class AgentRun implements Run {
  readonly agent: AgentId;
  argv: readonly string[] = [];
  readonly outcome: Promise<Outcome>;
  readonly closed: Promise<void>;

  private spec: AgentSpec;
  private plan: Plan | null = null;
  /** What the conversation had counted before this run; unknown until the run has started. */
  private baseline: Baseline = { kind: 'unknown' };
  /** The credential the run is expected to use, read before the spawn; null until then. */
  private credential: CredentialSource | null = null;
  /** The spawned agent; null until it has a pid (and for good when the spawn failed). */
  private group: ProcessGroup | null = null;
  /** What is said over the agent's pipes; a line reader with stdin closed until the run is planned. */
  private conversation: Conversation;
  /** Armed once an RPC agent's turn settled: the agent is stopped if it has not exited by then. */
  private exitTimer: NodeJS.Timeout | null = null;
  private bin: string;
  private readonly queue: EventQueue<Event>;
  private readonly stdout = new LinePump(() => this.queue.full);
  private readonly stderr = new Capture();
  private pipesClosed = false;
  private stopping: StopReason | null = null;
  private finished = false;
  private lines = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number | null;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => this.stop('cancelled');
  private lease: Lease | null = null;
  private bindName: ((session: string) => void) | null = null;
  private tempDir: string | null = null;
  /** The environment the agent was given: where its session files are, for `settle`. */
  private env: NodeJS.ProcessEnv = {};
  /** When the agent was spawned; null until it was. */
  private startedMs: number | null = null;
  /** The tool results the stream gave with an id, for `settle` (bounded by `MAX_STREAM_RESULTS`). */
  private readonly results: StreamResult[] = [];
  /** The program an `acp` run starts, whose provider reads its files; null on other runs. */
  private acpProgram: string | null = null;
  private resolveOutcome!: (o: Outcome) => void;
  private rejectOutcome!: (e: unknown) => void;
  private resolveClosed!: () => void;

  constructor(request: Request) {
    this.agent = request.agent;
    // start() finds the request's own spec (and refuses an unknown agent); until then any will do.
    this.spec = spec('claude');
    this.bin = request.bin ?? this.spec.bin;
    this.timeoutMs = request.timeoutMs ?? null;
    this.signal = request.signal;
    this.conversation = new LineConversation(this.spec.dialect, 'stream', false, { kind: 'none' });
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

  /** Plan the run, take its named session, and spawn the agent; throws when it cannot start. */
  private start(request: Request): void {
    this.spec = specFor(request);
    this.bin = request.bin ?? this.spec.bin;
    const plan = planRequest(request, this.spec.caps);
    this.plan = plan;
    if (this.signal?.aborted) throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    const parent = request.parentEnv ?? process.env;
    const env = childEnv(parent, request.env ?? 'minimal', this.spec.credentials, request.setEnv ?? {});
    this.env = env;
    const program = request.acp?.command[0];
    this.acpProgram = program === undefined ? null : basename(program);
    this.credential = expectCredential(this.agent, request.auth, env, plan);
    const path = locate(this.bin, env);
    if (path === null) {
      throw new DriveError({
        kind: 'not_installed',
        agent: this.agent,
        bin: this.bin,
        hint: this.spec.installHint,
      });
    }
    if (request.session !== undefined) {
      const claim = claimName(request.session, this.agent, this.spec, plan.cwd, parent);
      this.lease = claim.lease;
      plan.session = claim.session;
      this.bindName = claim.bind;
    }
    // Before the spawn: once running, the agent adds this run to the records the baseline is read from.
    this.baseline = this.spec.baseline(plan, env);
    let schemaFile: string | null = null;
    if (plan.schema !== null && this.spec.schemaInFile) {
      this.tempDir = mkdtempSync(join(tmpdir(), 'cctop-drive-'));
      schemaFile = join(this.tempDir, 'schema.json');
      writeFileSync(schemaFile, JSON.stringify(plan.schema), { mode: 0o600 });
    }
    const inv = this.spec.invocation(plan, schemaFile);
    checkCommandLine(this.agent, inv);
    const host: ConversationHost = { broke: () => this.stop('broken'), settled: () => this.awaitExit() };
    this.conversation =
      inv.conversation?.(host) ??
      new LineConversation(this.spec.dialect, plan.format, plan.approvals, inv.stdin);
    this.argv = [path, ...inv.args];
    this.launch(path, inv, { ...env, ...inv.env }, plan);
  }

  /** Spawn the agent and wire its pipes, its stdin, the timeout and the caller's abort signal. */
  private launch(path: string, inv: Invocation, env: NodeJS.ProcessEnv, plan: Plan): void {
    this.startedMs = Date.now();
    const child = spawnGroup(path, inv.args, plan.cwd, env);
    child.on('error', (e) => {
      // Only a failure to start arrives here before `spawn`; later ones (a failed kill) change nothing.
      if (child.pid === undefined) this.finish(this.spawnError(e));
    });
    if (child.pid === undefined) return;
    this.group = new ProcessGroup(child, () => this.stop('cancelled'));
    this.stdout.attach(child.stdout);
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout?.on('end', () => {
      this.stdout.end();
      this.pump();
    });
    // Decoded by the stream, so a character split across two chunks is not mangled at the seam.
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => this.stderr.append(chunk));
    child.on('close', () => {
      this.pipesClosed = true;
      this.pump();
    });
    if (child.stdin) this.conversation.begin(child.stdin);
    if (this.timeoutMs !== null) this.timer = setTimeout(() => this.stop('timeout'), this.timeoutMs);
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private onStdout(chunk: Buffer): void {
    if (this.stopping !== null || this.finished) return;
    this.stdout.feed(chunk);
    this.pump();
  }

  /** Parse ready lines while the queue has room; finish once the pipes closed and all is read. */
  private pump(): void {
    if (this.finished) return;
    const drained = this.stdout.drain(
      () => this.stopping === null,
      (line) => this.handleLine(line),
    );
    if (drained && this.pipesClosed) this.finish(null);
  }

  private handleLine(line: string): void {
    this.lines++;
    for (const event of this.conversation.read(line)) {
      if (event.kind === 'started' && this.bindName !== null) {
        try {
          this.bindName(event.session);
        } catch {
          // The run goes on; the name simply stays unbound, and the next run says why when it reads it.
        }
        this.bindName = null;
      }
      if (event.kind === 'tool_result' && event.id !== null && this.results.length < MAX_STREAM_RESULTS)
        this.results.push({ id: event.id, ok: event.ok });
      this.queue.push(event);
    }
  }

  /** An RPC agent's turn settled and its stdin was ended: it should exit; stop it if it lingers. */
  private awaitExit(): void {
    if (this.exitTimer !== null || this.finished) return;
    this.exitTimer = setTimeout(() => this.group?.terminate(), SETTLED_EXIT_MS);
  }

  respond(id: string, decision: Decision): void {
    if (this.plan !== null && !this.plan.approvals) {
      throw new DriveError({
        kind: 'unsupported',
        agent: this.agent,
        what: 'approvals on a run started without approvals: true',
      });
    }
    if (this.finished || this.stopping !== null || !this.conversation.open) {
      throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    }
    if (!this.conversation.answer(id, decision)) {
      throw new DriveError({
        kind: 'invalid_request',
        what: `no approval request "${id.slice(0, 80)}" is waiting`,
      });
    }
  }

  send(text: string): void {
    if (this.plan !== null && !this.plan.interactive) {
      throw new DriveError({
        kind: 'unsupported',
        agent: this.agent,
        what: 'mid-run input on a run started without interactive: true',
      });
    }
    if (this.finished || this.stopping !== null || !this.conversation.open) {
      // The turn settled: a new message is a new run that resumes the session.
      throw new DriveError({ kind: 'cancelled', agent: this.agent, bin: this.bin });
    }
    this.conversation.send(text);
  }

  cancel(): void {
    this.stop('cancelled');
  }

  stats(): RunStats {
    return {
      pid: this.group?.child.pid ?? null,
      lines: this.lines,
      linesCut: this.stdout.cut,
      events: this.queue.delivered,
      queued: this.queue.length,
      queueHighWater: this.queue.highWater,
    };
  }

  private stop(reason: StopReason): void {
    if (this.finished || this.stopping !== null) return;
    this.stopping = reason;
    if (this.group === null) {
      this.finish(null);
      return;
    }
    // Lines not yet parsed are dropped and the pipe drained, or a paused stdout would never close.
    this.stdout.drop();
    this.conversation.close();
    this.group.terminate();
  }

  private finish(failure: DriveError | null): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.exitTimer !== null) clearTimeout(this.exitTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.group?.release();
    this.conversation.abandon();
    const ended = this.ended();
    const outcome = this.settled(outcomeOf(ended));
    const error = failure ?? judge(outcome, ended);
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

  /**
   * The outcome with what the session file settles (`settle.ts`), once an agent that ran has ended;
   * a cancelled run is not read after: its caller has gone.
   */
  private settled(o: Outcome): Outcome {
    const withResults: Outcome = {
      ...o,
      truth: {
        ...o.truth,
        results: this.results.map((r) => ({
          id: r.id,
          name: null,
          ok: r.ok,
          from: 'stream',
          exitCode: null,
        })),
      },
    };
    if (this.startedMs === null || this.stopping === 'cancelled') return withResults;
    return settle({
      agent: this.agent,
      acpProgram: this.acpProgram,
      outcome: withResults,
      env: this.env,
      startedMs: this.startedMs,
      results: this.results,
    });
  }

  private ended(): Ended {
    return {
      agent: this.agent,
      bin: this.bin,
      spec: this.spec,
      plan: this.plan,
      baseline: this.baseline,
      credential: this.credential,
      parser: this.conversation,
      breakdown: this.conversation.breakdown,
      stderr: this.stderr.text(),
      exitCode: this.group?.exitCode ?? null,
      exitSignal: this.group?.exitSignal ?? null,
      stopping: this.stopping,
      timeoutMs: this.timeoutMs,
    };
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
  return announced(new AgentRun(request), request);
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
