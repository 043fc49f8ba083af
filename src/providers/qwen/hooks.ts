/**
 * Qwen Code's hooks, as cctop reads them: which events cctop installs (`hooks.<Event>` in
 * `~/.qwen/settings.json`, the same shape as Claude Code's) and what each says about the session.
 * Read from 0.24.4's own enum of hook events and of notification types.
 *
 * Every hook here only watches: cctop never answers, so Qwen Code decides as it would without it.
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
  PermissionDenied: 'working',
  PermissionRequest: 'waiting',
  SubagentStart: 'working',
  SubagentStop: 'none',
  PreCompact: 'none',
  Notification: 'none',
  Stop: 'idle',
  StopFailure: 'error',
  SessionEnd: 'ended',
};

/** 0.24.4 sends `permission_prompt`, `idle_prompt` and `auth_success`; the first two wait on the user. */
const WAITING_NOTIFICATIONS: ReadonlySet<string> = new Set(['permission_prompt', 'idle_prompt']);

export const qwenHooks: AgentHooks = {
  agent: 'qwen',
  events: Object.keys(MEANINGS),
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === 'Notification')
      return e.notification !== null && WAITING_NOTIFICATIONS.has(e.notification) ? 'waiting' : 'none';
    return MEANINGS[e.event] ?? 'none';
  },
  answer: () => null,
};
