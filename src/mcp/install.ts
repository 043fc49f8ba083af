/**
 * `cctop mcp install|remove|status`: cctop's MCP server in the agents' own MCP configuration, as
 * each agent's `mcp add` writes it (checked against the versions the lab pins):
 * - Claude Code 2.1.328: user-scope servers in `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`
 *   when that is set), `mcpServers.cctop = { type: "stdio", command, args, env: {} }`. Not
 *   settings.json: Claude Code reads no MCP server from there.
 * - Codex 0.169.0: `[mcp_servers.cctop]` with `command` and `args` in `$CODEX_HOME/config.toml`.
 * - Gemini CLI 0.61.0: `mcpServers.cctop = { command, args }` in `~/.gemini/settings.json`.
 *
 * The command is this cctop's program (`cctopProgram`: the `cctop` link the user ran, else node and
 * the package's script, absolute) and `mcp`. A server entry is cctop's when its words end in `mcp`
 * and the program before it is cctop's (`isCctop`), or when it is what cctop recorded writing; one
 * pointing at a cctop that moved is repointed, keeping what the user added beside it (`env`, a
 * timeout).
 *
 * The edits are the shared installer's (`install/json-member.ts`, `install/toml-table.ts`): merged,
 * atomic, `<file>.cctop.bak`, an unreadable file refused, and `remove` after `install` gives back the
 * file's text byte for byte.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isCctop } from '../hooks/install/command.js';
import {
  type Done,
  type EntryStatus,
  entryStatus,
  type InstallOutcome,
  type RemoveOutcome,
  type Target,
} from '../install/apply.js';
import type { Entry } from '../install/entry.js';
import { installMember, removeMember } from '../install/json-member.js';
import { InstallError } from '../install/settings-file.js';
import { installTable, removeTable, type TomlTarget, tableStatus } from '../install/toml-table.js';
import { arr, type JsonObject, obj, str } from '../model/json.js';
import { claudeRoots } from '../providers/claude/place.js';
import { codexRoots } from '../providers/codex/place.js';
import { home } from '../providers/fsutil.js';
import { geminiRoots } from '../providers/gemini/place.js';
import type { Env } from '../providers/types.js';

export const MCP_AGENTS = ['claude', 'codex', 'gemini'] as const;
export type McpAgent = (typeof MCP_AGENTS)[number];

export const isMcpAgent = (s: string): s is McpAgent => (MCP_AGENTS as readonly string[]).includes(s);

/** The name the agents know the server by: its tools read as `mcp__cctop__list_sessions` in Claude Code. */
export const SERVER_NAME = 'cctop';

/** The subcommand that runs the server. */
export const MCP_WORD = 'mcp';

const NAMES: Readonly<Record<McpAgent, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
};

/** Where one agent keeps its MCP servers, and cctop's entry there. */
export type McpSetup = {
  agent: McpAgent;
  name: string;
  /** The agent's own directory: there when the agent is used on this machine. */
  home: string;
  entry: Entry;
} & ({ format: 'json'; target: Target } | { format: 'toml'; target: TomlTarget });

/** The server's command line as an entry holds it, or null when it holds none. */
function argvOf(found: unknown): string[] | null {
  const o = obj(found);
  const command = str(o?.command);
  const args = arr(o?.args) ?? [];
  if (command === null || !args.every((a) => typeof a === 'string')) return null;
  return [command, ...(args as string[])];
}

/** Whether an entry runs a cctop's MCP server: this one's, or one whose program names cctop. */
export function runsCctopServer(found: unknown, program: readonly string[]): boolean {
  const argv = argvOf(found);
  if (argv === null || argv.at(-1) !== MCP_WORD) return false;
  const words = argv.slice(0, -1);
  const own = words.length === program.length && words.every((w, i) => w === program[i]);
  return own || words.some(isCctop);
}

