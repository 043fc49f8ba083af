/**
 * `cctop mcp`: the MCP server over stdio (what the agents run), and `cctop mcp install|remove|status`,
 * which put it into Claude Code's, Codex's and Gemini CLI's MCP configuration, take it out again, and
 * say how it stands.
 *
 * Without `--agent`, install and remove act on the agents used on this machine (their directory is
 * there) and name the others. A file cctop cannot read is reported and left as it is; the other agents
 * go on, and the command exits 1.
 *
 * Not here: the server (`mcp/server.ts`) or the edits (`mcp/install.ts`).
 */
import type { Done, EntryStatus, InstallOutcome, RemoveOutcome } from '../../install/apply.js';
import type { McpAgent, McpAttempt, McpSetup, McpSkipped } from '../../mcp/install.js';
import { home } from '../../providers/fsutil.js';
import { safeLine } from '../terminal-text.js';
import { type Paint, paint } from './color.js';
import { tildify } from './format.js';
import type { Io } from './main.js';
import { COMMON_FLAGS, commonOptions, parse, UsageError } from './options.js';
import { closest } from './typo.js';

const AGENT_LIST = 'claude, codex, gemini';

export const MCP_HELP = `cctop mcp: an MCP server that lets your agents see each other's sessions

Usage:
  cctop mcp                                 serve MCP over stdio (what the agents run)
  cctop mcp install [--agent LIST]          add it to the agents' MCP servers, as "cctop"
  cctop mcp remove  [--agent LIST]          take it out, each file as it was
  cctop mcp status  [--agent LIST]          whether each agent has it, and which cctop it runs

Tools (all read-only): list_sessions (the running sessions, by directory), search (every
conversation, as cctop search), get_session (one session's report in brief), check_conflicts (which running sessions touch these files),
wait_for_session (until a session stops working, bounded). Text from transcripts is returned as
data, and each tool says so to the model. Agents: ${AGENT_LIST}: Claude Code's ~/.claude.json,
Codex's ~/.codex/config.toml, Gemini CLI's ~/.gemini/settings.json. Only cctop's entry is added or
taken out; the file as it was is kept beside it (<name>.cctop.bak). See docs/mcp.md.

Options:
  --agent LIST        only these agents, separated by commas (default: those used here)
  -j, --json          the outcome as JSON (install, remove, status)
  --plan, --harness, --demo, --no-cache
                      for the server: as for cctop --list
  -h, --help          this help
`;

const FLAGS = {
  ...COMMON_FLAGS,
  agent: { type: 'string' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['install', 'remove', 'status'] as const;
type Action = (typeof ACTIONS)[number];

/** Run `cctop mcp …` (`args` are the words after `mcp`). */
export async function mcpCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, 'mcp');
  if (values.help === true) {
    io.out(MCP_HELP);
    return 0;
  }
  const [word, ...more] = positionals;
  if (word === undefined) {
    const { runMcpServer } = await import('../../mcp/server.js');
    const { version } = await import('./version.js');
    await runMcpServer({ env: io.env, options: commonOptions(values), version: version() });
    return 0;
  }
  const action = ACTIONS.find((a) => a === word);
  if (action === undefined || more.length > 0) {
    const near = closest(word, ACTIONS);
    throw new UsageError(
      `mcp ${safeLine(word)}: expected ${ACTIONS.join(', ')}, or nothing to serve${near ? `; did you mean ${near}?` : ''}`,
    );
  }
  return installCommand(action, values, io);
}

