/**
 * Running an agent: spawn it in its own process group, read its stdout through the bounded line
 * reader into the parser, hand events to the consumer through the bounded queue, answer its control
 * channel, enforce the timeout, and kill and reap the whole group however the run ends.
 *
 * Back-pressure is the point of the shape. Lines are parsed only while the queue has room; when it
 * is full, stdout is paused, the pipe fills, and the agent blocks on its next write. A consumer that
 * reads slowly slows the agent; it never grows memory past the queue's depth.
 *
 * This module wires the pieces and keeps the run's state; each job is its own module: everything
 * decided before the spawn (`prepare.ts`, which finds the executable with `locate.ts` and takes a
 * named session with `named.ts`), the process group (`group.ts`), the queue and the paced stdout
 * that make the back-pressure (`backpressure.ts`), what is said over its pipes (`conversation.ts`:
 * lines, Claude's control channel or JSON-RPC such as ACP), what the caller says into the run
 * (`run-input.ts`), and telling how the run ended (`verdict.ts`).
 */
import type { Invocation } from './agents/index.js';
import { announced } from './announced-run.js';
import { Backpressure } from './backpressure.js';
import { Capture, SETTLED_EXIT_MS } from './bounds.js';
import { type Conversation, LineConversation, type RunnerHost } from './conversation.js';
import { DriveError } from './errors.js';
import type { AgentId, Decision, Event, Outcome } from './events.js';
import { ProcessGroup, spawnGroup } from './group.js';
import { emptySetup, prepare, releaseSetup, type Setup } from './prepare.js';
import type { Plan, Request } from './request.js';
import { answer, type Live, say, shownName } from './run-input.js';
import type { Run, RunStats } from './run-types.js';
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
  /** The name this run's errors give the agent when its id says too little (an ACP agent's). */
  private readonly shown: string | null;

  /** What was decided before the spawn, as far as it got (`prepare.ts`). */
  private readonly setup: Setup;
  /** The spawned agent; null until it has a pid (and for good when the spawn failed). */
  private group: ProcessGroup | null = null;
  /** What is said over the agent's pipes; a line reader with stdin closed until the run is planned. */
  private conversation: Conversation;
  /** Armed once an RPC agent's turn settled: the agent is stopped if it has not exited by then. */
  private exitTimer: NodeJS.Timeout | null = null;
  /** The queue to the caller and the paced stdout (`backpressure.ts`). */
  private readonly flow = new Backpressure(
    () => this.conversation.inFlight ?? 0,
    () => this.pump(),
  );
  private readonly stderr = new Capture();
  private pipesClosed = false;
  private stopping: StopReason | null = null;
  private finished = false;
  private lines = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number | null;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => this.stop('cancelled');
  /** When the agent was spawned; null until it was. */
  private startedMs: number | null = null;
  /** The tool results the stream gave with an id, for `settle` (bounded by `MAX_STREAM_RESULTS`). */
  private readonly results: StreamResult[] = [];
  private resolveOutcome!: (o: Outcome) => void;
  private rejectOutcome!: (e: unknown) => void;
  private resolveClosed!: () => void;

  constructor(request: Request) {
    this.agent = request.agent;
    this.shown = shownName(request);
    this.setup = emptySetup(request);
    this.timeoutMs = request.timeoutMs ?? null;
    this.signal = request.signal;
    this.conversation = new LineConversation(this.setup.spec.dialect, 'stream', false, { kind: 'none' });
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
      bin: this.setup.bin,
      cause: e instanceof Error ? e.message : String(e),
    });
  }

  /** Prepare the run (`prepare.ts`), choose its conversation, and spawn the agent; throws when it cannot start. */
  private start(request: Request): void {
    const { path, inv, plan } = prepare(request, this.setup, this.signal);
    const host: RunnerHost = {
      broke: () => this.stop('broken'),
      settled: () => this.awaitExit(),
      emit: (events) => this.deliver(events),
      ready: () => this.pump(),
      room: () => this.flow.room(this.finished),
      done: () => this.done(),
    };
    this.conversation =
      inv.conversation?.(host) ??
      new LineConversation(this.setup.spec.dialect, plan.format, plan.approvals, inv.stdin);
    this.argv = [path, ...inv.args];
    this.launch(path, inv, { ...this.setup.env, ...inv.env }, plan);
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
    this.flow.stdout.attach(child.stdout);
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout?.on('end', () => {
      this.flow.stdout.end();
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
    this.flow.stdout.feed(chunk);
    this.pump();
  }

  /** Parse ready lines while the queue has room; finish once the pipes closed and all is read. */
  private pump(): void {
    if (this.finished) return;
    const drained = this.flow.drain(
      () => this.stopping === null,
      (line) => this.handleLine(line),
    );
    if (drained && this.pipesClosed) this.finishQuietly();
  }

  /** Finish once the conversation has made the events of every line it read. */
  private finishQuietly(): void {
    const quiet = this.conversation.quiet?.();
    if (quiet === undefined) this.finish(null);
    else void quiet.then(() => this.finish(null));
  }

  private handleLine(line: string): void {
    this.lines++;
    for (const event of this.conversation.read(line)) this.take(event);
  }

  /** Events a conversation made later than the line that carried them, or read from its own stream (not stdout), while the run goes on. */
  private deliver(events: Event[]): void {
    if (this.stopping !== null || this.finished) return;
    for (const event of events) this.take(event);
  }

  /** A server agent's turn settled: stop it now, as a settled run (the outcome is the turn's). */
  private done(): void {
    if (this.finished || this.stopping !== null) return;
    this.conversation.close();
    this.group?.terminate();
  }

  /** One event on its way to the caller: a started session binds its name, a result is kept for `settle`. */
  private take(event: Event): void {
    if (event.kind === 'started' && this.setup.bindName !== null) {
      try {
        this.setup.bindName(event.session);
      } catch {
        // The run goes on; the name simply stays unbound, and the next run says why when it reads it.
      }
      this.setup.bindName = null;
    }
    if (event.kind === 'tool_result' && event.id !== null && this.results.length < MAX_STREAM_RESULTS)
      this.results.push({ id: event.id, ok: event.ok });
    this.flow.queue.push(event);
  }

  /** An RPC agent's turn settled and its stdin was ended: it should exit; stop it if it lingers. */
  private awaitExit(): void {
    if (this.exitTimer !== null || this.finished) return;
    this.exitTimer = setTimeout(() => this.group?.terminate(), SETTLED_EXIT_MS);
  }

  respond(id: string, decision: Decision): void {
    answer(this.live(), id, decision);
  }

  send(text: string): void {
    say(this.live(), text);
  }

  /** Where the run stands, for what its caller says into it (`run-input.ts`). */
  private live(): Live {
    return {
      agent: this.agent,
      bin: this.setup.bin,
      plan: this.setup.plan,
      over: this.finished || this.stopping !== null,
      conversation: this.conversation,
      shown: this.shown,
    };
  }

  cancel(): void {
    this.stop('cancelled');
  }

  stats(): RunStats {
    return {
      pid: this.group?.child.pid ?? null,
      lines: this.lines,
      ...this.flow.stats(),
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
    this.flow.stdout.drop();
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
    this.flow.wake();
    const ended = this.ended();
    const outcome = this.settled(outcomeOf(ended));
    const error = (failure ?? judge(outcome, ended))?.naming(this.shown) ?? null;
    releaseSetup(this.setup);
    if (error !== null) {
      this.rejectOutcome(error);
      this.flow.queue.end(error);
    } else {
      this.resolveOutcome(outcome);
      this.flow.queue.end();
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
      acpProgram: this.setup.acpProgram,
      outcome: withResults,
      env: this.setup.env,
      startedMs: this.startedMs,
      results: this.results,
    });
  }

  private ended(): Ended {
    return {
      agent: this.agent,
      bin: this.setup.bin,
      spec: this.setup.spec,
      plan: this.setup.plan,
      baseline: this.setup.baseline,
      credential: this.setup.credential,
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
      next: () => this.flow.queue.next(),
      // Breaking out of the loop: the consumer is gone, so the agent goes too, and the loop's exit
      // waits until its process group has been reaped.
      return: async () => {
        this.flow.queue.drop();
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
