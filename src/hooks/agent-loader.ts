/**
 * One agent's hooks table, loaded alone: `cctop hook` runs on every event an agent sends and needs
 * only the table of the agent that ran it, so it pays for one small module rather than the six that
 * `agents.ts` gathers for the installers and the live state.
 */
import type { AgentHooks, HookAgent } from './types.js';

const LOADERS: Readonly<Record<HookAgent, () => Promise<AgentHooks>>> = {
  claude: async () => (await import('../providers/claude/hooks.js')).claudeHooks,
  codex: async () => (await import('../providers/codex/hooks.js')).codexHooks,
  gemini: async () => (await import('../providers/gemini/hooks.js')).geminiHooks,
  qwen: async () => (await import('../providers/qwen/hooks.js')).qwenHooks,
  cursor: async () => (await import('../providers/cursor/hooks.js')).cursorHooks,
  opencode: async () => (await import('../providers/opencode/hooks.js')).opencodeHooks,
};

export const loadAgentHooks = (agent: HookAgent): Promise<AgentHooks> => LOADERS[agent]();
