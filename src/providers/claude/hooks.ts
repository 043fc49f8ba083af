/**
 * Claude Code's hooks, as cctop reads them: which events cctop installs (`hooks.<Event>` in
 * settings.json) and what each says about the session. Read from 2.1.328's own list of hook events
 * and of notification types; the events left out say nothing about state (a model switch, a
 * worktree, a file watched) or fire too often to be worth a process each (every model request).
 *
 * Every hook here only watches: it prints nothing, so Claude Code decides as it would without it (an
 * empty answer to `PermissionRequest` or `Elicitation` leaves the dialog to the user). The one that
 * can decide, `PermissionRequest` installed with `--approvals`, is `decide.ts`'s.
 *
 * Imports nothing: `cctop hook` loads this on every event, and must start in milliseconds.
 */
import type { AgentHooks, HookEvent, HookMeaning } from '../../hooks/types.js';

const MEANINGS: Readonly<Record<string, HookMeaning>> = {
  SessionStart: 'started',
  UserPromptSubmit: 'working',
  PreToolUse: 'working',
  PostToolUse: 'working',
  PostToolUseFailure: 'working',
  // The calls of one model response are done: the only event after a refused permission request
  // (lab/fixtures/hooks: no PostToolUse, no PermissionDenied follows one).
  PostToolBatch: 'working',
  // The auto mode's classifier refused a call: the turn goes on without it.
  PermissionDenied: 'working',
  PermissionRequest: 'waiting',
  // An MCP server asks the user for input, and has it.
  Elicitation: 'waiting',
  ElicitationResult: 'working',
  SubagentStart: 'working',
  SubagentStop: 'none',
  PreCompact: 'none',
  Notification: 'none',
  Stop: 'idle',
  StopFailure: 'error',
  SessionEnd: 'ended',
};

/**
 * Notification types that mean the session waits on its user (2.1.328's list). The rest
 * (`auth_success`, `agent_completed`, `push_notification`, quota notices, …) are informational.
 */
const WAITING_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'permission_prompt',
  // Sixty seconds at the prompt after a turn: still waiting for the user, now noticeably.
  'idle_prompt',
  'elicitation_dialog',
  'elicitation_url_dialog',
  // A background agent or a teammate's worker needs the user before it can go on.
  'agent_needs_input',
  'worker_permission_prompt',
]);

export const claudeHooks: AgentHooks = {
  agent: 'claude',
  events: Object.keys(MEANINGS),
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === 'Notification')
      return e.notification !== null && WAITING_NOTIFICATIONS.has(e.notification) ? 'waiting' : 'none';
    return MEANINGS[e.event] ?? 'none';
  },
  answer: () => null,
};
