/**
 * How a run that has ended is told: the {@link Outcome} it produced, and whether that outcome is
 * handed over or the run is reported as a {@link DriveError} (stopped, not logged in, rate limited,
 * died without a result).
 *
 * It works from facts the runner gathered (the parser's terminal record, the exit, the captured
 * stderr, why the run was stopped) and touches no process: deciding is kept apart from killing and
 * reaping, so the rules can be read in one place.
 */
import type { AgentSpec, Baseline } from './agents/index.js';
import { DriveError } from './errors.js';
import { type AgentId, isBlocking, type Outcome, type RateLimit } from './events.js';
import type { StreamParser } from './parser.js';
import type { Plan } from './request.js';

/** Why the runner stopped the agent itself; null when the agent ended on its own. */
export type StopReason = 'timeout' | 'cancelled';

/** What the runner knows once the agent's pipes have closed (or it never started). */
export interface Ended {
  agent: AgentId;
  bin: string;
  spec: AgentSpec;
  /** Null when the request was refused before a plan was made. */
  plan: Plan | null;
  baseline: Baseline;
  parser: StreamParser;
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
