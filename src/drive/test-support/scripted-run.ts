/**
 * A `Run` whose events, approvals and end a test decides, without an agent: what the announcer and
 * the watchers of driven runs are tested with. `respond` takes an answer only for an approval it
 * emitted and not yet answered, as a real run does.
 */
import { type Decision, type Event, type Outcome, streamTruth } from '../events.js';
import type { Run } from '../run.js';

/** A run whose events and end the test decides: what the announcer wraps, without an agent. */
export class ScriptedRun implements Run {
  readonly agent = 'claude' as const;
  readonly argv: string[] = [];
  readonly answers: [string, Decision][] = [];
  readonly outcome: Promise<Outcome>;
  readonly closed: Promise<void>;
  #queue: Event[] = [];
  #wake: (() => void) | null = null;
  #ended = false;
  #resolve!: (o: Outcome) => void;
  #waiting = new Set<string>();

  constructor() {
    this.outcome = new Promise((r) => {
      this.#resolve = r;
    });
    this.closed = this.outcome.then(() => {});
  }
  emit(e: Event): void {
    if (e.kind === 'approval_request') this.#waiting.add(e.id);
    this.#queue.push(e);
    this.#wake?.();
  }
  end(o: Outcome): void {
    this.#ended = true;
    this.#resolve(o);
    this.#wake?.();
  }
  respond(id: string, d: Decision): void {
    if (!this.#waiting.delete(id)) throw new Error(`no approval ${id} is waiting`);
    this.answers.push([id, d]);
  }
  send(): void {}
  cancel(): void {}
  stats() {
    return { pid: 1, lines: 0, linesCut: 0, events: 0, queued: 0, queueHighWater: 0 };
  }
  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return {
      next: async () => {
        while (this.#queue.length === 0 && !this.#ended) await new Promise<void>((r) => (this.#wake = r));
        const e = this.#queue.shift();
        return e === undefined ? { done: true, value: undefined } : { done: false, value: e };
      },
    };
  }
}

export const scriptedOutcome = (): Outcome => ({
  agent: 'claude',
  session: 'sess-1',
  model: 'claude-sonnet-4-5',
  text: 'done',
  usage: {
    input: 10,
    output: 20,
    cacheRead: 30,
    cacheWrite: 0,
    reasoning: null,
    contextTokens: null,
    contextWindow: null,
    maxOutput: null,
    costUsd: 0.5,
    premiumRequests: null,
    aiCreditsNano: null,
    durationMs: null,
    apiDurationMs: null,
  },
  threadUsage: null,
  threadCostUsd: null,
  stop: { kind: 'completed' },
  rateLimit: null,
  exitCode: 0,
  signal: null,
  stderr: '',
  unparsed: 0,
  firstUnparsed: null,
  structured: null,
  errorStatus: null,
  errorMessage: null,
  credential: null,
  truth: streamTruth('claude-sonnet-4-5', []),
});
