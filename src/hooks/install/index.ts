/**
 * The hook installers: `cctop hook <agent> <event>` put into each agent's settings, taken out
 * again, and reported. `docs/hooks.md` tells a user what it does to their files.
 *
 * Which agents to act on: the ones named, else those whose settings directory is there (the agent
 * is used on this machine); the others are skipped with the reason.
 */
import { existsSync } from 'node:fs';
import type { Env } from '../../providers/types.js';
import { HOOK_AGENTS, type HookAgent } from '../types.js';
import { AGENT_NAMES, type AgentSetup, agentSetup, type Scope } from './agents.js';
import type { PartDone, PartStatus } from './types.js';

export { AGENT_NAMES, type AgentSetup, agentSetup, type Scope } from './agents.js';
export { cctopProgram } from './command.js';
export type { PartDone, PartStatus } from './types.js';

/** An agent cctop did not act on, and why. */
export interface Skipped {
  agent: HookAgent;
  name: string;
  why: string;
  /** The settings directory that is not there, when that is why. */
  missing: string | null;
}

/** The agents to act on: `named`, else those used here; and those left out. */
export function chooseAgents(
  env: Env,
  scope: Scope,
  cwd: string,
  named: readonly HookAgent[] | null,
  holdSeconds: number | null = null,
): { setups: AgentSetup[]; skipped: Skipped[] } {
  const setups: AgentSetup[] = [];
  const skipped: Skipped[] = [];
  for (const agent of named ?? HOOK_AGENTS) {
    const s = agentSetup(agent, env, scope, cwd, holdSeconds);
    if (s.kind === 'unsupported') skipped.push({ agent, name: s.name, why: s.why, missing: null });
    else if (named === null && !existsSync(s.setup.home))
      skipped.push({ agent, name: s.setup.name, why: 'not used here', missing: s.setup.home });
    else setups.push(s.setup);
  }
  return { setups, skipped };
}

/** One part's result, or why it was refused. */
export type Attempt<T> = { kind: 'done'; result: T } | { kind: 'refused'; file: string; why: string };

/** How an agent's hooks stand as a whole. */
export type AgentState =
  /** Every event's hook runs this cctop. */
  | 'installed'
  /** Some hook runs another cctop (moved, or another install). */
  | 'stale'
  /** Some events have cctop's hook, some not. */
  | 'partial'
  | 'absent'
  /** A file could not be read. */
  | 'unreadable';

export function agentState(parts: readonly PartStatus[]): AgentState {
  if (parts.some((p) => p.error !== null)) return 'unreadable';
  const count = (k: 'current' | 'stale' | 'missing') => parts.reduce((n, p) => n + p[k].length, 0);
  if (count('current') + count('stale') === 0) return 'absent';
  if (count('stale') > 0) return 'stale';
  return count('missing') > 0 ? 'partial' : 'installed';
}

/** Run `act` on each part of the agent, carrying on past a part that is refused. */
export function eachPart<T extends PartDone | PartStatus>(
  setup: AgentSetup,
  act: (part: AgentSetup['parts'][number]) => T,
  refused: (err: unknown) => string | null,
): Attempt<T>[] {
  return setup.parts.map((part) => {
    try {
      return { kind: 'done', result: act(part) };
    } catch (err) {
      const why = refused(err);
      if (why === null) throw err;
      return { kind: 'refused', file: '', why };
    }
  });
}

export const agentName = (agent: HookAgent): string => AGENT_NAMES[agent];
