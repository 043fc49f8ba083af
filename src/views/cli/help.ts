/**
 * What `cctop --help`, `cctop help COMMAND` and `cctop COMMAND --help` print. The "did you mean" for a
 * mistyped command or flag is `typo.ts`.
 *
 * Not here: `serve` and `exec`, which parse their own flags and keep their help beside them
 * (`views/serve/command.ts`, `exec-args.ts`); `cctop help serve` asks them for it.
 */

import { MAX_RESULT_CHARS, MAX_TEXT_CHARS, MAX_TURNS } from '../../model/conversation.js';
import type { CommandName } from './command-line.js';
import { ACT_HELP } from './help-act.js';

/** The flags every one-shot output takes, as every help lists them. */
const COMMON_OPTIONS = `  -p, --plan retail|max|included   how to show cost: retail prices, Claude bundled, or all bundled
  --harness claude,codex           only these harnesses (--provider: the same)
  --since DATE, --until DATE       only activity on these local days (YYYY-MM-DD, e.g. 2026-11-29)
  --timezone ZONE                  days and hours in this zone (default: the system's)
  --demo                           read the sample history that ships with cctop
  --no-cache                       read every transcript again, without the index
  --threads N                      parse with N worker threads (default: one per core)
  -h, --help                       this help`;

export const ROOT_HELP = `cctop: an htop for AI coding agents

Usage:
  cctop                 the live table on a terminal (a list otherwise); ? shows its keys
  cctop --list          every session as a table, grouped by harness
  cctop --json          the session document (docs/session-document.md)
  cctop chat [ID]       one session's conversation (--before SEQ, --at SEQ, --agent ID, --json, --markdown)
  cctop search QUERY    find words in every conversation, every harness: ranked, with the turn (--json)
  cctop secrets         credentials found in the transcripts: session, turn, kind, ends only (--json,
                        --reveal ID:TURN on a terminal); every other output shows them redacted
  cctop report [ID]     one session in depth: cost over time, context, failures, files (--json)
  cctop handoff [ID]    a brief of the session for another harness, and the command that starts it
                        on the brief (--to claude|codex|gemini|qwen|opencode|pi|copilot, --run)
  cctop export [ID]     the whole conversation, every turn, as Markdown or JSON (--subagents, --out)
  cctop explain [ID]    why a session's state reads as it does: hooks, registry, files (--json)
  cctop send ID TEXT    type TEXT and Enter into the session's terminal (its tmux pane; docs/act.md)
  cctop stop ID         stop the session's current turn with the agent's own key (Escape)
  cctop resume ID       the harness's resume command in a new tmux window
  cctop wait ID --until idle|waiting   exit once the session gets there (--timeout S)
  cctop run AGENT ...   claude, codex, gemini, qwen, opencode, pi or copilot on a terminal cctop holds:
                        close it and the agent runs on (Ctrl-\\ then d detaches; docs/act-terminal.md)
  cctop attach ID       take a run back, from any terminal (--host H: over ssh)
  cctop daily           spend per day, every harness (also weekly, monthly; --by, --breakdown, --json)
  cctop blocks          Claude Code's 5-hour billing blocks, the active one's burn rate (--json)
  cctop spend           where the money went: projects, models, harnesses, tools ranked (--period, --json)
  cctop budget          each budget of the config file: spent, limit, share (exits 1 when one is over)
  cctop quota           the subscription quota: each window used, when it resets, its source and age,
                        and when it runs out at today's burn (--json; docs/quota.md)
  cctop config path     where the config file is (config check: what is wrong in it; docs/config.md)
  cctop statusline      the line Claude Code's statusLine runs (install|remove|status; docs/statusline.md)
  cctop hooks install   let the agents tell cctop each session's state (remove|status; docs/hooks.md)
  cctop hook AGENT ...  what the agents' hooks run: tells running cctops (docs/protocol.md)
  cctop approve ID allow|deny   answer a session's permission request (--reason, --answer; --list;
                        cctop pending lists them; needs hooks install --approvals; docs/act.md)
  cctop mcp             an MCP server for your agents: sessions, conflicts, waits (install; docs/mcp.md)
  cctop push            this machine's sessions and spend into the team store (--to, --every; docs/team.md)
  cctop store           the team store: migrate, status, budget set|list|remove (docs/team.md)
  cctop serve           the dashboard in a browser (--bind, --port; see docs/serve.md)
  cctop watch           desktop and webhook notifications, without the table (--notify URL; docs/notifications.md)
  cctop exec AGENT ...  run claude, codex, copilot, gemini, qwen, pi or opencode headlessly as one event stream (docs/drive.md);
                        any ACP agent with --acp 'COMMAND', or by its [acp.NAME] in the config file
  cctop doctor          where cctop looked, what it found, what it could not read
  cctop pricing update  refresh the price catalogue (the only command that uses the network)
  cctop help COMMAND    that command's usage and options (so does cctop COMMAND --help)

Options go anywhere on the line, before or after the command:
  -l, --list, -j, --json           as above
  -d, --delay SECONDS              refresh interval of the live table (default 2)
  --host [USER@]HOST[:PATH]        also show another machine's sessions, read over ssh (repeatable;
                                   also CCTOP_HOSTS and the config's hosts; docs/hosts.md)
${COMMON_OPTIONS}
  -v, --version
`;

