/** The agents drive can run, by id. */
import type { AgentId } from '../events.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { gemini } from './gemini.js';
import { qwen } from './qwen.js';
import type { AgentSpec } from './spec.js';

export const SPECS: Readonly<Record<AgentId, AgentSpec>> = { claude, codex, copilot, gemini, qwen };

export const spec = (agent: AgentId): AgentSpec => SPECS[agent];

export type { AgentSpec, Baseline, Invocation, StdinPlan } from './spec.js';
export { checkCommandLine } from './spec.js';
