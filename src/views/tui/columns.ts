/**
 * The columns of the live table: which of the session columns (`../columns.ts`) it shows, and which
 * go first when the terminal narrows: a column no row has anything in, then from the right (the
 * project/title column stays and takes what is left).
 */
import type { SessionDoc } from '../../model/document.js';
import { UNKNOWN, width } from '../cli/format.js';
import { label } from '../cli/list.js';
import { type Column, type ColumnKey, columnsOf, type Row } from '../columns.js';

export { type Column, failureRate, permission, type Row } from '../columns.js';

/** The live table's columns, in display order (from `../columns.ts`, where every column is declared). */
const LIVE_KEYS: readonly ColumnKey[] = [
  // Shown only while some row is another machine's (`--host`).
  'host',
  'active',
  'duration',
  'cost',
  'cost_hour',
  'cost_today',
  'ctx',
  'cpu',
  'mem',
  'tools',
  'errors',
  'tokens',
  'tok_rate',
  'model',
  'harness',
  'perm',
  'branch',
];

/** Every column but the status mark and the project/title, in display order. */
export const COLUMNS: Column[] = columnsOf(LIVE_KEYS);

/** The project/title cell: the project's folder, then the title, as `cctop --list` names a session. */
export const projectTitle = (s: SessionDoc): string => label(s);

/** The narrowest the project/title column gets before other columns are dropped. */
export const MIN_TITLE = 16;

/**
 * How wide the project/title column would be, were there room: enough for a project's name and the
 * start of its title (`billing · The invoice parser rejects…`), which is what tells rows apart.
 */
export const TITLE_WANT = 40;

/**
 * What the rows say about the columns: the widest title, and the columns in which no row shows
 * anything (CPU% where no process is seen). Kept per rows array (`rowsOf` keeps one per change of the
 * document), so a redraw with nothing new does not look at every session again. Whether a cell is
 * unknown does not move with the clock, so the first redraw's moment answers for the others.
 */
const seen = new WeakMap<readonly Row[], { titles: number; empty: ReadonlySet<string> }>();

function rowsSay(rows: readonly Row[], now: number): { titles: number; empty: ReadonlySet<string> } {
  const known = seen.get(rows);
  if (known) return known;
  const empty = new Set(
    rows.length === 0
      ? []
      : COLUMNS.filter((c) => rows.every((r) => c.cell(r, now) === UNKNOWN)).map((c) => c.key),
  );
  const titles = rows.reduce((n, r) => Math.max(n, width(projectTitle(r.s))), 0);
  const said = { titles, empty };
  seen.set(rows, said);
  return said;
}

/**
 * Columns that fit `columns` cells, minus the ones the user hid. When they do not all fit beside the
 * title at the width it wants, the columns no row has anything in go first, then columns from the
 * right until the title has `MIN_TITLE`.
 */
export function visibleColumns(
  columns: number,
  hidden: ReadonlySet<string>,
  rows: readonly Row[] = [],
  now = 0,
): Column[] {
  let wanted = COLUMNS.filter((c) => !hidden.has(c.key));
  const { titles, empty } = rowsSay(rows, now);
  // Two for the status mark, then each column and its separator, then the title.
  const all = wanted.reduce((n, c) => n + c.width + 1, 0);
  if (2 + all + Math.min(TITLE_WANT, Math.max(MIN_TITLE, titles)) > columns)
    wanted = wanted.filter((c) => !empty.has(c.key));
  const budget = columns - 2 - MIN_TITLE;
  const out: Column[] = [];
  let used = 0;
  for (const c of wanted) {
    if (used + c.width + 1 > budget) break;
    out.push(c);
    used += c.width + 1;
  }
  return out;
}

export function hiddenFromEnv(value: string | undefined): Set<string> {
  return new Set(
    (value ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}
