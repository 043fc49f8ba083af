/**
 * How a run that has ended is told: the {@link Outcome} it produced, and whether that outcome is
 * handed over or the run is reported as a {@link DriveError} (stopped, not logged in, rate limited,
 * died without a result).
 *
 * It works from facts the runner gathered (the parser's terminal record, the exit, the captured
 * stderr, why the run was stopped) and touches no process: deciding is kept apart from killing and
 * reaping, so the rules can be read in one place.
 */
import { settleCredential } from './agents/credentials.js';
import type { AgentSpec, Baseline } from './agents/index.js';
import type { Breakdown, TurnRecord } from './conversation.js';
import type { CredentialSource } from './credentials.js';
import { DriveError } from './errors.js';
import { type AgentId, isBlocking, type Outcome, type RateLimit, streamTruth } from './events.js';
import type { Plan } from './request.js';

/**
 * Why the runner stopped the agent itself; null when the agent ended on its own. `broken`: its
 * conversation could not go on (`Ended.breakdown` says why).
 */
export type StopReason = 'timeout' | 'cancelled' | 'broken';

/** What the runner knows once the agent's pipes have closed (or it never started). */
export interface Ended {
  agent: AgentId;
  bin: string;
  spec: AgentSpec;
  /** Null when the request was refused before a plan was made. */
  plan: Plan | null;
  baseline: Baseline;
  /** The credential expected before the spawn; null when the run was refused before its environment. */
  credential: CredentialSource | null;
  parser: TurnRecord;
  /** Why the conversation broke off by itself (an RPC handshake refused or never answered), or null. */
  breakdown: Breakdown | null;
  stderr: string;
  exitCode: number | null;
  exitSignal: string | null;
  stopping: StopReason | null;
  timeoutMs: number | null;
}

/** What stderr says about rate limits, in the words the three CLIs use. */
const RATE_LIMITED = /rate.?limit|\b429\b|quota exceeded/i;
/** The line to quote from stderr once it is known to be about a rate limit. */
const RATE_LIMIT_LINE = /rate.?limit|\b429\b|quota/i;

/** The run's outcome from what the agent wrote, settled by its spec. */
export function outcomeOf(e: Ended): Outcome {
  const t = e.plan === null ? e.parser.terminal() : e.spec.settle(e.parser.terminal(), e.plan, e.baseline);
  const settled = e.plan?.format === 'text' ? e.exitCode === 0 : e.parser.sawTerminal;
  return {
    agent: e.agent,
    session: t.session,
    model: t.model,
    text: t.text,
    credential: e.credential === null ? null : settleCredential(e.agent, t.credential, e.credential),
    usage: t.usage,
    threadUsage: t.threadUsage,
    threadCostUsd: t.threadCostUsd,
    stop: settled ? t.stop : { kind: 'unfinished' },
    rateLimit: t.rateLimit,
    exitCode: e.exitCode,
    signal: e.exitSignal,
    stderr: e.stderr,
    unparsed: t.unparsed,
    firstUnparsed: t.firstUnparsed,
    structured: t.structured,
    errorStatus: t.errorStatus,
    errorMessage: t.errorMessage,
    truth: streamTruth(t.model, []),
    ...(t.acp !== undefined && { acp: t.acp }),
  };
}

/** The first line of `stderr` that `test` accepts, trimmed; `fallback` when none does. */
function quote(stderr: string, test: (line: string) => boolean, fallback: string): string {
  return (stderr.trim().split('\n').find(test) ?? fallback).trim();
}

/** A refusal in words: its status, its window, and when it lifts. */
function limitWords(limit: RateLimit): string {
  const window = limit.window ? ` (${limit.window})` : '';
  const resets =
    limit.resetsAt !== null ? `, resets at ${new Date(limit.resetsAt * 1000).toISOString()}` : '';
  return `${limit.status}${window}${resets}`;
}

/** The error for a run that ended by itself, or null when it ended with an outcome. */
export function judge(outcome: Outcome, e: Ended): DriveError | null {
  const { agent, bin } = e;
  if (e.stopping === 'timeout') {
    return new DriveError({ kind: 'timeout', agent, bin, timeoutMs: e.timeoutMs ?? 0, partial: outcome });
  }
  if (e.stopping === 'cancelled') return new DriveError({ kind: 'cancelled', agent, bin });
  if (e.breakdown !== null) return brokenOff(e.breakdown, e, outcome);
  // The agent settled its turn (even a failed one), or exited cleanly: that is an outcome.
  if (outcome.stop.kind !== 'unfinished' || e.exitCode === 0) return null;
  const stderr = outcome.stderr;
  if (e.spec.authFailure(stderr)) {
    const message = quote(stderr, (l) => e.spec.authFailure(l), 'no usable login');
    return new DriveError({ kind: 'not_authenticated', agent, bin, hint: e.spec.loginHint, message });
  }
  const limit = outcome.rateLimit;
  const refused = limit !== null && isBlocking(limit);
  if (refused || RATE_LIMITED.test(stderr)) {
    const message = refused
      ? limitWords(limit)
      : quote(stderr, (l) => RATE_LIMIT_LINE.test(l), 'rate limited');
    return new DriveError({ kind: 'rate_limited', agent, bin, message, partial: outcome });
  }
  return new DriveError({
    kind: 'failed',
    agent,
    bin,
    exitCode: e.exitCode,
    signal: e.exitSignal,
    stderr,
    partial: outcome,
  });
}

/** The error for a conversation that broke off by itself, before any turn could settle. */
function brokenOff(b: Breakdown, e: Ended, partial: Outcome): DriveError {
  const { agent, bin } = e;
  switch (b.kind) {
    case 'not_authenticated':
      return new DriveError({
        kind: 'not_authenticated',
        agent,
        bin,
        hint: e.spec.loginHint,
        message: b.message,
      });
    case 'unsupported':
      return new DriveError({ kind: 'unsupported', agent, what: b.what });
    case 'protocol':
      return new DriveError({ kind: 'protocol', agent, bin, message: b.message, partial });
  }
}
