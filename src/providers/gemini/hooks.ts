/**
 * Gemini CLI's hooks, as cctop reads them: which events cctop installs (`hooks.<Event>` in
 * `~/.gemini/settings.json`) and what each says about the session. Read from 0.61.0's own enum of
 * hook events. Left out: `BeforeModel`, `AfterModel`, `BeforeToolSelection` and `PreCompress`, which
 * 0.61.0 runs before every model request (`trigger: auto`, whether or not it compresses): each would
 * start a process per request and say nothing the agent and tool events do not.
 *
 * Every hook here only watches: cctop never answers, so Gemini CLI decides as it would without it.
 *
 * Imports nothing: `cctop hook` loads this on every event, and must start in milliseconds.
 */
import type { AgentHooks, HookEvent, HookMeaning } from '../../hooks/types.js';

const MEANINGS: Readonly<Record<string, HookMeaning>> = {
  SessionStart: 'started',
  BeforeAgent: 'working',
  BeforeTool: 'working',
  AfterTool: 'working',
  Notification: 'none',
  AfterAgent: 'idle',
  SessionEnd: 'ended',
};

/** 0.61.0's one notification type: a tool call waits for the user's approval. */
const WAITING_NOTIFICATIONS: ReadonlySet<string> = new Set(['ToolPermission']);

export const geminiHooks: AgentHooks = {
  agent: 'gemini',
  events: Object.keys(MEANINGS),
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === 'Notification')
      return e.notification !== null && WAITING_NOTIFICATIONS.has(e.notification) ? 'waiting' : 'none';
    return MEANINGS[e.event] ?? 'none';
  },
  answer: () => null,
};
