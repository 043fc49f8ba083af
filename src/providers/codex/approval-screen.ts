/**
 * Whether Codex's own "Would you like to run the following command?" prompt is up on a captured
 * terminal screen, which command it asks about, and which keys answer it. cctop answers a Codex
 * approval by pressing a key in its proven tmux pane (`act/answer-keys.ts`), and only after this
 * module has read the prompt on the screen: Codex 0.169.0 runs its `PermissionRequest` hook before it
 * shows the prompt, so its hook cannot be held to answer (docs/act.md).
 *
 * Read from the pinned 0.169.0 TUI in the lab (`approval_policy = "on-request"`, a command the model
 * asks to run outside the sandbox). Its prompt, at the bottom of the screen:
 *
 *     Would you like to run the following command?
 *     Environment: local
 *     Reason: <the model's justification>
 *     $ <the command>
 *     › 1. Yes, proceed (y)
 *       2. Yes, and don't ask again for commands that start with `…` (p)
 *       3. No, and tell Codex what to do differently (esc)
 *     Press enter to confirm or esc to cancel
 *
 * `y` runs the call once; `esc` cancels it, which ends the turn, and the model is told the call was
 * "aborted by user" on its next request. The prompt has no place for words: a reason would have to be
 * typed as the next prompt, which is a new turn, not an answer, so it is never typed here.
 *
 * The screen is hostile text (the model writes the reason, the command and all the history above), so
 * only a bounded tail of it is read, the prompt counts only when it is the last thing on the screen (a
 * transcript that prints its words is not the prompt), and nothing read here is printed raw.
 *
 * Not here: capturing the screen or pressing keys (`act/`), or knowing which call is waiting (hooks).
 */

/**
 * The most of a screen read, from its end. A terminal of 200 rows by 500 columns is 100 000
 * characters; the prompt sits in the screen's last rows, so the tail of a screen that large holds it.
 */
export const MAX_SCREEN_CHARS = 100_000;

/** The most lines of the screen's end read: the prompt is a dozen lines, plus a long wrapped command. */
export const MAX_PROMPT_LINES = 120;

/** A key that answers the prompt, as tmux's `send-keys` names it, and whether it is typed as a letter. */
export interface PromptKey {
  /** `y`, or tmux's name for a key (`Escape`). */
  tmux: string;
  /** Sent with `send-keys -l` (a letter), or by its name. */
  literal: boolean;
  /** The option's words on the screen, for what cctop tells the person it pressed. */
  label: string;
}

export type CodexPromptRead =
  | {
      kind: 'prompt';
      /** The command as the prompt shows it, its wrapped lines joined with a space. */
      command: string;
      allow: PromptKey;
      deny: PromptKey;
      /** Whether the deny option ends the turn (esc: "tell Codex what to do differently"). */
      denyEndsTurn: boolean;
    }
  | { kind: 'none'; why: string };

const HEADING = 'Would you like to run the following command?';
const FOOTER = 'Press enter to confirm or esc to cancel';
/** Other questions of the same overlay, which cctop does not answer. */
const OTHER_HEADINGS = [
  'Would you like to make the following edits?',
  'Would you like to grant these permissions?',
  'Would you like to send input to the existing terminal?',
];
/** An option line: `› 1. Yes, proceed (y)`, the marker on the selected one. */
const OPTION = /^(?:›\s*)?(\d)\.\s+(.+?)\s+\(([a-z]{1,3})\)$/;
/** The answers cctop gives, by their words on 0.169.0's screen, best first. */
const ALLOW_WORDS = ['Yes, proceed', 'Yes, just this once'];
const DENY_WORDS = ['No, continue without running it', 'No, and tell Codex what to do differently'];
/** What each key the prompt names is as tmux sends it: a letter, or esc. */
const keyOf = (shown: string, label: string): PromptKey | null =>
  shown === 'esc'
    ? { tmux: 'Escape', literal: false, label }
    : /^[a-z]$/.test(shown)
      ? { tmux: shown, literal: true, label }
      : null;

/** Controls and other unprintables, dropped before any line is read. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Read Codex's approval prompt off `screen` (the text of `tmux capture-pane -p`). */
export function readCodexPrompt(screen: string): CodexPromptRead {
  const tail = screen.length > MAX_SCREEN_CHARS ? screen.slice(-MAX_SCREEN_CHARS) : screen;
  const lines = tail
    .replace(UNPRINTABLE, '')
    .split('\n')
    .map((l) => l.trim())
    .slice(-MAX_PROMPT_LINES);
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  if (lines.at(-1) !== FOOTER) return { kind: 'none', why: 'no approval prompt is on its screen' };
  const head = lines.lastIndexOf(HEADING);
  if (head < 0) {
    const other = OTHER_HEADINGS.find((h) => lines.includes(h));
    return {
      kind: 'none',
      why: other
        ? `its prompt asks "${other}", which cctop does not answer`
        : 'its screen shows a prompt cctop does not know',
    };
  }
  const body = lines.slice(head + 1, -1);
  const dollar = body.findIndex((l) => l.startsWith('$ '));
  if (dollar < 0) return { kind: 'none', why: 'its prompt shows no command' };
  const command: string[] = [body[dollar]!.slice(2)];
  let at = dollar + 1;
  for (; at < body.length && body[at] !== ''; at++) command.push(body[at]!);
  // A long option wraps onto lines of its own; any line that is not an option's first is read as one.
  const options = body
    .slice(at)
    .map((l) => OPTION.exec(l))
    .filter((m) => m !== null);
  // The last of each: the real options are the prompt's last lines, below anything the command held.
  const pick = (words: readonly string[]): PromptKey | null => {
    for (const w of words) {
      const m = options.findLast((o) => o[2] === w);
      if (m) return keyOf(m[3]!, w);
    }
    return null;
  };
  const allow = pick(ALLOW_WORDS);
  const deny = pick(DENY_WORDS);
  if (allow === null || deny === null)
    return { kind: 'none', why: 'its prompt offers no plain allow and deny cctop knows' };
  return {
    kind: 'prompt',
    command: command.join(' '),
    allow,
    deny,
    denyEndsTurn: deny.label === DENY_WORDS[1],
  };
}

/**
 * Whether the prompt's command is the call a hook said is waiting. The screen wraps a long command
 * over lines and the hook's copy drops controls and is cut to its field's bound, so both are compared
 * without whitespace, and a cut copy (`cutAt` characters long) as the start of the shown one.
 */
export function sameCommand(shown: string, waiting: string, cutAt: number): boolean {
  const squash = (s: string) => s.replace(UNPRINTABLE, '').replace(/\s+/g, '');
  const a = squash(shown);
  const b = squash(waiting);
  if (b.length === 0) return false;
  return waiting.length >= cutAt ? a.startsWith(b) : a === b;
}
