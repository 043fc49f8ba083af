/**
 * The ways a run can fail to produce an outcome, as one error class a caller can branch on:
 *
 *   try { await run(req) } catch (e) { if (e instanceof DriveError) switch (e.failure.kind) { … } }
 *
 * A turn the agent itself reported as failed is not here: the agent ran to an end, so `run()`
 * resolves with an outcome that says so. These are the cases where it could not run, was stopped,
 * or died without a result. Each message says what to do about it.
 */
import {
  type AuthRequirement,
  type CredentialSource,
  credentialWords,
  requirementWords,
} from './credentials.js';
import type { AgentId, Outcome } from './events.js';

export type Failure =
  /** The agent's executable is not on PATH (or not at the given path). */
  | { kind: 'not_installed'; agent: AgentId; bin: string; hint: string }
  /** The executable exists but could not be started (permissions, a bad interpreter line). */
  | { kind: 'spawn'; agent: AgentId; bin: string; cause: string }
  /** The run exceeded its timeout and was stopped; `partial` is what had arrived by then. */
  | { kind: 'timeout'; agent: AgentId; bin: string; timeoutMs: number; partial: Outcome }
  /** The agent exited abnormally without the record that settles a turn. */
  | {
      kind: 'failed';
      agent: AgentId;
      bin: string;
      exitCode: number | null;
      signal: string | null;
      stderr: string;
      partial: Outcome;
    }
  /** The agent refused for quota; never retried here. */
  | { kind: 'rate_limited'; agent: AgentId; bin: string; message: string; partial: Outcome }
  /**
   * The agent did not keep to its protocol: a JSON-RPC agent (ACP) that never answered its handshake,
   * refused it, or answered with something that cannot be used. `partial` is what had arrived.
   */
  | { kind: 'protocol'; agent: AgentId; bin: string; message: string; partial: Outcome }
  /** The agent is installed but not logged in. */
  | { kind: 'not_authenticated'; agent: AgentId; bin: string; hint: string; message: string }
  /**
   * The request required a kind of credential (`auth`) the agent would not run under: `found` is what
   * it would use instead, `remedy` what would make it use the required kind (null where drive cannot
   * tell which credential this agent uses, so cannot promise one). Nothing was spawned.
   */
  | {
      kind: 'auth_missing';
      agent: AgentId;
      required: AuthRequirement;
      found: CredentialSource;
      remedy: string | null;
    }
  /** The request asked for something this agent cannot do. */
  | { kind: 'unsupported'; agent: AgentId; what: string }
  /** The request itself is malformed (an empty prompt, an oversized id, a missing directory). */
  | { kind: 'invalid_request'; what: string }
  /** The caller cancelled, aborted, or stopped iterating; the agent's process group was killed. */
  | { kind: 'cancelled'; agent: AgentId; bin: string }
  /** Another run holds this named session right now. */
  | { kind: 'session_busy'; name: string; project: string; holder: string }
  /** The named session belongs to another agent. */
  | { kind: 'session_conflict'; name: string; project: string; bound: AgentId; requested: AgentId }
  /** The named-session store could not be read or written. */
  | { kind: 'store'; path: string; cause: string };

export type FailureKind = Failure['kind'];

/**
 * Words for a failure. `shown` names the agent in place of its id: an ACP run's id is `acp`, which
 * says nothing about which agent failed, so its errors name the agent the request named.
 */
function describe(f: Failure, shown: string | null): string {
  const who = shown ?? ('agent' in f ? f.agent : '');
  switch (f.kind) {
    case 'not_installed':
      return `${who} is not installed (no \`${f.bin}\` on PATH): ${f.hint}`;
    case 'spawn':
      return `could not start ${f.bin}: ${f.cause}`;
    case 'timeout':
      return `${who} did not finish within ${Math.round(f.timeoutMs / 1000)} s and was stopped; raise the timeout or narrow the task`;
    case 'failed': {
      const how = f.exitCode !== null ? `exit code ${f.exitCode}` : `signal ${f.signal ?? 'unknown'}`;
      const last = f.stderr.trim().split('\n').slice(-1)[0] ?? '';
      return `${who} failed (${how}) without a result${last ? `: ${last}` : ''}`;
    }
    case 'rate_limited':
      return `${who} is rate limited: ${f.message}`;
    case 'protocol':
      return `${who} broke off its protocol: ${f.message}`;
    case 'not_authenticated':
      return `${who} is not logged in (${f.message}): ${f.hint}`;
    case 'auth_missing': {
      const would =
        f.found.kind === 'unknown'
          ? 'drive cannot tell which credential it uses'
          : `it would use ${credentialWords(f.found)}`;
      return `${who} would not run under ${requirementWords(f.required)} (${would}): ${f.remedy ?? 'run it without requiring one'}`;
    }
    case 'unsupported':
      return `${who} does not support ${f.what}`;
    case 'invalid_request':
      return f.what;
    case 'cancelled':
      return `the ${who} run was cancelled`;
    case 'session_busy':
      return `the session "${f.name}" is in use by another run (${f.holder}); wait for it or use another name`;
    case 'session_conflict':
      return `the session "${f.name}" belongs to ${f.bound}, not ${f.requested}; use another name or forget it`;
    case 'store':
      return `the session store at ${f.path} failed (${f.cause}); check its permissions or set XDG_STATE_HOME`;
  }
}

export class DriveError extends Error {
  readonly failure: Failure;

  /** The agent's name in the message when it is not its id (an ACP agent's); null otherwise. */
  readonly shown: string | null;

  constructor(failure: Failure, shown: string | null = null) {
    super(describe(failure, shown));
    this.name = 'DriveError';
    this.failure = failure;
    this.shown = shown;
  }

  /** The same failure, its message naming the agent as `shown` (an ACP agent's name). */
  naming(shown: string | null): DriveError {
    return shown === null || shown === this.shown ? this : new DriveError(this.failure, shown);
  }

  get kind(): FailureKind {
    return this.failure.kind;
  }

  /** Worth trying again later, unchanged. */
  get transient(): boolean {
    return this.failure.kind === 'rate_limited' || this.failure.kind === 'timeout';
  }
}

export const isDriveError = (e: unknown): e is DriveError => e instanceof DriveError;