async function installCommand(action: Action, values: Record<string, unknown>, io: Io): Promise<number> {
  const m = await import('../../mcp/install.js');
  const { cctopProgram } = await import('../../hooks/install/command.js');
  const named = agentsOf(values.agent, m.isMcpAgent);
  const { setups, skipped } = m.chooseMcpAgents(io.env, cctopProgram(), named);
  const act = (s: McpSetup): McpAttempt<unknown> =>
    action === 'install' ? m.installServer(s) : action === 'remove' ? m.removeServer(s) : m.serverStatus(s);
  const rows = setups.map((setup) => ({ setup, attempt: act(setup) }));
  const failed = rows.some((r) => r.attempt.kind === 'refused');
  if (values.json === true) {
    io.out(
      JSON.stringify({
        action,
        agents: rows.map((r) => ({
          agent: r.setup.agent,
          name: r.setup.name,
          file: r.setup.target.path,
          ...(r.attempt.kind === 'done' ? { result: r.attempt.result } : { refused: r.attempt.why }),
        })),
        skipped,
      }),
    );
    return failed ? 1 : 0;
  }
  const h = home(io.env);
  const p = paint(io.isTty, io.env);
  for (const r of rows) {
    const file = tildify(r.setup.target.path, h);
    if (r.attempt.kind === 'refused') {
      io.err(`cctop: ${safeLine(r.attempt.why)}`);
      continue;
    }
    const said =
      action === 'status'
        ? statusWords(r.attempt.result as EntryStatus, p)
        : doneWords(action, r.attempt.result as Done<InstallOutcome | RemoveOutcome>, h);
    io.out(`${p.bold(r.setup.name)}  ${file}: ${said}`);
  }
  if (rows.length === 0 && skipped.length === 0) io.out('No agent to act on.');
  sayskipped(io, skipped, named === null, h, p);
  return failed ? 1 : 0;
}

function doneWords(
  action: Exclude<Action, 'status'>,
  d: Done<InstallOutcome | RemoveOutcome>,
  h: string,
): string {
  const backup = d.backup !== null ? `; the file as it was is ${tildify(d.backup, h)}` : '';
  switch (d.outcome.kind) {
    case 'added':
      return `added the cctop MCP server${backup}`;
    case 'repointed':
      return `pointed the cctop MCP server at this cctop${backup}`;
    case 'unchanged':
      return 'already in place';
    case 'removed':
    case 'restored':
      return `took the cctop MCP server out${d.wrote === null ? '' : backup}`;
    case 'absent':
      return 'no cctop MCP server there, nothing to remove';
    case 'foreign':
      return `a server named cctop that is not cctop's is there; left as it is${action === 'install' ? ' (rename or remove it, then run this again)' : ''}`;
    case 'replaced':
      return `replaced another server${backup}`;
  }
}

function statusWords(s: EntryStatus, p: Paint): string {
  switch (s.kind) {
    case 'absent':
      return 'not installed (cctop mcp install)';
    case 'foreign':
      return p.amber("a server named cctop that is not cctop's");
    case 'ours':
      return s.current
        ? p.green('installed')
        : p.amber('installed, running another cctop (cctop mcp install repoints it)');
  }
}

function agentsOf(v: unknown, isAgent: (s: string) => s is McpAgent): McpAgent[] | null {
  if (typeof v !== 'string') return null;
  const out: McpAgent[] = [];
  for (const word of v
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w.length > 0)) {
    if (!isAgent(word)) {
      const near = closest(word, ['claude', 'codex', 'gemini']);
      throw new UsageError(
        `--agent ${safeLine(word)}: not an agent cctop adds its MCP server to${near ? `, did you mean ${near}?` : ''} (${AGENT_LIST})`,
      );
    }
    if (!out.includes(word)) out.push(word);
  }
  if (out.length === 0) throw new UsageError(`--agent: name at least one of ${AGENT_LIST}`);
  return out;
}

function sayskipped(io: Io, skipped: readonly McpSkipped[], guessed: boolean, h: string, p: Paint): void {
  if (skipped.length === 0) return;
  io.out(p.dim(`Skipped: ${skipped.map((s) => `${s.name} (no ${tildify(s.missing, h)})`).join('; ')}.`));
  if (guessed) io.out(p.dim('Name an agent with --agent to act on it anyway.'));
}
