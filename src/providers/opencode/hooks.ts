/**
 * OpenCode's hooks, as cctop reads them. OpenCode has no hook settings: it loads plugins, and cctop
 * installs one of its own (`hooks/install/opencode.ts` writes it) that runs `cctop hook opencode
 * <event>` for the bus events and plugin hooks below, with a small JSON payload on stdin that it
 * builds itself, in the same field names as Claude Code's (`session_id`, `cwd`, `tool_name`,
 * `notification_type`). The event names are OpenCode's own (1.18.33).
 *
 * `session.status` carries the status's type (`busy`, `retry`, `idle`) as its `notification_type`,
 * and `session.error` the error's name: an aborted turn (`MessageAbortedError`) is the user pressing
 * Esc, not a failure.
 *
 * Imports nothing: `cctop hook` loads this on every event, and must start in milliseconds.
 */
import type { AgentHooks, HookEvent, HookMeaning } from '../../hooks/types.js';

const MEANINGS: Readonly<Record<string, HookMeaning>> = {
  'session.created': 'started',
  'session.status': 'none',
  'tool.execute.before': 'working',
  'tool.execute.after': 'working',
  'permission.asked': 'waiting',
  'permission.replied': 'working',
  // The question tool: the agent asks its user to choose, and has the answer (or was told no).
  'question.asked': 'waiting',
  'question.replied': 'working',
  'question.rejected': 'working',
  'session.idle': 'idle',
  'session.error': 'error',
  'session.deleted': 'ended',
};

/** What a `session.status` says, by its type. */
const STATUS: Readonly<Record<string, HookMeaning>> = { busy: 'working', retry: 'working', idle: 'idle' };

/** The error OpenCode reports when the user aborts a turn. */
const ABORTED = 'MessageAbortedError';

export const opencodeHooks: AgentHooks = {
  agent: 'opencode',
  events: Object.keys(MEANINGS),
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === 'session.status') return (e.notification !== null && STATUS[e.notification]) || 'none';
    if (e.event === 'session.error' && e.notification === ABORTED) return 'idle';
    return MEANINGS[e.event] ?? 'none';
  },
  answer: () => null,
};
