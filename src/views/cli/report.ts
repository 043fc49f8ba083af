/**
 * `cctop report <session>`: one session in depth, in a terminal: what it cost and when, how its
 * context filled, which calls failed (grouped, so a retry loop is one row), the slowest calls, the
 * calls that grew the context most, the files it touched and the subagents it ran.
 *
 * Every name, path and id in a report comes from the transcript: each is made safe to print
 * (`safeLine`) where it is placed, and every line once more (`printable`) before it is returned.
 */

import { totalTokens } from '../../model/usage.js';
import type { SessionReport } from '../../report/types.js';
import { printable, safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import { clip, duration, padEnd, padStart, percent, shortModel, tokens, UNKNOWN, usd } from './format.js';

const SPARK = '▁▂▃▄▅▆▇█';

/** A one-line chart of values, scaled to the largest. */
export function sparkline(values: number[], width: number): string {
  if (values.length === 0) return '';
  const step = Math.max(1, values.length / width);
  const picked: number[] = [];
  for (let i = 0; i < values.length && picked.length < width; i += step) picked.push(values[Math.floor(i)]!);
  const max = Math.max(...picked, 1);
  return picked
    .map((v) => SPARK[Math.min(SPARK.length - 1, Math.floor((v / max) * (SPARK.length - 1)))])
    .join('');
}

export function renderReport(r: SessionReport, p: Paint, columns: number): string[] {
  const s = r.session;
  const w = Math.max(60, Math.min(columns, 120));
  const out: string[] = [];
  const section = (title: string) => {
    out.push('');
    out.push(p.bold(title));
  };
  const started = s.startedAt ? Date.parse(s.startedAt) : null;
  const last = s.lastActiveAt ? Date.parse(s.lastActiveAt) : null;
  out.push(p.bold(clip(safeLine(s.title ?? s.id), w)));
  out.push(p.dim(`${s.provider} ${safeLine(s.id)}${s.deleted ? ' (transcript deleted)' : ''}`));
  out.push(
    `${safeLine(s.project ?? UNKNOWN)}${s.branch ? ` @ ${safeLine(s.branch)}` : ''} · ${s.state} · ${started !== null && last !== null ? duration(last - started) : UNKNOWN} · ${s.models.map(shortModel).join(', ') || UNKNOWN}`,
  );

  section(
    `Cost ${usd(s.cost.usd, s.cost.included)}${s.cost.included ? ` (${usd(s.cost.usd)} at retail)` : ''}  tokens ${tokens(totalTokens(s.tokens))}`,
  );
  for (const m of r.cost.byModel) {
    out.push(
      `  ${padEnd(shortModel(m.model), 22)} ${padStart(usd(m.usd), 9)}  ${padStart(tokens(totalTokens(m.tokens)), 7)} tokens  ${m.requests} requests`,
    );
  }
  if (s.cost.unpriced.length > 0)
    out.push(p.amber(`  no price for ${s.cost.unpriced.map(safeLine).join(', ')}`));
  if (r.cost.byDay.length > 1) {
    for (const d of r.cost.byDay.slice(-14))
      out.push(`  ${d.day}  ${padStart(usd(d.usd), 9)}  ${padStart(tokens(d.tokens), 7)}`);
  }
  if (r.cost.byHour.length > 1)
    out.push(
      `  by hour ${sparkline(
        r.cost.byHour.map((h) => h.usd ?? 0),
        w - 12,
      )}`,
    );

  section(
    `Context ${percent(r.context.used, r.context.compactAt)} of the compaction point (${tokens(r.context.used)} of ${tokens(r.context.compactAt)})`,
  );
  if (r.context.series.length > 0)
    out.push(
      `  ${sparkline(
        r.context.series.map((x) => x.prompt),
        w - 4,
      )}`,
    );
  out.push(
    `  ${r.context.compactions.length} compaction${r.context.compactions.length === 1 ? '' : 's'}${r.context.compactions.length > 0 ? `, last ${safeLine(r.context.compactions.at(-1) ?? UNKNOWN)}` : ''}`,
  );

  section(
    `Tools ${r.tools.calls} calls, ${r.tools.failed === null ? `${UNKNOWN} failed (not recorded)` : `${r.tools.failed} failed`}`,
  );
  for (const t of r.tools.byTool.slice(0, 12))
    out.push(
      `  ${padEnd(safeLine(t.name), 24)} ${padStart(String(t.calls), 6)}  ${t.failed > 0 ? p.red(`${t.failed} failed`) : ''}`,
    );
  if (r.tools.failures.length > 0) {
    section('Failures, grouped by tool and argument');
    for (const f of r.tools.failures) {
      out.push(`  ${p.red(`${f.count}×`)} ${safeLine(f.tool)} ${clip(safeLine(f.detail), w - 12)}`);
      if (f.samples[0]) out.push(p.dim(`      ${clip(safeLine(f.samples[0]), w - 8)}`));
    }
  }
  if (r.tools.slowest.length > 0) {
    section('Slowest calls');
    for (const c of r.tools.slowest.slice(0, 8))
      out.push(
        `  ${padStart(duration(c.ms).replace(/^0m$/, `${Math.round(c.ms / 1000)}s`), 6)}  ${safeLine(c.tool)} ${clip(safeLine(c.detail), w - 20)}`,
      );
  }
  if (r.tools.heaviest.length > 0) {
    section('Calls that grew the context most');
    for (const c of r.tools.heaviest.slice(0, 8))
      out.push(
        `  ${padStart(`+${tokens(c.growth)}`, 7)}${c.shared ? '*' : ' '} ${safeLine(c.tool)} ${clip(safeLine(c.detail), w - 20)}`,
      );
  }
  if (r.files.length > 0) {
    section(`Files (${r.files.length})`);
    for (const f of r.files.slice(0, 20)) {
      const change = f.writes > 0 ? p.green(`+${f.added}`) + ' ' + p.red(`-${f.removed}`) : '';
      out.push(`  ${padStart(`${f.reads}r ${f.writes}w`, 8)}  ${clip(safeLine(f.path), w - 30)} ${change}`);
    }
  }
  if (r.subagents.length > 0) {
    section(`Subagents (${r.subagents.length})`);
    for (const a of r.subagents) {
      out.push(
        `  ${padEnd(safeLine(a.agent), 18)} ${padStart(usd(a.usd), 8)} ${padStart(tokens(totalTokens(a.tokens)), 7)}  ${safeLine(a.type ?? '')} ${clip(safeLine(a.title ?? ''), w - 50)}`,
      );
    }
  }
  // What could not be read for this report (a reader that failed is a problem, not the end of it).
  if (r.problems.length > 0) {
    section(`Could not read (${r.problems.length})`);
    for (const q of r.problems) {
      // The path whole: a person needs all of it to find the file.
      out.push(p.amber(`  ${safeLine(q.path)}`));
      out.push(`    ${clip(safeLine(q.detail ?? q.kind), w - 4)}`);
    }
  }
  return out.map((line) => printable(line, p));
}
