/**
 * What each key does to the live table: moving the selection, switching panels, filtering,
 * sorting, and the few keys that act outside the view (quit, copy, redraw).
 *
 * It changes the view state and calls the app back for anything else; decoding bytes into keys
 * is `keys.ts`'s job, and drawing the result is the view's.
 */
import type { AnswerResult } from '../../live/driven.js';
import type { Row } from './columns.js';
import { askHandoff, clipboard, handoffKey } from './handoff-key.js';
import { askHeld, type HeldContext, heldKey } from './held-key.js';
import type { Key } from './keys.js';
import { resumeCommand } from './panels.js';
import { keyOf, PANELS, SORTS, type ViewState } from './state.js';
import { askTerminal, type TerminalContext, terminalKey } from './terminal-key.js';

/** What a key may reach beyond the view state, read when the key arrives. */
export interface KeyContext {
  /** The rows as last drawn, for moves and clicks. */
  tableRows(): readonly Row[];
  /** The screen line the first row was drawn on. */
  tableStart(): number;
  /** The screen's height, for paging. */
  screenRows(): number;
  quit(): void;
  /** A status message, shown for a while. */
  say(text: string): void;
  /** Forget what the screen shows, so the next draw repaints every line. */
  repaint(): void;
  /** Write a terminal sequence (OSC 52 for the clipboard) outside the drawing. */
  signal(sequence: string): void;
  /** Send an answer to a driven run's approval; null where this table hears of no runs (the demo). */
  answer: ((run: string, request: string, behavior: 'allow' | 'deny') => AnswerResult) | null;
  /** Requests held by agents' deciding hooks (docs/act.md); null where none can be (the demo). */
  held?: HeldContext | null;
  /** Type into or stop a session's terminal (`terminal-key.ts`); absent or null where the table acts on nothing. */
  act?: TerminalContext['act'];
}

/** How far the panel scrolls per key. */
const PANEL_SCROLL_STEP = 3;
/**
 * A page key moves by the screen's height less this, a rough allowance for the lines that are not
 * table rows. known limit: not worked out from the layout, which gives the panel a share of a tall screen.
 */
const PAGE_MARGIN = 10;
/** A move longer than any table: to the first or the last row. */
const FAR = 1e9;

function moveBy(v: ViewState, c: KeyContext, n: number): void {
  const rows = c.tableRows();
  const i = rows.findIndex((r) => keyOf(r.s) === v.selected);
  const next = Math.max(0, Math.min(rows.length - 1, Math.max(i, 0) + n));
  const r = rows[next];
  if (r) v.selected = keyOf(r.s);
  v.follow = false;
  v.panelScroll = 0;
}

/** Apply one key to the view. */
export function onKey(v: ViewState, k: Key, c: KeyContext): void {
  if (v.confirm !== null) {
    confirmKey(v, k, c);
    return;
  }
  if (v.handoff !== null) {
    handoffKey(v, k, c);
    return;
  }
  if (v.heldAsk !== null && c.held) {
    heldKey(v, k, c.held);
    return;
  }
  if (v.terminal !== null) {
    terminalKey(v, k, c);
    return;
  }
  if (v.filtering) {
    filterKey(v, k, c);
    return;
  }
  if (v.help && k.kind !== 'ctrl-c') {
    v.help = false;
    return;
  }
  if (k.kind === 'char') charKey(v, k.ch, c);
  else namedKey(v, k, c);
}

/** While a filter is typed, keys edit it. */
function filterKey(v: ViewState, k: Key, c: KeyContext): void {
  if (k.kind === 'char') v.filter += k.ch;
  else if (k.kind === 'backspace') v.filter = v.filter.slice(0, -1);
  else if (k.kind === 'enter') v.filtering = false;
  else if (k.kind === 'escape') {
    v.filter = '';
    v.filtering = false;
  } else if (k.kind === 'ctrl-c') c.quit();
}

/** The keys that are not characters. A table: one case per key. */
function namedKey(v: ViewState, k: Exclude<Key, { kind: 'char' }>, c: KeyContext): void {
  const page = Math.max(1, c.screenRows() - PAGE_MARGIN);
  switch (k.kind) {
    case 'ctrl-c':
      c.quit();
      return;
    case 'up':
      moveBy(v, c, -1);
      return;
    case 'down':
      moveBy(v, c, 1);
      return;
    case 'pageup':
      moveBy(v, c, -page);
      return;
    case 'pagedown':
      moveBy(v, c, page);
      return;
    case 'home':
      moveBy(v, c, -FAR);
      return;
    case 'end':
      moveBy(v, c, FAR);
      return;
    case 'left':
    case 'right':
    case 'tab': {
      const i = PANELS.indexOf(v.panel);
      v.panel = PANELS[(i + (k.kind === 'left' ? PANELS.length - 1 : 1)) % PANELS.length]!;
      v.panelScroll = 0;
      return;
    }
    case 'wheel':
      moveBy(v, c, k.up ? -1 : 1);
      return;
    case 'click':
      click(v, k.y, c);
      return;
    case 'escape':
      if (v.filter) v.filter = '';
      return;
    case 'ctrl-l':
      c.repaint();
      return;
    case 'enter':
    case 'backspace':
      return;
  }
}

