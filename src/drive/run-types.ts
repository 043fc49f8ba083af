/**
 * What a caller holds while an agent runs: the `Run` that `stream()` returns, and its counters.
 * Kept apart from the runner (`run.ts`), which implements it, so that wrappers of a run (the
 * announcer, tests' scripted runs) need only the shape.
 */
import type { AgentId, Decision, Event, Outcome } from './events.js';

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
  /** Send another message mid-run; taken at the agent's next step (`interactive` runs: Claude, Codex, Pi). */
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
