/**
 * The live table's `O`: hand the selected session over to another harness. It asks which harness
 * (a digit; Enter takes the default, another harness than the session's own), then shows the
 * `cctop handoff … --run` line and puts it on the clipboard (OSC 52), to paste in a new terminal:
 * run there, it writes a fresh brief and starts the other agent on it in the session's directory.
 *
 * The table writes no brief itself: a brief is the session as it stands when the other agent
 * starts, and the line works wherever it is pasted on this machine.
 */
import {
  defaultTarget,
  HANDOFF_TARGETS,
  type HandoffTarget,
  handoffInvocation,
} from '../../share/targets.js';
import type { Key } from './keys.js';
import { keyOf, type ViewState } from './state.js';

/** What `O` reaches beyond the view: a status message, and a sequence written outside the drawing. */
export interface HandoffContext {
  say(text: string): void;
  signal(sequence: string): void;
}

/** The OSC 52 sequence that puts `text` on the clipboard (the terminal does it, over ssh too). */
export const clipboard = (text: string): string =>
  `\u001b]52;c;${Buffer.from(text).toString('base64')}\u0007`;

/** The question the hint line asks while a handoff waits for its harness. */
export function handoffQuestion(v: ViewState): string | null {
  if (v.handoff === null) return null;
  const choices = HANDOFF_TARGETS.map((t, i) => `${i + 1} ${t}`).join('  ');
  return `Hand off to: ${choices}  Enter: ${v.handoff.target}  any other key: cancel`;
}

/** `O`: ask which harness the selected session goes to. */
export function askHandoff(v: ViewState, c: HandoffContext): void {
  const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
  if (!s) {
    c.say('select a session to hand off');
    return;
  }
  v.handoff = { key: keyOf(s), target: defaultTarget(s.provider) };
}

/** While a handoff asks for its harness: a digit or Enter picks, any other key drops it. */
export function handoffKey(v: ViewState, k: Key, c: HandoffContext): void {
  const asked = v.handoff;
  v.handoff = null;
  if (asked === null) return;
  let target: HandoffTarget | undefined;
  if (k.kind === 'enter') target = asked.target;
  else if (k.kind === 'char' && /^[1-9]$/.test(k.ch)) target = HANDOFF_TARGETS[Number(k.ch) - 1];
  if (target === undefined) {
    c.say('not handed off');
    return;
  }
  const s = v.doc?.sessions.find((x) => keyOf(x) === asked.key);
  const line = s ? handoffInvocation(s, target) : null;
  if (line === null) {
    c.say('no handoff command for this session');
    return;
  }
  c.signal(clipboard(line));
  c.say(`copied: ${line}`);
}