const SESSION_ID = `ID is a session id or the start of one (cctop --list shows them); without it, the newest
session.`;

const PERIOD_HELP = (command: string, unit: string) => `cctop ${command}: spend per ${unit}, every harness

Usage: cctop ${command} [options]

A row per ${unit} (local ${unit === 'day' ? 'days' : 'days grouped'} in --timezone) with the five token kinds, total
tokens, cost and the models used, a bar per ${unit} to read cost at a glance, and a totals row;
newest last. Counted from the index the live table keeps, so it reads no transcript when the
index is current. The JSON is documented in docs/reports.md.

Options:
  --by harness|model|project|tool  split each ${unit} (the rows sum to the ${unit})
  -b, --breakdown                  the per-model lines under each ${unit}
  --order asc|desc                 oldest or newest first (default asc: newest last)
  --start-of-week monday|sunday    where a week begins (default monday)
  --compact                        fit 80 columns (also when the terminal is that narrow)
  -j, --json                       the report as JSON
  --host [USER@]HOST[:PATH]        add another machine's spend, read over ssh (repeatable; also
                                   CCTOP_HOSTS and the config's hosts; docs/reports.md)
${COMMON_OPTIONS}
`;

/** Each command's own help, for the commands whose flags `main.ts` parses. */
const COMMAND_HELP: Record<
  Exclude<
    CommandName,
    | 'serve'
    | 'exec'
    | 'statusline'
    | 'hooks'
    | 'mcp'
    | 'push'
    | 'store'
    | 'search'
    | 'secrets'
    | 'help'
    | 'approve'
    | 'pending'
  >,
  string