function entryFor(path: readonly string[], want: JsonObject, program: readonly string[]): Entry {
  return {
    path,
    want,
    isOurs: (found) => runsCctopServer(found, program),
    // Pointed at this cctop; whatever the user put beside the command stays.
    repoint: (found) => ({ ...(obj(found) ?? {}), command: want.command, args: want.args }),
    label: 'MCP server',
  };
}

/** Claude Code's global config file: `.claude.json` in its config directory when set, else in the home. */
function claudeConfig(env: Env): string {
  const configured = env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR !== '';
  return join(configured ? claudeRoots(env)[0]!.path : home(env), '.claude.json');
}

/** Where `agent` keeps its MCP servers under `env`, with cctop's entry for `program`. */
export function mcpSetup(agent: McpAgent, env: Env, program: readonly string[]): McpSetup {
  const command = program[0] ?? 'cctop';
  const args = [...program.slice(1), MCP_WORD];
  switch (agent) {
    case 'claude':
      return {
        agent,
        name: NAMES[agent],
        home: claudeRoots(env)[0]!.path,
        target: { path: claudeConfig(env), syntax: 'json', label: 'Claude Code config' },
        format: 'json',
        entry: entryFor(['mcpServers', SERVER_NAME], { type: 'stdio', command, args, env: {} }, program),
      };
    case 'codex': {
      const dir = codexRoots(env)[0]!.path;
      return {
        agent,
        name: NAMES[agent],
        home: dir,
        target: { path: join(dir, 'config.toml'), label: 'Codex config' },
        format: 'toml',
        entry: entryFor(['mcp_servers', SERVER_NAME], { command, args }, program),
      };
    }
    case 'gemini': {
      const dir = geminiRoots(env)[0]!.path;
      return {
        agent,
        name: NAMES[agent],
        home: dir,
        target: { path: join(dir, 'settings.json'), syntax: 'jsonc', label: 'Gemini CLI settings' },
        format: 'json',
        entry: entryFor(['mcpServers', SERVER_NAME], { command, args }, program),
      };
    }
  }
}

/** An agent cctop did not act on, and why. */
export interface McpSkipped {
  agent: McpAgent;
  name: string;
  /** Its directory, which is not there. */
  missing: string;
}

/** The agents to act on: `named`, else those whose directory is there; and those left out. */
export function chooseMcpAgents(
  env: Env,
  program: readonly string[],
  named: readonly McpAgent[] | null,
): { setups: McpSetup[]; skipped: McpSkipped[] } {
  const setups: McpSetup[] = [];
  const skipped: McpSkipped[] = [];
  for (const agent of named ?? MCP_AGENTS) {
    const s = mcpSetup(agent, env, program);
    if (named === null && !existsSync(s.home)) skipped.push({ agent, name: s.name, missing: s.home });
    else setups.push(s);
  }
  return { setups, skipped };
}

/** One agent's result, or why its file was refused (an `InstallError`'s message). */
export type McpAttempt<T> = { kind: 'done'; result: T } | { kind: 'refused'; why: string };

function attempt<T>(act: () => T): McpAttempt<T> {
  try {
    return { kind: 'done', result: act() };
  } catch (err) {
    if (err instanceof InstallError) return { kind: 'refused', why: err.message };
    throw err;
  }
}

export const installServer = (s: McpSetup): McpAttempt<Done<InstallOutcome>> =>
  attempt(() => (s.format === 'toml' ? installTable(s.target, s.entry) : installMember(s.target, s.entry)));

export const removeServer = (s: McpSetup): McpAttempt<Done<RemoveOutcome>> =>
  attempt(() => (s.format === 'toml' ? removeTable(s.target, s.entry) : removeMember(s.target, s.entry)));

export const serverStatus = (s: McpSetup): McpAttempt<EntryStatus> =>
  attempt(() => (s.format === 'toml' ? tableStatus(s.target, s.entry) : entryStatus(s.target, s.entry)));
