/**
 * `cctop --list`: every session as a readable table, grouped by harness, newest activity first,
 * that fits the terminal (80 columns when there is none). Every field from a transcript is made safe
 * to print (`../terminal-text.ts`) before it is measured, and every line once more before it is returned.
 */
import { basename } from 'node:path';
import { shortIds } from '../../index/find.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { QuotaFigure } from '../../model/quota.js';
import type { SessionState, StateSource } from '../../model/state.js';
import { PLACE_LIST } from '../../providers/places.js';
import { type Column, type ColumnKey, columnsOf, SESSION_COLUMNS } from '../columns.js';
import { quotaBrief } from '../quota-brief.js';
import { printable, safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import { clip, counted, NO_PRICE, padEnd, padStart, UNKNOWN, usd } from './format.js';

export const STATE_MARK: Record<SessionState, string> = {
  working: '●',
  waiting: '▲',
  error: '✖',
  idle: '·',
};

/** The columns `--list` shows, from the one set every session table picks from (`../columns.ts`). */
const LIST_KEYS: readonly ColumnKey[] = ['id', 'active', 'duration', 'cost', 'tokens', 'ctx', 'model'];

/** The project's folder and the title, the way a row names its session; safe to print. */
export function label(s: SessionDoc): string {
  const project = s.project ? safeLine(basename(s.project)) : null;
  const title = s.title ? safeLine(s.title) : null;
  if (project && title) return `${project} · ${title}`;
  return project ?? title ?? safeLine(s.id);
}

/** Beside the state mark: which source said it (`cctop explain <id>` shows the evidence). */
const SOURCE_MARK: Record<StateSource, string> = { hook: 'h', registry: 'r', driven: 'd', inferred: ' ' };

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

/** The widest host name the HOST column shows; a longer one is cut (`--json` has it whole). */
const HOST_CELLS = 12;

/**
 * The columns of this list: HOST only when some row comes from another machine (`--host`), as wide
 * as its longest name; ID as wide as the short ids.
 */
function shownColumns(doc: SessionDocument, idLength: number): Column[] {
  const names = doc.sessions.flatMap((s) => (s.host === undefined ? [] : [safeLine(s.host)]));
  const host: Column[] =
    names.length === 0
      ? []
      : [
          {
            ...SESSION_COLUMNS.host,
            width: Math.min(HOST_CELLS, Math.max(4, ...names.map((n) => n.length))),
          },
        ];
  return [
    ...host,
    ...columnsOf(LIST_KEYS).map((c) =>
      c.key === 'id' ? { ...c, width: Math.max(c.title.length, idLength) } : c,
    ),
  ];
}

/** The table as lines, for a terminal `columns` wide. */
export function renderList(
  doc: SessionDocument,
  columns: number,
  p: Paint,
  nowMs: number,
  /** The accounts' quota (`cctop quota`), shown in its harness's heading; none when not asked for. */
  quota: readonly QuotaFigure[] = [],
): string[] {
  const out: string[] = [];
  const short = shortIds(doc.sessions);
  const shown = shownColumns(doc, short.length);
  const fixed = 2 + 3 + shown.reduce((n, c) => n + c.width + 1, 0);
  const titleWidth = Math.max(10, columns - fixed);
  const header = `  ${padEnd('', 2)} ${shown.map((c) => (c.align === 'right' ? padStart(c.title, c.width) : padEnd(c.title, c.width))).join(' ')} PROJECT · TITLE`;

  for (const provider of PLACE_LIST) {
    const rows = doc.sessions.filter((s) => s.provider === provider.id);
    if (rows.length === 0) continue;
    const spent = rows.reduce((n, s) => n + (s.cost.usd ?? 0), 0);
    const anyPriced = rows.some((s) => s.cost.usd !== null);
    const allIncluded = rows.every((s) => s.cost.included || s.cost.usd === null);
    const money = anyPriced
      ? allIncluded
        ? `${usd(spent)} included in plan`
        : `${usd(spent)} ${doc.plan === 'retail' ? 'est.' : ''}`.trim()
      : rows.some((s) => s.cost.unpriced.length > 0)
        ? NO_PRICE
        : 'no usage recorded';
    if (out.length > 0) out.push('');
    const brief = quotaBrief(quota, provider.id);
    const heading = `${provider.label} — ${counted(rows.length, 'session')} · ${money}`;
    out.push(p.bold(brief === null ? heading : clip(`${heading} · ${brief}`, columns)));
    out.push(p.dim(header.slice(0, columns)));
    for (const s of rows) {
      const cells = shown.map((c) => {
        const v = c.cell({ s, rate: null, short: short.of(s.id) }, nowMs);
        return c.align === 'right' ? padStart(v, c.width) : padEnd(v, c.width);
      });
      const mark = colourState(p, s.state, STATE_MARK[s.state]) + p.dim(SOURCE_MARK[s.stateSource]);
      out.push(`  ${mark} ${cells.join(' ')} ${padEnd(label(s), titleWidth).trimEnd()}`);
    }
  }
  if (out.length > 0) {
    out.push('');
    const legend = `${STATE_MARK.working} working  ${STATE_MARK.waiting} waiting on you  ${STATE_MARK.error} error  ${STATE_MARK.idle} idle  ${UNKNOWN} unknown  CTX%: of compact point`;
    out.push(p.dim(clip(legend, columns)));
    // Said only where it applies: most machines have no hooks installed, and then every state is inferred.
    if (doc.sessions.some((s) => s.stateSource !== 'inferred'))
      out.push(
        p.dim(
          clip(
            `${SOURCE_MARK.hook}: state said by the agent's hooks  ${SOURCE_MARK.registry}: by its own session list  unmarked: inferred (cctop explain ID)`,
            columns,
          ),
        ),
      );
  }
  return out.map((line) => printable(line, p));
}
