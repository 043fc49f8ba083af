/**
 * Cursor's agent hooks, as cctop reads them: which events cctop installs (`hooks.<event>` in
 * `~/.cursor/hooks.json`, each a list of `{ "command": … }`) and what each says about the session.
 *
 * Left out on purpose: the events that decide something (`beforeShellExecution`,
 * `beforeMCPExecution`, `beforeReadFile`, `preToolUse`, `subagentStart`). Cursor reads a
 * `permission` from them, and any answer cctop could give (even "allow") would take the decision
 * from Cursor's own rules or from the user. So Cursor shows no `waiting`: no event that cctop can
 * watch without deciding says that a dialog is open.
 *
 * Cursor reads each hook's stdout as JSON: cctop answers `{"continue":true}` to a submitted prompt
 * (let it through) and `{}` to everything else (nothing to add, no follow-up message).
 *
 * Imports nothing: `cctop hook` loads this on every event, and must start in milliseconds.
 */
import type { AgentHooks, HookEvent, HookMeaning } from '../../hooks/types.js';

const MEANINGS: Readonly<Record<string, HookMeaning>> = {
  sessionStart: 'started',
  beforeSubmitPrompt: 'working',
  postToolUse: 'working',
  postToolUseFailure: 'working',
  afterShellExecution: 'working',
  afterMCPExecution: 'working',
  afterFileEdit: 'working',
  subagentStop: 'none',
  preCompact: 'none',
  stop: 'idle',
  sessionEnd: 'ended',
};

/** `stop` carries how the loop ended (`completed`, `aborted`, `error`) as its notification. */
const STOP_ERROR = 'error';

/** What lets a submitted prompt through unchanged. */
const LET_THROUGH = '{"continue":true}';
/** What adds nothing to any other event. */
const NOTHING = '{}';

export const cursorHooks: AgentHooks = {
  agent: 'cursor',
  events: Object.keys(MEANINGS),
  meaning(e: Pick<HookEvent, 'event' | 'notification'>): HookMeaning {
    if (e.event === 'stop' && e.notification === STOP_ERROR) return 'error';
    return MEANINGS[e.event] ?? 'none';
  },
  answer: (event: string) => (event === 'beforeSubmitPrompt' ? LET_THROUGH : NOTHING),
};
