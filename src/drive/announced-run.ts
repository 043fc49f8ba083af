/**
 * A run that tells running cctops about itself: the same `Run`, with every event the caller reads
 * folded into the snapshot the announcer sends, and, when the request says `approvals: 'remote'`,
 * the answers a person gives from a cctop passed to `respond()`. The first answer wins, whoever
 * gives it: a later one finds nothing waiting and is dropped, and every watcher sees who answered.
 *
 * The snapshot follows what the caller reads, not what the agent wrote: events wait in the run's
 * queue until read (that is drive's back-pressure), and a watcher sees them as the caller does.
 *
 * Not here: the sockets (`announce.ts`), the snapshot's rules (`announce-fold.ts`).
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { RunAnswer, RunSnapshot } from '../runtime/runs.js';
import { wrappedAgent } from './acp/spec.js';
import { Announcer } from './announce.js';
import { defaultProgram, foldAnswer, foldEnd, foldEvent, startSnapshot } from './announce-fold.js';
import { isDriveError } from './errors.js';
import type { AgentId, Decision, Event, Outcome } from './events.js';
import type { Request } from './request.js';
import type { Run, RunStats } from './run.js';

/** Wrap `run` so running cctops see it, unless the request opts out or there is nowhere to tell. */

/** The harness an ACP program's sessions belong to: the CLI it wraps (`claude-code-acp`: claude), else its own name. */
const harnessOf = (program: string | undefined): string | null =>
  program === undefined ? null : (wrappedAgent(program) ?? basename(program));

export function announced(run: Run, request: Request): Run {
  if (request.announce === false) return run;
  const program = request.announce?.program ?? defaultProgram();
  const acp = request.agent === 'acp' ? request.acp : undefined;
  const snapshot = startSnapshot({
    id: randomUUID(),
    agent: acp?.name ?? run.agent,
    // An ACP agent writes the sessions of the program its command starts (`gemini --acp`: Gemini's).
    harness: acp === undefined ? run.agent : harnessOf(acp.command[0]),
    program,
    cwd: request.cwd ?? process.cwd(),
    model: request.model ?? null,
    remote: request.approvals === 'remote',
    startedAtMs: Date.now(),
  });
  const wrapped = new AnnouncedRun(run, snapshot, program);
  const announcer = Announcer.start(request.parentEnv ?? process.env, snapshot, (a) =>
    wrapped.answerFromWatcher(a),
  );
  if (announcer === null) return run;
  wrapped.attach(announcer);
  return wrapped;
}

class AnnouncedRun implements Run {
  #announcer: Announcer | null = null;

  constructor(
    private readonly inner: Run,
    private snapshot: RunSnapshot,
    private readonly program: string,
  ) {}

  attach(announcer: Announcer): void {
    this.#announcer = announcer;
    this.inner.outcome.then(
      (outcome: Outcome) => this.#end({ outcome }),
      (e: unknown) => this.#end({ failure: isDriveError(e) ? e.kind : 'failed' }),
    );
  }

  get agent(): AgentId {
    return this.inner.agent;
  }
  get argv(): readonly string[] {
    return this.inner.argv;
  }
  get outcome(): Promise<Outcome> {
    return this.inner.outcome;
  }
  get closed(): Promise<void> {
    return this.inner.closed;
  }

  respond(id: string, decision: Decision): void {
    this.inner.respond(id, decision);
    this.#move(foldAnswer(this.snapshot, id, decision.behavior, this.program), true);
  }

  /** An answer sent from a cctop: taken only on a remote run, and only while the request waits. */
  answerFromWatcher(a: RunAnswer): void {
    if (!this.snapshot.remote) return;
    if (!this.snapshot.pending.some((p) => p.id === a.request)) return;
    const decision: Decision =
      a.behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', reason: `Denied by ${a.by}.` };
    this.inner.respond(a.request, decision);
    this.#move(foldAnswer(this.snapshot, a.request, a.behavior, a.by), true);
  }

  send(text: string): void {
    this.inner.send(text);
  }
  cancel(): void {
    this.inner.cancel();
  }
  stats(): RunStats {
    return this.inner.stats();
  }

  #move(next: RunSnapshot, urgent: boolean): void {
    this.snapshot = next;
    this.#announcer?.update(next, urgent);
  }

  #end(how: { outcome: Outcome } | { failure: string }): void {
    this.snapshot = foldEnd(this.snapshot, how);
    this.#announcer?.end(this.snapshot);
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    const it = this.inner[Symbol.asyncIterator]();
    return {
      next: async () => {
        const r = await it.next();
        if (r.done !== true) {
          const e = r.value;
          this.#move(foldEvent(this.snapshot, e), e.kind === 'approval_request' || e.kind === 'started');
        }
        return r;
      },
      return: async () => (it.return ? it.return() : { done: true, value: undefined }),
    };
  }
}
