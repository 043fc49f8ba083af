/** The agents drive can run, by id. */
import type { NamedAgent } from '../events.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { pi } from './pi.js';
import { qwen } from './qwen.js';
import type { AgentSpec } from './spec.js';

export const SPECS: Readonly<Record<NamedAgent, AgentSpec>> = {
  claude,
  codex,
  copilot,
  gemini,
  qwen,
  pi,
  opencode,
};

export const spec = (agent: NamedAgent): AgentSpec => SPECS[agent];

export type { AgentSpec, Baseline, Invocation, StdinPlan } from './spec.js';
export { checkCommandLine } from './spec.js';
