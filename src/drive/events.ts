/**
 * The one vocabulary drive speaks, whichever agent ran: the events of a run and its outcome.
 *
 * Two kinds of text are kept apart on purpose. `text` events are the display stream, appended to a
 * transcript as they arrive; `Outcome.text` is the agent's own final answer from its terminal
 * record. Summing the events does not give the answer (Copilot streams deltas and then the settled
 * message; Claude may stream a preamble before a tool call), so a caller that wants the answer reads
 * the outcome, never the sum.
 */
import type { TokenCounts, Usage } from '../model/usage.js';
import type { CredentialSource } from './credentials.js';

/** The agents drive can run. */
export const AGENTS = ['claude', 'codex', 'copilot', 'gemini', 'qwen', 'pi', 'opencode'] as const;
/** An agent drive knows by name: it has a spec of its own (`agents/`). */
export type NamedAgent = (typeof AGENTS)[number];
/**
 * Who ran: an agent drive knows by name, or `acp`, any agent that speaks the Agent Client Protocol,
 * named and started as the request says (`Request.acp`; which one it was is `Outcome.acp`).
 */
export type AgentId = NamedAgent | 'acp';

export const isNamedAgent = (v: string): v is NamedAgent => (AGENTS as readonly string[]).includes(v);
export const isAgentId = (v: string): v is AgentId => v === 'acp' || isNamedAgent(v);

/** A quota signal, as the agent reported it. Reported, never acted on. */
export interface RateLimit {
  /** `allowed`, `allowed_warning`, `rejected`, … in the agent's words. */
  status: string;
  /** Which window the status is about (`five_hour`, `seven_day`, …). */
  window: string | null;
  /** Unix seconds when the window resets. */
  resetsAt: number | null;
  overageStatus: string | null;
  isUsingOverage: boolean | null;
}

/** Whether a quota signal means the agent is being refused: anything but an `allowed…` status. */
export const isBlocking = (limit: RateLimit): boolean => !limit.status.startsWith('allowed');

/** The phases of a `/compact`. A refusal is an answer (`ok: false` with the agent's reason), not an error. */
export type Compaction = { phase: 'started' } | { phase: 'finished'; ok: boolean; error: string | null };

/** The agent's own command catalogue (Claude's slash commands, and which of them are skills). */
export interface Commands {
  all: string[];
  skills: string[];
}

/** The commands that are built-in utilities rather than skills. */
export const utilities = (c: Commands): string[] => c.all.filter((name) => !c.skills.includes(name));

/** One step of an agent's plan, as the agent wrote it. */
export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** Null when the agent gave none it could be read as. */
  priority: 'high' | 'medium' | 'low' | null;
}

/** One normalised thing an agent did. Switch on `kind`; a new kind fails to compile where it is unhandled. */
export type Event =
  /** The session is live: emitted once, as soon as the agent reveals its id. */
  | { kind: 'started'; session: string; model: string | null }
  | { kind: 'thinking'; text: string }
  /** Assistant text as it arrives: display, not the answer (see `Outcome.text`). */
  | { kind: 'text'; text: string }
  /** `id` correlates with the matching `tool_result`; null when the agent gave none or an unusable one. */
  | { kind: 'tool_call'; id: string | null; name: string; input: unknown }
  /** `ok` is null when the agent does not say whether the tool succeeded. */
  | { kind: 'tool_result'; id: string | null; ok: boolean | null; output: string }
  /**
   * One model call's usage, once per call, for a live counter: fold them with `accumulate()`.
   * `output` is always null here: mid-turn the agent reports output as it stood when the message
   * began (a run whose live reports summed to 9 had produced 497), so the true figure comes only
   * with the outcome. Claude reports these through a turn; Codex only through `codex app-server`.
   */
  | { kind: 'usage'; usage: Usage }
  /**
   * The agent waits for permission to run a tool. The run is blocked until `respond(id, …)` answers,
   * so a consumer that ignores this stalls until the timeout. Only on runs with `approvals: true`.
   */
  | { kind: 'approval_request'; id: string; tool: string; input: unknown }
  | { kind: 'rate_limit'; limit: RateLimit }
  | { kind: 'compaction'; compaction: Compaction }
  /** What the agent says it can do, once per run (Claude, ACP agents). */
  | { kind: 'commands'; commands: Commands }
  /** The agent's plan for the turn, whole, each time it changes (ACP agents). */
  | { kind: 'plan'; entries: PlanEntry[] }
  /**
   * The agent's word about the run rather than the turn, as it says it (Codex's "Reconnecting...
   * waiting for network"): so a run that waits says why at once. Never part of the answer.
   */
  | { kind: 'notice'; text: string };

export type EventKind = Event['kind'];

/** An answer to an approval request. `updatedInput` runs the tool with changed arguments. */
export type Decision =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown> }
  | { behavior: 'deny'; reason?: string };

