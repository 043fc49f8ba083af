/**
 * `cctop --list`: every session as a readable table, grouped by harness, newest activity first,
 * that fits the terminal (80 columns when there is none). Every field from a transcript is made safe
 * to print (`../terminal-text.ts`) before it is measured, and every line once more before it is returned.
 */
import { basename } from 'node:path';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { SessionState, StateSource } from '../../model/state.js';
import { totalTokens } from '../../model/usage.js';
import { PLACE_LIST } from '../../providers/places.js';
import { printable, safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import {
  ago,
  clip,
  duration,
  padEnd,
  padStart,
  percent,
  shortModel,
  tokens,
  UNKNOWN,
  usd,
} from './format.js';

export const STATE_MARK: Record<SessionState, string> = {
  working: '●',
  waiting: '▲',
  error: '✖',
  idle: '·',
};

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  cell(s: SessionDoc, nowMs: number): string;
}

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

const COLUMNS: Column[] = [
  { title: 'LAST', width: 4, align: 'right', cell: (s, now) => ago(ms(s.lastActiveAt), now) },
  {
    title: 'DUR',
    width: 5,
    align: 'right',
    cell: (s) => {
      const a = ms(s.startedAt);
      const b = ms(s.lastActiveAt);
      return a === null || b === null ? UNKNOWN : duration(b - a);
    },
  },
  { title: 'COST', width: 7, align: 'right', cell: (s) => usd(s.cost.usd, s.cost.included) },
  { title: 'TOKENS', width: 6, align: 'right', cell: (s) => tokens(totalTokens(s.tokens)) },
  { title: 'CTX', width: 4, align: 'right', cell: (s) => percent(s.context.used, s.context.compactAt) },
  { title: 'MODEL', width: 13, align: 'left', cell: (s) => shortModel(s.model) },
];

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
 * The HOST column, only when some row comes from another machine (`--host`): the machine's name,
 * blank for this one.
 */
function hostColumn(doc: SessionDocument): Column[] {
  const names = doc.sessions.flatMap((s) => (s.host === undefined ? [] : [safeLine(s.host)]));
  if (names.length === 0) return [];
  const w = Math.min(HOST_CELLS, Math.max(4, ...names.map((n) => n.length)));
  return [
    { title: 'HOST', width: w, align: 'left', cell: (s) => (s.host === undefined ? '' : safeLine(s.host)) },
  ];
}

/** The table as lines, for a terminal `columns` wide. */
export function renderList(doc: SessionDocument, columns: number, p: Paint, nowMs: number): string[] {
  const out: string[] = [];
  const shown = [...hostColumn(doc), ...COLUMNS];
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
      : 'no price';
    if (out.length > 0) out.push('');
    out.push(p.bold(`${provider.label} — ${rows.length} session${rows.length === 1 ? '' : 's'} · ${money}`));
    out.push(p.dim(header.slice(0, columns)));
    for (const s of rows) {
      const cells = shown.map((c) => {
        const v = c.cell(s, nowMs);
        return c.align === 'right' ? padStart(v, c.width) : padEnd(v, c.width);
      });
      const mark = colourState(p, s.state, STATE_MARK[s.state]) + p.dim(SOURCE_MARK[s.stateSource]);
      // An agent `cctop run` holds says so before its title (`cctop attach` takes it back).
      const held = s.process?.cctopRun ? '[cctop run] ' : '';
      out.push(`  ${mark} ${cells.join(' ')} ${padEnd(held + label(s), titleWidth).trimEnd()}`);
    }
  }
  if (out.length > 0) {
    out.push('');
    const legend = `${STATE_MARK.working} working  ${STATE_MARK.waiting} waiting on you  ${STATE_MARK.error} error  ${STATE_MARK.idle} idle  ${UNKNOWN} unknown  CTX: % of compact point`;
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
