/**
 * Codex's hooks, as cctop reads them: the `notify` program (`notify = [argv…]` in config.toml, run
 * with a JSON notification as its last argument) and the hook events of its hooks file
 * (`hooks.json` beside config.toml, the same shape as Claude Code's), and what each says about the
 * session. Read from 0.169.0's binary.
 *
 * `notify` runs one program: cctop's entry chains to the one it displaced (`--then`), so the user's
 * own notifier still runs. Its only notification type is `agent-turn-complete`, the end of a turn.
 *
 * Every hook here only watches: cctop never answers, so Codex decides as it would without it.
 *
 * Imports nothing: `cctop hook` loads this on every event, and must start in milliseconds.
 */
import type { AgentHooks, HookEvent, HookMeaning } from '../../hooks/types.js';

/** The event cctop's `notify` entry is run as (`cctop hook codex notify`). */
export const CODEX_NOTIFY_EVENT = 'notify';

/** The notification type that ends a turn, and the event name it may be recorded under. */
const TURN_COMPLETE = 'agent-turn-complete';

/** The events of Codex's hooks file. */
const HOOK_MEANINGS: Readonly<Record<string, HookMeaning>> = {
  SessionStart: 'started',
  UserPromptSubmit: 'working',
  PreToolUse: 'working',
  PostToolUse: 'working',
  PermissionRequest: 'waiting',
  SubagentStart: 'working',
  SubagentStop: 'none',
  PreCompact: 'none',
  Stop: 'idle',
  // The user stopped the turn (Esc): it is over, without an error.
  Interrupt: 'idle',
  SessionEnd: 'ended',
};

/** The events of the hooks file that cctop installs (`notify` is installed apart, in config.toml). */
export const CODEX_HOOK_FILE_EVENTS: readonly string[] = Object.keys(HOOK_MEANINGS);

export const codexHooks: AgentHooks = {
  agent: 'codex',
  events: [CODEX_NOTIFY_EVENT, ...CODEX_HOOK_FILE_EVENTS],
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === TURN_COMPLETE) return 'idle';
    if (e.event === CODEX_NOTIFY_EVENT) return e.notification === TURN_COMPLETE ? 'idle' : 'none';
    return HOOK_MEANINGS[e.event] ?? 'none';
  },
  answer: () => null,
};
