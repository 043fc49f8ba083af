/**
 * The vocabulary of agent hooks shared by the three parts that handle them: the installers that put
 * `cctop hook <agent> <event>` into each agent's settings (`hooks/install/`), the command the agents
 * run (`hooks/run.ts`), and the live state that reads what it reports (`live/hook-state.ts`).
 *
 * What each agent's events are called and what each says about a session lives with the agent's
 * provider (`providers/<name>/hooks.ts`), as everything else about that harness does.
 */
import type { ProviderId } from '../model/facts.js';

/** The agents cctop installs hooks into. */
export const HOOK_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'cursor', 'opencode'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export const isHookAgent = (s: string): s is HookAgent => (HOOK_AGENTS as readonly string[]).includes(s);

/** The harness whose sessions an agent's hook events are about (each agent is its own provider). */
export const providerOfAgent = (agent: HookAgent): ProviderId => agent;

/** Bumped when a field of `HookEvent` changes meaning; readers skip lines of another version. */
export const HOOK_EVENT_VERSION = 1;

/**
 * One hook event, reduced to what says something about a session's state: a line of the journal and
 * the `event` of a `hook` message. Strings are cut to `MAX_HOOK_FIELD_CHARS`; every field the payload
 * did not carry is null.
 */
export interface HookEvent {
  v: typeof HOOK_EVENT_VERSION;
  /** When `cctop hook` ran (ms since the epoch). */
  at: number;
  agent: HookAgent;
  /** The agent's own name for the event (`PreToolUse`, `BeforeTool`, `agent-turn-complete`). */
  event: string;
  session: string | null;
  cwd: string | null;
  /** The notification's type or, when it has none, its message (`permission_prompt`, `idle_prompt`). */
  notification: string | null;
  tool: string | null;
  permissionMode: string | null;
  /** The transcript the agent names, when it names one (Claude Code does). */
  transcript: string | null;
  /**
   * What the tool call is about, when the payload carries its input: the command, the path, the URL
   * or the pattern, cleaned and cut like a notification. What a permission request asks to run.
   * Absent from lines written before it was kept (read as null).
   */
  input: string | null;
  /** Process id of the `cctop hook` process's parent: the agent, or the shell it ran the hook in. */
  ppid: number | null;
}

/** The longest string kept in a field of a `HookEvent`. */
export const MAX_HOOK_FIELD_CHARS = 512;

/**
 * What one event says about its session:
 * - `working`: a prompt was submitted, a tool starts or ended, the agent is mid-turn;
 * - `waiting`: the agent asks its user (a permission request, a notification that it needs input);
 * - `idle`: the turn is over; `started` and `ended` are the session's first and last events;
 * - `error`: the turn ended on an error (an API failure, not a failed tool call);
 * - `none`: it says nothing about state (compaction, a subagent ending, an informational notice).
 */
export type HookMeaning = 'working' | 'waiting' | 'idle' | 'error' | 'started' | 'ended' | 'none';

/** What a provider tells about its agent's hooks. */
export interface AgentHooks {
  agent: HookAgent;
  /** The events cctop installs, each with what it means in the common case. */
  events: readonly string[];
  /** What an event says; the payload's notification type decides for notifications. */
  meaning(event: Pick<HookEvent, 'event' | 'notification'>): HookMeaning;
  /**
   * What `cctop hook` must print for an event, where the agent requires an answer to carry on
   * (a JSON object), else null: print nothing.
   */
  answer(event: string): string | null;
}
