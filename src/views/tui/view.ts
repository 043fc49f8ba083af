/**
 * What the live table shows, as lines: a function of the view state and the terminal size, so it
 * can be tested without a terminal and redrawn as often as anything changes. The one thing it
 * changes in the state is the selection, which it settles against the rows it is about to draw.
 *
 * Every word from a transcript, a process table or the keyboard is made safe to print where it is
 * placed (`safeLine`), and every finished line once more (`printable`) in `render`, the one way out.
 */
import type { Paint } from '../cli/color.js';
import { clip } from '../cli/format.js';
import { printable, safeLine } from '../terminal-text.js';
import { failureRate, type Row } from './columns.js';
import { handoffQuestion } from './handoff-key.js';
import { heldQuestion } from './held-key.js';
import { hostsLine } from './hosts-line.js';
import { overview } from './overview.js';
import { panelLines } from './panels.js';
import { rowsOf, table } from './rows.js';
import { keyOf, PANELS, type Panel, type ViewState } from './state.js';
import { terminalQuestion } from './terminal-key.js';

// The view's public face: the app and the tests read the state's shape and helpers from here.
export { overview } from './overview.js';
export { panelLines, resumeCommand } from './panels.js';
export { rowsOf } from './rows.js';
export {
  type Detail,
  initialView,
  keyOf,
  PANELS,
  type Panel,
  RANG_MARK_MS,
  SORTS,
  type Sort,
  type ViewState,
} from './state.js';

const PANEL_TITLE: Record<Panel, string> = {
  info: 'Info',
  tools: 'Tool activity',
  context: 'Context',
  cost: 'Cost',
  chat: 'Conversation',
  collisions: 'Collisions',
};

export const HELP = [
  'cctop: keys',
  '',
  '  ↑ ↓  j k      move            PgUp PgDn     page        g G  Home End   first, last',
  '  ← →  Tab      panel           J K           scroll the panel',
  '  /             filter on anything a row shows (Enter keeps it, Esc clears it)',
  '  o             sort: last, cost, tokens, context, cpu, duration     r   reverse',
  "  s             type a line into the session's terminal (tmux)      x   stop its turn, after y",
  '  f             follow the newest activity',
  '  y             copy the resume command',
  '  O             hand the session to another harness: copy its cctop handoff command',
  '  c             collisions: running sessions that wrote the same file (!) or repository (~) lately',
  '  a d           allow (after y) or deny (a reason optional, Enter) the request a session waits on:',
  '                held by cctop hooks install --approvals, or a driven run’s (⇄)',
  '  w             notifications on or off (bell and desktop notice: a session waits on you, a budget',
  '                reaches 80% or 100%, a session stalls, spends fast or repeats a failing call)',
  '  click         select a row         ?  this help         q  quit',
  '',
  '  ● working  ▲ waiting on you  ? probably waiting (a call pending, file and process quiet)',
  '  ✖ error  • idle   hollow: no process runs it   ◉ rang in the last 30 s',
  '  after the mark:  ! wrote a file another running session wrote   ~ wrote in its repository',
  '  CTX% = context used / the point where the agent compacts;  ─ = not recorded',
];

/** Lines for the whole screen. */
export function render(
  v: ViewState,
  p: Paint,
  columns: number,
  rows: number,
  now: number,
): { lines: string[]; top: number; tableRows: Row[]; tableStart: number } {
  // The way out for every line: no line may wrap, whatever a panel produced, and nothing but
  // cctop's own colours reaches the terminal.
  const finished = (lines: string[]) => lines.map((l) => printable(clip(l, columns), p));
  const out: string[] = [overview(v, p, columns)];
  if (v.help)
    return {
      lines: finished([...out, '', ...HELP]),
      top: v.top,
      tableRows: [],
      tableStart: 2,
    };
  const all = rowsOf(v);
  // Following keeps the top row selected; a selection the filter hid moves to the first row shown.
  if (all.length > 0 && ((v.follow && !v.filtering) || !all.some((r) => keyOf(r.s) === v.selected)))
    v.selected = keyOf(all[0]!.s);
  const panelHeight = rows >= 20 ? Math.min(14, Math.floor(rows * 0.4)) : 0;
  // Other machines that stopped answering get a line under the table (`--host`).
  const quietHosts = hostsLine(v, p, now);
  const tableHeight = Math.max(
    2,
    rows - 1 - 1 - (panelHeight > 0 ? panelHeight + 1 : 0) - (quietHosts ? 1 : 0),
  );
  // Until the first refresh lands (a first build fills the table meanwhile), and while a big one reads.
  if (v.loading) out.push(p.dim(`  ${v.loading}`));
  const t = table(v, all, p, columns, tableHeight, now);
  out.push(...t.lines);
  while (out.length < 1 + tableHeight) out.push('');
  if (quietHosts) out.push(quietHosts);
  const selected = all.find((r) => keyOf(r.s) === v.selected)?.s ?? null;
  if (panelHeight > 0) {
    const tabs = PANELS.map((id) =>
      id === v.panel ? p.bold(`[${PANEL_TITLE[id]}]`) : p.dim(` ${PANEL_TITLE[id]} `),
    ).join(' ');
    out.push(clip(`─ ${tabs} ${'─'.repeat(columns)}`, columns));
    const body = selected ? panelLines(v, selected, p, columns, now) : [p.dim('  select a session')];
    const scroll = Math.max(0, Math.min(v.panelScroll, Math.max(0, body.length - panelHeight)));
    const shown = body.slice(scroll, scroll + panelHeight);
    out.push(...shown);
    while (out.length < rows - 1) out.push('');
  }
  const handoff = handoffQuestion(v) ?? heldQuestion(v);
  const asked = terminalQuestion(v);
  const hint = handoff
    ? p.amber(handoff)
    : asked
      ? p.amber(asked)
      : v.confirm
        ? p.amber(
            `${v.confirm.behavior === 'allow' ? 'Allow' : 'Deny'} ${safeLine(v.confirm.tool)}: ${safeLine(v.confirm.input)}?  y: ${v.confirm.behavior}  any other key: cancel`,
          )
        : v.filtering
          ? `/${safeLine(v.filter)}█  ${p.dim('Enter keep  Esc clear')}`
          : ((v.status === null ? null : safeLine(v.status)) ??
            p.dim(
              `q quit  / filter  ←→ panels  o sort (${v.sort}${v.reverse ? ' ↑' : ''})  f follow${v.follow ? ' on' : ''}  y copy resume  O hand off  w notify ${v.notify ? 'on' : 'off'}${v.collisions.length > 0 ? '  c collisions' : ''}  ? help${v.filter ? `  filter: ${safeLine(v.filter)}` : ''}`,
            ));
  out.length = Math.min(out.length, rows - 1);
  while (out.length < rows - 1) out.push('');
  out.push(hint);
  return { lines: finished(out), top: t.top, tableRows: all, tableStart: 2 };
}

export { failureRate };
