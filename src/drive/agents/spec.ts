/**
 * What drive needs to know about one agent CLI: how to start it for a plan, how to read what it
 * writes, and what to tell a user who does not have it or is not logged in.
 */
import type { TokenCounts } from '../../model/usage.js';
import { MAX_ARGUMENT_BYTES, MAX_COMMAND_LINE_BYTES } from '../bounds.js';
import type { ConversationFactory } from '../conversation.js';
import type { CredentialNames, Env } from '../env.js';
import { DriveError } from '../errors.js';
import type { AgentId } from '../events.js';
import type { Dialect, Terminal } from '../parser.js';
import type { Caps, Plan } from '../request.js';

/** What goes to the agent's stdin. */
export type StdinPlan =
  /** Nothing: stdin is closed at once, so an agent that reads it does not wait for input. */
  | { kind: 'none' }
  /** The prompt, then end of input. */
  | { kind: 'prompt'; text: string }
  /** Claude's stream-json channel: handshake and prompt, kept open for approvals and `send`. */
  | { kind: 'channel'; prompt: string };

export interface Invocation {
  args: string[];
  stdin: StdinPlan;
  /** Set on top of the environment policy. */
  env: Record<string, string>;
  /**
   * A JSON-RPC conversation (ACP, codex app-server) that owns both pipes, for an agent that is not
   * line-based; `stdin` is then not used (give `{ kind: 'none' }`). Absent: stdout is read by the
   * spec's dialect and stdin is `stdin` (`conversation.ts`).
   */
  conversation?: ConversationFactory;
}

/**
 * What the conversation had already counted when this run began. Claude and Codex report running
 * totals for the whole conversation, so on a resumed run this run's share is the final total minus
 * this; without it the share is unknown, and reported as null rather than as the thread's total.
 */
export type Baseline =
  /** A new conversation: everything it counts is this run's. */
  | { kind: 'fresh' }
  /** A resumed conversation whose running total was read before the run began. */
  | { kind: 'known'; tokens: TokenCounts }
  /** A resumed conversation whose earlier total cannot be known. */
  | { kind: 'unknown' };

/** What a run knows without reading anything: a new conversation starts from nothing. */
export const baselineOf = (plan: Plan): Baseline =>
  plan.session.kind === 'resume' ? { kind: 'unknown' } : { kind: 'fresh' };

export interface AgentSpec {
  readonly id: AgentId;
  /** The executable's usual name. */
  readonly bin: string;
  readonly installHint: string;
  readonly loginHint: string;
  readonly caps: Caps;
  readonly credentials: CredentialNames;
  readonly dialect: Dialect;
  /** Codex reads its schema from a file; drive writes one for the run and removes it after. */
  readonly schemaInFile: boolean;
  invocation(plan: Plan, schemaFile: string | null): Invocation;
  /** Whether stderr from a run that died without a result says the user is not logged in. */
  authFailure(stderr: string): boolean;
  /**
   * What the conversation had counted before this run, read before the agent starts (it appends to
   * its own records as it runs). `env` is the environment the agent gets, so it finds the same home.
   */
  baseline(plan: Plan, env: Env): Baseline;
  /** Last touches once the stream ended, given what was asked for and what came before. */
  settle(terminal: Terminal, plan: Plan, baseline: Baseline): Terminal;
}

/**
 * Whether a prompt must go on stdin: one argument that large is refused by the kernel, and one
 * starting with `-` would be read as a flag by the agent's argument parser.
 */
export const promptOnStdin = (prompt: string): boolean =>
  prompt.startsWith('-') || Buffer.byteLength(prompt) >= MAX_ARGUMENT_BYTES;

/**
 * Refuse an invocation the kernel would refuse (E2BIG inside `execve`), before the spawn and with a
 * sentence that names what to shorten.
 */
export function checkCommandLine(agent: AgentId, inv: Invocation): void {
  let total = 0;
  for (const a of inv.args) {
    const n = Buffer.byteLength(a) + 1;
    total += n;
    if (n > MAX_ARGUMENT_BYTES || total > MAX_COMMAND_LINE_BYTES) {
      throw new DriveError({
        kind: 'invalid_request',
        what: `the command line for ${agent} is too large (an argument of ${n} bytes, ${total} in all): shorten the system prompt or schema`,
      });
    }
  }
}

/** The sentences the three CLIs print when they have no usable login. */
export const NOT_LOGGED_IN =
  /not logged in|not signed in|please (run )?\/?login|log ?in required|invalid api key|unauthori[sz]ed|\b401\b|authentication[_ ](failed|required|error)/i;
