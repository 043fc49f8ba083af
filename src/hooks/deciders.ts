/**
 * The agents whose hooks can decide a tool call, by id, each loaded only when a hook holds a request
 * (`cctop hook … --hold`): every other hook pays nothing for them.
 *
 * Claude Code alone for now. Why each other agent is not here is in `docs/act.md`: Codex asks its
 * `PermissionRequest` hook before it shows its own dialog, so holding it would hide the dialog from
 * the person at the terminal for the whole hold; Qwen Code 0.24.4 awaits its `PermissionRequest` hook
 * before its dialog too (read in the pinned build); the others have no event that decides a
 * permission while their dialog is up.
 */
import type { HookDecider } from '../approvals/types.js';
import type { HookAgent } from './types.js';

export async function loadDecider(agent: HookAgent): Promise<HookDecider | null> {
  switch (agent) {
    case 'claude':
      return (await import('../providers/claude/decide.js')).claudeDecider;
    case 'codex':
    case 'gemini':
    case 'qwen':
    case 'cursor':
    case 'opencode':
      return null;
  }
}

/** The agents `loadDecider` has a decider for, and their deciding events (for the installer). */
export const DECIDING_EVENTS: Readonly<Partial<Record<HookAgent, readonly string[]>>> = {
  claude: ['PermissionRequest'],
};