/** Why a run stopped. */
export type Stop =
  | { kind: 'completed' }
  /** The agent reported the turn failed (its exit code may still be 0). */
  | { kind: 'error' }
  /** The agent ended for a reason of its own, such as `max_tokens`. */
  | { kind: 'other'; reason: string }
  /** The output ended without the agent's terminal record: the turn never settled. */
  | { kind: 'unfinished' };

/** Which ACP agent an `acp` run was: the caller's name and command, and what the agent said of itself. */
export interface AcpIdentity {
  /** The name the request gave it. */
  name: string;
  /** The command line as the request gave it. */
  command: string[];
  /** The agent's own name and version from its `initialize` answer; null when it gave none. */
  agentName: string | null;
  agentVersion: string | null;
  /** The protocol version the agent answered with; null when it never answered. */
  protocolVersion: number | null;
}

/** Everything known once a run has ended. */
export interface Outcome {
  agent: AgentId;
  /** On an `acp` run, which agent it was; absent on every other run. */
  acp?: AcpIdentity;
  /** The agent's session id, to resume with. */
  session: string | null;
  /** The model the agent said it used, as it named it. */
  model: string | null;
  /** The agent's authoritative final answer. */
  text: string;
  /**
   * Which credential the agent ran under (an API key, its own login, a cloud provider), from its own
   * report where it gives one, else its environment and config files (docs/drive.md, "Credentials").
   * Null when the run was refused before its environment was made.
   */
  credential: CredentialSource | null;
  /**
   * This run's usage, never the conversation's: on a resumed run a figure this run's share cannot be
   * told for is null, not the running total (docs/drive.md, "Usage").
   */
  usage: Usage;
  /**
   * The whole conversation's running token total as the agent reported it, every run that continued
   * it included; null when the agent reports none (Copilot).
   */
  threadUsage: TokenCounts | null;
  /** The whole conversation's running cost as the agent priced it (Claude); null when it prices none. */
  threadCostUsd: number | null;
  stop: Stop;
  /** The last quota signal seen. */
  rateLimit: RateLimit | null;
  /** The agent's exit code; null when it was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  /** The earliest stderr, up to `MAX_CAPTURE`. */
  stderr: string;
  /** Output lines that were not what the agent normally writes (banners, warnings, a changed format). */
  unparsed: number;
  firstUnparsed: string | null;
  /** The schema-conforming answer, when a schema was given and the agent produced one. */
  structured: unknown;
  /** The provider status of a failed turn (400 for an unknown model), when the agent gave one. */
  errorStatus: number | null;
  /** The agent's own description of a failed turn, when it gives one apart from the answer. */
  errorMessage: string | null;
  /**
   * What the session's own file settled once the run ended, and where each fact came from: the
   * stream, or the file where the stream left it open (docs/drive.md, "One truth").
   */
  truth: Truth;
}

/** Where a fact of the outcome came from: the agent's stream, or the session file it wrote. */
export type FactSource = 'stream' | 'file';

/** A tool result of the run as settled: the stream's word, or the file's where the stream gave none. */
export interface SettledResult {
  id: string;
  /** The tool's name as the file records it; null when the file was not read. */
  name: string | null;
  ok: boolean | null;
  from: FactSource;
  /** A shell command's exit code, where the file records one. */
  exitCode: number | null;
}

/** Where the stream and the session file said different things about the same run. */
export type TruthProblem =
  | { kind: 'result'; id: string; stream: boolean; file: boolean }
  | { kind: 'model'; stream: string; file: string };

export interface Truth {
  /**
   * The session file read once the run ended; null when none was (an agent cctop reads no files of,
   * a run with no session, or a file not found where the agent's environment says it keeps them).
   */
  file: string | null;
  /** Where `Outcome.model` came from; null when neither said. */
  model: FactSource | null;
  /** The token figures the file filled in where the stream carried none (Copilot's). */
  usageFromFile: (keyof TokenCounts)[];
  /** Every tool result of the run with an id, in the order the stream gave them. */
  results: SettledResult[];
  problems: TruthProblem[];
}

/** The truth of a run nothing settled: every fact is the stream's. */
export function streamTruth(model: string | null, results: readonly SettledResult[]): Truth {
  return {
    file: null,
    model: model === null ? null : 'stream',
    usageFromFile: [],
    results: [...results],
    problems: [],
  };
}

/** The run completed: the agent said the turn ended normally. */
export const succeeded = (o: Outcome): boolean => o.stop.kind === 'completed' || o.stop.kind === 'other';

/**
 * A clean exit that parsed nothing it recognised and produced no answer: what a vendor changing its
 * output format looks like from here.
 */
export const looksLikeFormatChange = (o: Outcome): boolean =>
  o.exitCode === 0 && o.unparsed > 0 && o.text === '' && o.stop.kind === 'unfinished';
