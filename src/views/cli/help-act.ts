/**
 * The help of the commands that act on a session through its terminal (send, stop, resume, wait,
 * run, attach), kept apart from `help.ts` so each file stays one job's length.
 */
import { DEFAULT_WAIT_S, MAX_SEND_CHARS } from '../../act/typing.js';

/** The flags every one-shot output takes, as the acting commands list them. */
const COMMON = `  -p, --plan retail|max|included   how to show cost: retail prices, Claude bundled, or all bundled
  --provider claude,codex          only these harnesses
  --no-cache                       read every transcript again, without the index
  -h, --help                       this help`;

const SESSION_ID = 'ID is a session id or the start of one (cctop --list shows them).';

export const ACT_HELP = {
  send: `cctop send: type a line into a session's terminal

Usage: cctop send ID TEXT... [options]

${SESSION_ID}

Types TEXT (the words joined by spaces) and Enter into the terminal the session's agent runs in:
the tmux pane whose processes hold the agent, proven by process id, never guessed by title. The
text goes as literal keys (a word like Enter is typed as letters), at most ${MAX_SEND_CHARS}
characters, and control characters (newlines, tabs, escapes) are refused. A session cctop cannot
tie to one pane is refused with the reason. See docs/act.md.

Options:
${COMMON}
`,
  stop: `cctop stop: stop a session's current turn

Usage: cctop stop ID [options]

${SESSION_ID}

Presses the agent's own key for stopping a turn (Escape for every terminal agent cctop knows) in
the tmux pane proven to hold it, as cctop send finds it. The session stays open.

Options:
${COMMON}
`,
  resume: `cctop resume: take a session up again

Usage: cctop resume ID [options]

${SESSION_ID}

Inside tmux, opens a new window in the session's directory running the harness's own resume
command (claude --resume ID, codex resume ID); outside tmux, prints that command. A session that
is still running is refused: two agents writing one session would garble it.

Options:
${COMMON}
`,
  wait: `cctop wait: wait until a session is idle or waiting

Usage: cctop wait ID --until idle|waiting [--timeout S] [options]

${SESSION_ID}

Follows the session as the live table does (its files, and the agents' hooks when installed) and
exits 0 once its state is the one asked for, 1 if it is not by the timeout (default ${DEFAULT_WAIT_S} s).

Options:
  --until idle|waiting             the state to wait for
  --timeout S                      give up after S seconds
${COMMON}
`,
  run: `cctop run: an agent on a terminal cctop holds

Usage: cctop run AGENT [ARGS...]      (AGENT: claude, codex, gemini, qwen, opencode, pi, copilot)

Starts the agent with ARGS, as they are, on a pseudo-terminal held by a background cctop of yours
(started on demand; it ends with its last agent), and shows it here as if run directly: keys,
colours, resizing, and the agent's exit code as cctop's. Closing this terminal does not end the
agent. Ctrl-\\ then d detaches; cctop attach ID takes it back. cctop send and stop type into it.
Needs the optional package @lydell/node-pty.
`,
  attach: `cctop attach: take back an agent started by cctop run

Usage: cctop attach [--host HOST] ID

ID is the run's id (printed when you detach) or its session's id. Another terminal attached to
the run lets go of it. --host HOST runs cctop attach on HOST over ssh; HOST is [user@]host[:path],
the path naming cctop there when it is not on the PATH. Ctrl-\\ then d detaches.
`,
};
