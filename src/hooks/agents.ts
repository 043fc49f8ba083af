/**
 * Each agent's hooks (`providers/<name>/hooks.ts`) by its id: what `cctop hook`, the installers and
 * the live state ask about an agent's events. The modules it loads import nothing themselves, so
 * `cctop hook` pays for six small tables and no more.
 */
import { claudeHooks } from '../providers/claude/hooks.js';
import { codexHooks } from '../providers/codex/hooks.js';
import { cursorHooks } from '../providers/cursor/hooks.js';
import { geminiHooks } from '../providers/gemini/hooks.js';
import { opencodeHooks } from '../providers/opencode/hooks.js';
import { qwenHooks } from '../providers/qwen/hooks.js';
import type { AgentHooks, HookAgent } from './types.js';

const HOOKS: Readonly<Record<HookAgent, AgentHooks>> = {
  claude: claudeHooks,
  codex: codexHooks,
  gemini: geminiHooks,
  qwen: qwenHooks,
  cursor: cursorHooks,
  opencode: opencodeHooks,
};

export function agentHooks(agent: HookAgent): AgentHooks {
  return HOOKS[agent];
}
