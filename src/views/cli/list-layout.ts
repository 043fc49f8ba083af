/**
 * How `cctop --list` lays its table out for a terminal width, from rows whose cells are already
 * printed but for what moves: each row's state mark and its LAST cell (an age, read at `nowMs`).
 * Apart from `list.ts` so that the warm answer (`../../warm-answer.ts`), which keeps the rest of
 * every row printed in the warm document, lays the table out with this same code and loads nothing
 * heavier than the cell helpers: no provider, no column table, no document.
 *
 * Not here: what a row's cells say (`list.ts`, `../columns.ts`), or making fields safe (done before a
 * cell reaches a plan; `printable` is the last step here as in every view).
 */
import type { SessionState, StateSource } from '../../model/state.js';
import { ago } from '../format.js';
import { printable } from '../terminal-text.js';
import type { Paint } from './color.js';
import { clip, padEnd, padStart, UNKNOWN, width } from './format.js';

export const STATE_MARK: Record<SessionState, string> = {
  working: '●',
  waiting: '▲',
  error: '✖',
  idle: '·',
};

/** Beside the state mark: which source said it (`cctop explain <id>` shows the evidence). */
export const SOURCE_MARK: Record<StateSource, string> = {
  hook: 'h',
  registry: 'r',
  driven: 'd',
  inferred: ' ',
};

function colourState(p: Paint, state: SessionState, text: string): string {
  switch (state) {
    case 'working':
      return p.green(text);
    case 'waiting':
      return p.amber(text);
    case 'error':
      return p.red(text);
    case 'idle':
      return p.dim(text);
  }
}

/** A row with its cells printed, but for its state and its LAST cell. */
export interface PlannedRow {
  state: SessionState;
  stateSource: StateSource;
  /** Every column's cell, padded to its width; the LAST column's (`ListPlan.active`) is left empty. */
  cells: string[];
  /** When it was last active (UTC ms), what its LAST cell is read from; null when unknown. */
  activeMs: number | null;
  /** The PROJECT · TITLE cell, safe to print, not yet fitted to the width. */
  label: string;
  /**
   * The cells `label` takes, and it as a width it fits in shows it, trailing blanks cut (null: as
   * `label`): measured once, so laying out a wide table clips only the titles that do not fit.
   */
  fit: [cells: number, shown: string | null];
}

/** `row.label` as `padEnd(label, cells).trimEnd()` gives it, measured once when it fits. */
export function fitted(row: Pick<PlannedRow, 'label' | 'fit'>, cells: number): string {
  const [w, shown] = row.fit;
  return w <= cells ? (shown ?? row.label) : padEnd(row.label, cells).trimEnd();
}

/** `fit` for a label: what `fitted` needs to skip the measuring. */
export function fitOf(label: string): PlannedRow['fit'] {
  const shown = clip(label, Number.MAX_SAFE_INTEGER).trimEnd();
  return [width(label), shown === label ? null : shown];
}

/** A harness's group: its heading and its rows, in the document's order. */
export interface PlannedGroup {
  heading: string;
  /** Its quota in a few words (`../quota-brief.ts`), or null when nothing says any. */
  brief: string | null;
  rows: PlannedRow[];
}

/** The table but for the width and what moves: plain data, so the warm document can keep it. */
export interface ListPlan {
  /** The column titles line, not yet cut to the width. */
  header: string;
  /** Cells every row takes before its title: the marks, the columns and their gaps. */
  fixed: number;
  /** Where the LAST column is among the cells (-1: not shown), its width, and whether it aligns right. */
  active: [index: number, width: number, right: boolean];
  groups: PlannedGroup[];
}

/** The table as lines for a terminal `columns` wide, with the ages read at `nowMs`. */
export function layoutList(plan: ListPlan, columns: number, p: Paint, nowMs: number): string[] {
  const out: string[] = [];
  const titleWidth = Math.max(10, columns - plan.fixed);
  const rows = plan.groups.flatMap((g) => g.rows);
  for (const g of plan.groups) {
    if (g.rows.length === 0) continue;
    out.push(...groupHead(plan, g, out.length === 0, columns, p));
    for (const s of g.rows) out.push(rowLine(plan, s, titleWidth, p, nowMs));
  }
  if (out.length > 0) out.push(...legend(rows, columns, p));
  return out.map((line) => printable(line, p));
}

/** The lines a group opens with (a blank line between groups, its heading, the column titles), not yet `printable`. */
export function groupHead(
  plan: ListPlan,
  g: PlannedGroup,
  first: boolean,
  columns: number,
  p: Paint,
): string[] {
  const head = [
    p.bold(g.brief === null ? g.heading : clip(`${g.heading} · ${g.brief}`, columns)),
    p.dim(plan.header.slice(0, columns)),
  ];
  return first ? head : ['', ...head];
}

/** A row's mark: its state, coloured, and which source said it. */
export const markOf = (p: Paint, state: SessionState, source: StateSource): string =>
  colourState(p, state, STATE_MARK[state]) + p.dim(SOURCE_MARK[source]);

/** A row's LAST cell: its age at `nowMs`, padded to the column. */
export const ageCell = (plan: ListPlan, activeMs: number | null, nowMs: number): string =>
  padAge(plan, ago(activeMs, nowMs));

/** An age (`ago`) as the LAST column shows it: padded to its width. */
export function padAge(plan: ListPlan, age: string): string {
  const [, activeWidth, right] = plan.active;
  return right ? padStart(age, activeWidth) : padEnd(age, activeWidth);
}

/** A row as a line, its title fitted to `titleWidth`, not yet `printable`. */
export function rowLine(plan: ListPlan, s: PlannedRow, titleWidth: number, p: Paint, nowMs: number): string {
  const activeAt = plan.active[0];
  const texts = s.cells.slice();
  if (activeAt >= 0) texts[activeAt] = ageCell(plan, s.activeMs, nowMs);
  return `  ${markOf(p, s.state, s.stateSource)} ${texts.join(' ')} ${fitted(s, titleWidth)}`;
}

/** The lines under the table: what the marks mean, and which sources said a state where any did. */
export function legend(
  rows: readonly Pick<PlannedRow, 'stateSource'>[],
  columns: number,
  p: Paint,
): string[] {
  const out = [''];
  const legend = `${STATE_MARK.working} working  ${STATE_MARK.waiting} waiting on you  ${STATE_MARK.error} error  ${STATE_MARK.idle} idle  ${UNKNOWN} unknown  CTX%: of compact point`;
  out.push(p.dim(clip(legend, columns)));
  // Said only where it applies: most machines have no hooks installed, and then every state is inferred.
  const driven = rows.some((s) => s.stateSource === 'driven') ? `${SOURCE_MARK.driven}: by its driver  ` : '';
  if (rows.some((s) => s.stateSource !== 'inferred'))
    out.push(
      p.dim(
        clip(
          `${SOURCE_MARK.hook}: state said by the agent's hooks  ${SOURCE_MARK.registry}: by its own session list  ${driven}unmarked: inferred (cctop explain ID)`,
          columns,
        ),
      ),
    );
  return out;
}