/** A click on a row selects it; anywhere else does nothing. */
function click(v: ViewState, y: number, c: KeyContext): void {
  const start = c.tableStart();
  const r = y >= start ? c.tableRows()[v.top + (y - start)] : undefined;
  if (r) {
    v.selected = keyOf(r.s);
    v.follow = false;
  }
}

/** The letter keys. A table: one case per key. */
function charKey(v: ViewState, ch: string, c: KeyContext): void {
  switch (ch) {
    case 'q':
      c.quit();
      return;
    case 'k':
      moveBy(v, c, -1);
      return;
    case 'j':
      moveBy(v, c, 1);
      return;
    case 'g':
      moveBy(v, c, -FAR);
      return;
    case 'G':
      moveBy(v, c, FAR);
      return;
    case 'h':
      namedKey(v, { kind: 'left' }, c);
      return;
    case 'l':
      namedKey(v, { kind: 'right' }, c);
      return;
    case 'J':
      v.panelScroll += PANEL_SCROLL_STEP;
      return;
    case 'K':
      v.panelScroll = Math.max(0, v.panelScroll - PANEL_SCROLL_STEP);
      return;
    case '/':
      v.filtering = true;
      v.follow = false;
      return;
    case 's':
      askTerminal(v, c, 'send');
      return;
    case 'x':
      askTerminal(v, c, 'stop');
      return;
    case 'o':
      v.sort = SORTS[(SORTS.indexOf(v.sort) + 1) % SORTS.length]!;
      c.say(`sorted by ${v.sort}`);
      return;
    case 'r':
      v.reverse = !v.reverse;
      return;
    case 'f':
      v.follow = !v.follow;
      c.say(v.follow ? 'following the newest activity' : 'not following');
      return;
    case 'w':
      v.notify = !v.notify;
      c.say(`notifications ${v.notify ? 'on' : 'off'}`);
      return;
    case '?':
      v.help = true;
      return;
    case 'y':
      if (onThisMachine(v, c)) copyResume(v, c);
      return;
    case 'O':
      if (onThisMachine(v, c)) askHandoff(v, c);
      return;
    case 'c':
      v.panel = 'collisions';
      v.panelScroll = 0;
      return;
    case 'a':
      askAnswer(v, c, 'allow');
      return;
    case 'd':
      askAnswer(v, c, 'deny');
      return;
    default:
      return;
  }
}

/**
 * `a` or `d` on a driven session that waits: show the tool and its input and ask for `y` first.
 * An approval runs a command on someone's machine; one key press by mistake must not do that.
 */
function askAnswer(v: ViewState, c: KeyContext, behavior: 'allow' | 'deny'): void {
  const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
  const d = s?.driven;
  const asked = d?.pending[0];
  // Not a driven run: its agent's deciding hook may hold a request (docs/act.md).
  if (d === undefined && s?.host === undefined && c.held && askHeld(v, s, behavior, c.held)) {
    v.panel = 'info';
    return;
  }
  if (c.answer === null || d === undefined) {
    c.say(
      'a/d answer a permission request held for cctop (cctop hooks install --approvals) or a driven run’s approval; this session has none',
    );
    return;
  }
  if (asked === undefined) {
    c.say(`${d.program}'s run waits on no approval`);
    return;
  }
  if (!d.remote) {
    c.say(`${d.program} answers its own approvals (it did not ask for approvals: 'remote')`);
    return;
  }
  v.confirm = { run: d.id, request: asked.id, behavior, tool: asked.tool, input: asked.input };
  v.panel = 'info';
}

/** While an answer waits for confirmation: `y` sends it, any other key drops it. */
function confirmKey(v: ViewState, k: Key, c: KeyContext): void {
  const confirm = v.confirm;
  v.confirm = null;
  if (confirm === null || c.answer === null) return;
  if (k.kind !== 'char' || k.ch !== 'y') {
    c.say('not answered');
    return;
  }
  const r = c.answer(confirm.run, confirm.request, confirm.behavior);
  c.say(
    r.kind === 'sent'
      ? `${confirm.behavior === 'allow' ? 'allowed' : 'denied'}: ${confirm.tool}`
      : `not sent: ${r.why}`,
  );
}

/** Put the selected session's resume command on the clipboard. */
/** Another machine's row (`--host`) is shown, never acted on: `y` and `O` say where to act instead. */
function onThisMachine(v: ViewState, c: KeyContext): boolean {
  const host = v.doc?.sessions.find((x) => keyOf(x) === v.selected)?.host;
  if (host === undefined) return true;
  c.say(`this session runs on ${host}: resume or hand it off there (ssh ${host})`);
  return false;
}

function copyResume(v: ViewState, c: KeyContext): void {
  const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
  const cmd = s ? resumeCommand(s) : null;
  if (cmd) {
    c.signal(clipboard(cmd));
    c.say(`copied: ${cmd}`);
  } else c.say('no resume command for this session');
}
