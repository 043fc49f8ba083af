/**
 * The live table's `s` and `x`: type a line into the selected session's terminal, or stop its
 * current turn. `s` opens a line to type (Enter sends it, Esc drops it); `x` asks first, since a
 * stopped turn cannot be taken back. Both go through `act/session-pane.ts`, so the table refuses
 * exactly what `cctop send` and `cctop stop` refuse, and says why on the status line.
 *
 * Not here: proving the pane or typing (`act/`); the app does the acting when asked.
 */
import { checkText, MAX_SEND_CHARS } from '../../act/typing.js';
import { safeLine } from '../terminal-text.js';
import type { Key } from './keys.js';
import { keyOf, type ViewState } from './state.js';

/** What the table asks of its session's terminal. */
export type TerminalAct = { act: 'send'; text: string } | { act: 'stop' };

/** What `s` and `x` reach beyond the view: a status message, and the acting itself (null in the demo). */
export interface TerminalContext {
  say(text: string): void;
  act?: ((key: string, what: TerminalAct) => void) | null;
}

/** `s` or `x` on the selected row: open the line to type, or the question. */
export function askTerminal(v: ViewState, c: TerminalContext, act: TerminalAct['act']): void {
  const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
  if (!s) {
    c.say('select a session first');
    return;
  }
  if (!c.act) {
    c.say('this table does not act on sessions (the demo)');
    return;
  }
  if (s.host !== undefined) {
    c.say(`this session runs on ${s.host}: act on it there (ssh ${s.host})`);
    return;
  }
  v.terminal = act === 'send' ? { key: keyOf(s), act: 'send', text: '' } : { key: keyOf(s), act: 'stop' };
}

/** The hint line while `s` or `x` waits. */
export function terminalQuestion(v: ViewState): string | null {
  const t = v.terminal;
  if (t === null) return null;
  const id = t.key.split('\u0000').at(-1)?.slice(0, 12) ?? '';
  if (t.act === 'stop') return `Stop the current turn of ${safeLine(id)}?  y: stop  any other key: cancel`;
  return `Send to ${safeLine(id)}: ${safeLine(t.text)}█  Enter: send  Esc: cancel`;
}

/** Keys while `s` or `x` waits. */
export function terminalKey(v: ViewState, k: Key, c: TerminalContext): void {
  const t = v.terminal;
  if (t === null) return;
  if (t.act === 'stop') {
    v.terminal = null;
    if (k.kind === 'char' && k.ch === 'y') c.act?.(t.key, { act: 'stop' });
    else c.say('not stopped');
    return;
  }
  switch (k.kind) {
    case 'char':
      // Pasted text arrives as characters too; a line past the bound stops growing.
      if (t.text.length + k.ch.length <= MAX_SEND_CHARS) t.text += k.ch;
      return;
    case 'backspace':
      t.text = t.text.slice(0, -1);
      return;
    case 'enter': {
      v.terminal = null;
      const check = checkText(t.text);
      if (check.kind === 'refused') c.say(`not sent: ${check.why}`);
      else c.act?.(t.key, { act: 'send', text: check.text });
      return;
    }
    case 'escape':
    case 'ctrl-c':
      v.terminal = null;
      c.say('not sent');
      return;
    default:
      return;
  }
}
