/**
 * The panels of another machine's session (`--host`), drawn from what was fetched over ssh
 * (`remote-detail.ts`): the Tools panel from its report (calls by tool, the failures grouped, the
 * slowest calls; the call-by-call list is that machine's), and, while a part is on its way or could
 * not be fetched, a line saying so. The Context and Chat panels draw a fetched report and
 * conversation with the code that draws a local one (`panels.ts`).
 *
 * Every name and detail came from another machine: each is made safe to print (`safeLine`).
 */
import type { SessionReport } from '../../report/types.js';
import type { Paint } from '../cli/color.js';
import { clip, duration, padEnd, padStart, UNKNOWN } from '../cli/format.js';
import { safeLine } from '../terminal-text.js';
import type { Detail, Fetching } from './state.js';

/** The remote detail (`Detail` of kind `remote`). */
export type RemoteDetail = Extract<Detail, { kind: 'remote' }>;

/** Rows of each table the Tools panel shows of a remote report. */
const ROWS_SHOWN = 8;

/** A part not fetched yet, or that could not be: one line saying which; null once it is read. */
export function fetchState<T>(d: RemoteDetail, part: Fetching<T>, p: Paint): string[] | null {
  switch (part.kind) {
    case 'unasked':
    case 'fetching':
      return [p.dim(`  fetching from ${safeLine(d.host)}…`)];
    case 'failed':
      return [p.red(`  ${safeLine(part.error)}`)];
    case 'read':
      return null;
  }
}

/** The fetched report of a remote detail, or null while it is not there. */
export const remoteReport = (d: Detail | null): SessionReport | null =>
  d?.kind === 'remote' && d.report.kind === 'read' ? d.report.value : null;

/** The Tools panel of a remote session: calls by tool, the failures and the slowest, from its report. */
export function remoteToolsPanel(d: RemoteDetail, p: Paint, columns: number): string[] {
  const waiting = fetchState(d, d.report, p);
  if (waiting !== null || d.report.kind !== 'read') return waiting ?? [];
  const t = d.report.value.tools;
  const failed = t.failed === null ? `${UNKNOWN} failed` : `${t.failed} failed`;
  const out = [
    p.dim(
      `  ${t.calls} calls, ${failed}; fetched from ${safeLine(d.host)}${d.report.refreshing ? ' (refreshing…)' : ''}`,
    ),
  ];
  for (const b of t.byTool.slice(0, ROWS_SHOWN))
    out.push(
      `  ${padEnd(safeLine(b.name), 18)} ${padStart(String(b.calls), 5)}  ${b.failed > 0 ? p.red(`${b.failed} failed`) : ''}`,
    );
  for (const f of t.failures.slice(0, ROWS_SHOWN))
    out.push(`  ${p.red(`✗ ${f.count}×`)} ${safeLine(f.tool)} ${safeLine(f.detail)}`);
  if (t.slowest.length > 0) out.push(p.dim('  slowest'));
  for (const c of t.slowest.slice(0, ROWS_SHOWN))
    out.push(
      `  ${padStart(duration(c.ms).replace(/^0m$/, `${Math.round(c.ms / 1000)}s`), 6)}  ${safeLine(c.tool)} ${safeLine(c.detail)}`,
    );
  return out.map((l) => clip(l, columns));
}
