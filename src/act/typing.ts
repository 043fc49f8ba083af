/**
 * What cctop may type into an agent's terminal: a line of text, checked before any key is sent, and
 * each harness's own key for stopping its current turn (and how long `cctop wait` waits by default).
 *
 * Text goes as literal keys (tmux `send-keys -l`), so a word like `Enter` or `C-c` inside it is typed
 * as those letters. Control characters are refused, not stripped: a newline in the middle would
 * submit half a prompt, an escape would drive the agent's screen, and silently dropping them would
 * send something other than what was asked.
 *
 * Not here: finding the terminal (`pane.ts`).
 */
import type { ProviderId } from '../model/facts.js';

/**
 * The longest text `cctop send` types. A prompt a person types is far shorter; anything longer is a
 * document, better written to a file the agent is asked to read. It also keeps one tmux command line
 * small.
 */
export const MAX_SEND_CHARS = 4_000;

/**
 * The pause between the text and its Enter. A TUI that reads the text and the Enter in one burst takes
 * them for a paste and keeps the Enter as part of it (Claude Code 2.1.328 left such a prompt unsent in
 * the lab); a person's Enter comes later than this.
 */
export const ENTER_AFTER_MS = 250;

/** How long `cctop wait` waits when no `--timeout` is given: a long turn, short of forever in a script. */
export const DEFAULT_WAIT_S = 3_600;

export type TextCheck = { kind: 'ok'; text: string } | { kind: 'refused'; why: string };

/** C0 controls (newline, tab, escape…), DEL and the C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `text` may be typed, and why not. */
export function checkText(text: string): TextCheck {
  if (text.length === 0) return { kind: 'refused', why: 'there is no text to send' };
  if (text.length > MAX_SEND_CHARS)
    return {
      kind: 'refused',
      why: `the text is ${text.length} characters; cctop types at most ${MAX_SEND_CHARS} (write it to a file and ask the agent to read it)`,
    };
  const m = CONTROL.exec(text);
  if (m)
    return {
      kind: 'refused',
      why: `the text holds a control character (U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at character ${m.index + 1}); cctop types one line of plain text`,
    };
  return { kind: 'ok', text };
}

/**
 * How many times the stop key is pressed, for a TUI that takes one press as a warning: OpenCode
 * 1.18.33 shows "esc again to interrupt" after the first Escape and stops the turn on the second
 * (checked in the lab). The presses are `ENTER_AFTER_MS` apart, so the TUI reads two keys, not Alt-Escape.
 */
export const INTERRUPT_PRESSES: Partial<Record<ProviderId, number>> = { opencode: 2 };

/**
 * The key each harness's own TUI takes to stop its current turn, as tmux names it; null where cctop
 * does not know one (the editors' agents have no terminal to type into).
 */
export const INTERRUPT_KEY: Record<ProviderId, 'Escape' | 'C-c' | null> = {
  claude: 'Escape',
  codex: 'Escape',
  gemini: 'Escape',
  qwen: 'Escape',
  opencode: 'Escape',
  pi: 'Escape',
  copilot: 'Escape',
  cursor: null,
  windsurf: null,
  devin: null,
  // Read from their files only; none of these has run in the lab, so no key of theirs is known.
  amp: null,
  droid: null,
  codebuff: null,
  hermes: null,
  goose: null,
  kilo: null,
  antigravity: null,
  kimi: null,
  openclaw: null,
  grok: null,
  zcode: null,
};
