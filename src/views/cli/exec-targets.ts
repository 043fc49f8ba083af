/**
 * Which agents `cctop exec` runs: an agent drive knows by name, an ACP agent given on the command
 * line (`--acp 'goose acp'`), or one the config file names (`[acp.goose]`, run as `cctop exec goose`);
 * with `--all`, every installed named agent and every configured ACP agent whose executable is found.
 *
 * It only finds and names them. Whether an ACP command really speaks ACP is known once it runs, and
 * a broken config file is `cctop config check`'s to explain: here it only means no ACP agent by that
 * name.
 */
import { basename } from 'node:path';
import { loadConfig } from '../../config/config.js';
import { type AcpAgent, checkAcp, splitCommand } from '../../drive/acp/index.js';
import { DriveError } from '../../drive/errors.js';
import { AGENTS, type AgentId, isNamedAgent } from '../../drive/events.js';
import { installed, locate } from '../../drive/locate.js';
import type { Env } from '../../providers/types.js';

/** One agent to run, and what the output calls it. */
export interface Target {
  /** The named agent's id, or the ACP agent's name. */
  label: string;
  agent: AgentId;
  /** For `agent: 'acp'`: which ACP agent, and how to start it. */
  acp?: AcpAgent;
}

export type Found = { kind: 'found'; target: Target } | { kind: 'bad'; why: string };

const acpTarget = (acp: AcpAgent): Target => ({ label: acp.name, agent: 'acp', acp });

/** `--acp COMMAND`: the command split as a shell would split its words, named after its executable. */
export function fromFlag(command: string): Found {
  const split = splitCommand(command);
  if (split.kind === 'bad') return { kind: 'bad', why: `--acp ${command}: ${split.why}` };
  const name = basename(split.words[0]!) || 'acp';
  try {
    return { kind: 'found', target: acpTarget(checkAcp({ name, command: split.words })) };
  } catch (e) {
    if (e instanceof DriveError) return { kind: 'bad', why: `--acp ${command}: ${e.message}` };
    throw e;
  }
}

/** The ACP agents the config file names. */
const configured = (env: Env): AcpAgent[] => loadConfig(env).config.acp;

/** The agent a word names: one drive knows, else an ACP agent of the config file. */
export function byName(word: string, env: Env): Found {
  if (isNamedAgent(word)) return { kind: 'found', target: { label: word, agent: word } };
  const acp = configured(env).find((a) => a.name === word);
  if (acp !== undefined) return { kind: 'found', target: acpTarget(acp) };
  const names = [...AGENTS, ...configured(env).map((a) => a.name)];
  return {
    kind: 'bad',
    why: `unknown agent "${word}" (${names.join(', ')}; or --acp 'COMMAND', or an [acp.NAME] table in the config file)`,
  };
}

/** Every installed named agent, then every configured ACP agent whose executable is on PATH. */
export function everyInstalled(env: Env): Target[] {
  const named: Target[] = AGENTS.filter((a) => installed(a, env)).map((a) => ({ label: a, agent: a }));
  const acp = configured(env)
    .filter((a) => locate(a.command[0]!, env) !== null)
    .map(acpTarget);
  return [...named, ...acp];
}