> = {
  daily: PERIOD_HELP('daily', 'day'),
  weekly: PERIOD_HELP('weekly', 'week'),
  monthly: PERIOD_HELP('monthly', 'month'),
  blocks: `cctop blocks: Claude Code's 5-hour billing blocks

Usage: cctop blocks [options]

A block starts at the UTC hour of its first request and lasts five hours; a silence longer than
that starts a new one and is shown as a gap (as ccusage counts them). The active block shows its
time left, burn rate (tokens and dollars per minute) and what it will have spent by its end.

Options:
  --token-limit N|max              mark blocks over N tokens (max: the largest finished block)
  --active                         only the active block
  --order asc|desc                 oldest or newest first (default asc)
  --compact                        fit 80 columns
  -j, --json                       the blocks as JSON (docs/reports.md)
  --host [USER@]HOST[:PATH]        count another machine's requests in the same account's blocks,
                                   read over ssh (repeatable; also CCTOP_HOSTS and the config's hosts)
  --hours                          with --json, each UTC hour's requests (what --host reads)
${COMMON_OPTIONS}
`,
  explain: `cctop explain: why a session's state reads as it does

Usage: cctop explain [ID] [options]

${SESSION_ID}

Prints every source of evidence for the session's state, strongest first, and which decided: the
agent's hooks (cctop hooks install puts them in), the agent's own list of running sessions
(Claude Code's), and what cctop infers from the transcript and the process table.

Options:
  -j, --json                       the evidence as JSON
${COMMON_OPTIONS}
`,
  ...ACT_HELP,
  hook: `cctop hook: what an agent's hook runs

Usage: cctop hook AGENT EVENT        (AGENT: claude, codex, gemini, qwen, cursor, opencode)

Run by the hooks cctop installs in each agent's settings, not by hand. Reads the agent's JSON on
stdin (Codex's notify: its last argument), keeps the session's state in a small journal in the
runtime directory, and tells every running cctop. Always exits 0 and prints nothing but the
answer an agent requires, also on bad input; gives up after 250 ms. See docs/protocol.md.
`,
  budget: `cctop budget: where each budget stands

Usage: cctop budget [options]

Budgets are set in the config file (cctop config path; docs/config.md): per day, week or month,
optionally per project or harness, in dollars at retail prices whatever --plan shows. Prints each
one's spend, limit and share; exits 1 when a budget is exceeded (for scripts and CI).

Options:
  -j, --json                       the budgets as JSON
  --host [USER@]HOST[:PATH]        count another machine's spend against these budgets, read over
                                   ssh (repeatable; also CCTOP_HOSTS and the config's hosts)
${COMMON_OPTIONS}
`,
  quota: `cctop quota: the subscription quota people run out of

Usage: cctop quota [options]

Each rate-limit window of each account on this machine (5h, 7d, 7d-opus, 7d-sonnet, extra): how
much is used, when it resets, which source said so and how long ago. Sources: Claude Code's own
cache in ~/.claude.json, what Claude Code last sent cctop's status line, and the newest rate
limits a Codex rollout holds. A figure whose window has reset since is printed as stale.

Under the table, cctop's estimate (the pace): the tokens this machine spent inside each window,
today's burn, whether the window runs out before it resets, and which running session spends it
fastest. See docs/quota.md.

Options:
  -j, --json                       the figures and the pace as JSON
${COMMON_OPTIONS}
`,
  config: `cctop config: the config file

Usage: cctop config path | cctop config check

path prints where the file is ($CCTOP_CONFIG, else $XDG_CONFIG_HOME/cctop/config.toml, else
~/.config/cctop/config.toml); check says what in it cctop cannot use, with the line. The file and
every setting are in docs/config.md.

Options:
  -h, --help                       this help
`,
  spend: `cctop spend: where the money went

Usage: cctop spend [options]

For this day, week or month (or --since/--until), the projects, models and harnesses ranked by
cost, and the tools (each request's cost shared by the tools it called), each with its share and
the change from the period before.

Options:
  --period day|week|month          which period (default month)
  --start-of-week monday|sunday    where a week begins (default monday)
  --compact                        fit 80 columns
  -j, --json                       the report as JSON (docs/reports.md)
  --host [USER@]HOST[:PATH]        add another machine's spend, read over ssh (repeatable; also
                                   CCTOP_HOSTS and the config's hosts; docs/reports.md)
${COMMON_OPTIONS}
`,
  chat: `cctop chat: one session's conversation, newest turns last

Usage: cctop chat [ID] [options]

${SESSION_ID} Prints the newest turns; when there are earlier ones, the first line says
how to page back. On a terminal the text goes through $CCTOP_PAGER, else $PAGER, else less
(LESS=FRX unless set), as git log does; PAGER=cat turns it off; piped, it is never paged.

Options:
  --before SEQ                     the turns before turn #SEQ (page back)
  --at SEQ                         the turns up to just after #SEQ, marked (where cctop search points)
  --agent ID                       a subagent's conversation instead of the session's own
  --markdown                       as Markdown, to save or paste
  --json                           as JSON
  --host [USER@]HOST[:PATH]        the session is on that machine: asked of its cctop over ssh
                                   (an ID not found here is asked of CCTOP_HOSTS or the config's
                                   hosts; docs/hosts.md)
${COMMON_OPTIONS}
`,
  report: `cctop report: one session in depth

Usage: cctop report [ID] [options]

${SESSION_ID} Cost by hour and model, context over time and what fills it, failures,
the slowest calls, the files touched and the subagents run.

Options:
  --json                           the report as JSON
  --host [USER@]HOST[:PATH]        the session is on that machine: asked of its cctop over ssh
                                   (an ID not found here is asked of CCTOP_HOSTS or the config's
                                   hosts; docs/hosts.md)
${COMMON_OPTIONS}
`,
  handoff: `cctop handoff: hand a session's task over to another harness

Usage: cctop handoff [ID] [--to HARNESS] [--run] [options]

${SESSION_ID} Writes a brief of the session (its goal, plan and todos, the files it changed
and read, the commands it ran, its failures and subagents, and where it stopped) to a file in
cctop's cache, and prints the command that starts HARNESS in the session's directory with a first
message telling it to read the brief. docs/handoff.md has the details.

Options:
  --to HARNESS                     claude, codex, gemini, qwen, opencode, pi or copilot (default:
                                   codex for a Claude Code session, claude for the others)
  --run                            run that command here, in the session's directory
  -o, --out FILE                   write the brief to FILE instead
  -j, --json                       the brief's path and the command as JSON
${COMMON_OPTIONS}
`,
  export: `cctop export: a session's whole conversation, for sharing

Usage: cctop export [ID] [--format markdown|json] [--subagents] [--out FILE] [options]

${SESSION_ID} Every turn, oldest first (cctop chat --markdown is the newest ${MAX_TURNS}), made safe
for terminals and for Markdown renderers and pages: no control characters, no HTML that would run.
Each message keeps its first ${MAX_TEXT_CHARS} characters and each tool result its first ${MAX_RESULT_CHARS}, as cctop chat.

Options:
  --format markdown|json           default markdown
  --subagents                      the subagents' conversations too, after the session's own
  -o, --out FILE                   write to FILE instead of standard output
${COMMON_OPTIONS}
`,
  doctor: `cctop doctor: where cctop looked, what it found, what it could not read

Usage: cctop doctor [options]

Each harness's places and how many sessions and files were found there, every file or line that
could not be read and why, the price catalogue in use, and every model without a price. Exits 1
when a file could not be read at all.

With hosts (--host, CCTOP_HOSTS or the config's hosts), the ssh round trip to each: the remote
cctop's version and sessions, or what went wrong in ssh's words and the fix. Exits 1 when a host
could not be read.

Options:
  --host [USER@]HOST[:PATH]        check this machine (repeatable; docs/hosts.md)
${COMMON_OPTIONS}
`,
  watch: `cctop watch: desktop and webhook notifications, without the table

Usage: cctop watch [options]

Sends a notification when a session starts waiting for you or stops on an error, and for the
alerts (budget, error loop, stall, burn rate) and collisions: on the desktop (notify-send or
osascript, when on PATH) and to the webhook of the config file's [notify]. Once per crossing, by
one cctop per machine: a watcher takes the sending over from a live table or a dashboard. Prints a
line per notice sent; runs until Ctrl-C. docs/notifications.md has the formats, and a systemd unit
and a launchd agent to run it at login.

Options:
  --notify URL                     POST each notice to URL (over notify.url)
  --notify-format json|ntfy|slack  the webhook's format (over notify.format; default json)
  --no-desktop                     no desktop notifications (over notify.desktop)
  --delay SECONDS                  how often transcripts are re-read (default 2)
  -p, --plan retail|max|included, --harness claude,codex, --timezone ZONE, --no-cache,
  --threads N                      as for cctop --list
  -h, --help                       this help
`,
  pricing: `cctop pricing update: refresh the price catalogue

Usage: cctop pricing update

Fetches the newest model price catalogue (genai-prices, or $CCTOP_PRICES_URL) into cctop's cache
directory ($CCTOP_CACHE_DIR, else ~/.cache/cctop); every other command prices offline from it. The
only command that uses the network. Without it, set CCTOP_PRICES_URL to a copy this machine can
reach: another https:// URL, or file:///path/to/data.json.

Options:
  -h, --help                       this help
`,
};

export function commandHelp(command: keyof typeof COMMAND_HELP): string {
  return COMMAND_HELP[command];
}
