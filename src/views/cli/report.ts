/**
 * `cctop report <session>`: one session in depth, in a terminal: what it cost and when, how its
 * context filled, which calls failed (grouped, so a retry loop is one row), the slowest calls, the
 * calls that grew the context most, the files it touched and the subagents it ran.
 *
 * Every name, path and id in a report comes from the transcript: each is made safe to print
 * (`safeLine`) where it is placed, and every line once more (`printable`) before it is returned.
 */

import type { Breakdown } from '../../model/calls.js';
import type { SessionDoc } from '../../model/document.js';
import { LocalTime } from '../../model/time.js';
import { totalTokens } from '../../model/usage.js';
import type { SessionReport } from '../../report/types.js';
import { printable, safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import {
  clip,
  counted,
  duration,
  localClock,
  padEnd,
  padStart,
  percent,
  shortModel,
  shortPath,
  tokens,
  UNKNOWN,
  usd,
} from './format.js';

const SPARK = '▁▂▃▄▅▆▇█';

/** The width the report lays its lines out for: the terminal's, kept between these two. */
const MIN_WIDTH = 60;
const MAX_WIDTH = 120;
/** The newest days of spend listed (`--json` has every day). */
const DAYS_SHOWN = 14;
/** Tools listed by number of calls. */
const TOOLS_SHOWN = 12;
/** Rows of the slowest and of the heaviest calls shown (the report keeps more for --json). */
const CALLS_SHOWN = 8;
/** Files listed, the most written first. */
const FILES_SHOWN = 20;

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

/** A titled section: a blank line, the title in bold, then its lines. */
const section = (p: Paint, title: string, lines: string[]): string[] => ['', p.bold(title), ...lines];

/** The title, the session, and where, how long and with which models it ran. */
function headLines(s: SessionDoc, p: Paint, w: number): string[] {
  const started = s.startedAt ? Date.parse(s.startedAt) : null;
  const last = s.lastActiveAt ? Date.parse(s.lastActiveAt) : null;
  return [
    p.bold(clip(safeLine(s.title ?? s.id), w)),
    p.dim(
      `${s.provider} ${safeLine(s.id)}${s.host === undefined ? '' : ` on ${safeLine(s.host)}`}${s.deleted ? ' (transcript deleted)' : ''}`,
    ),
    `${safeLine(s.project ?? UNKNOWN)}${s.branch ? ` @ ${safeLine(s.branch)}` : ''} · ${s.state} · ${started !== null && last !== null ? duration(last - started) : UNKNOWN} · ${s.models.map(shortModel).join(', ') || UNKNOWN}`,
  ];
}

function costSection(r: SessionReport, p: Paint, w: number): string[] {
  const s = r.session;
  const out: string[] = [];
  for (const m of r.cost.byModel) {
    out.push(
      `  ${padEnd(shortModel(m.model), 22)} ${padStart(usd(m.usd), 9)}  ${padStart(tokens(totalTokens(m.tokens)), 7)} tokens  ${m.requests} requests`,
    );
  }
  if (s.cost.unpriced.length > 0)
    out.push(p.amber(`  no price for ${s.cost.unpriced.map(safeLine).join(', ')}`));
  if (r.cost.byDay.length > 1) {
    for (const d of r.cost.byDay.slice(-DAYS_SHOWN))
      out.push(`  ${d.day}  ${padStart(usd(d.usd), 9)}  ${padStart(tokens(d.tokens), 7)}`);
  }
  if (r.cost.byHour.length > 1)
    out.push(
      `  by hour ${sparkline(
        r.cost.byHour.map((h) => h.usd ?? 0),
        w - 12,
      )}`,
    );
  return section(
    p,
    `Cost ${usd(s.cost.usd, s.cost.included)}${s.cost.included ? ` (${usd(s.cost.usd)} at retail)` : ''}  tokens ${tokens(totalTokens(s.tokens))}`,
    out,
  );
}

/**
 * What fills the context window (`Breakdown`): the measured parts, the estimated ones, and what is
 * left unaccounted for; the report's Context section and the live table's Context panel both.
 */
export function breakdownLines(b: Breakdown, p: Paint): string[] {
  const row = (label: string, n: number, how: string) =>
    `  ${padEnd(label, 16)} ${padStart(n < 0 ? `-${tokens(-n)}` : tokens(n), 7)}  ${p.dim(how)}`;
  return [
    row('window', b.window, 'measured: the latest request'),
    row('startup', b.startup, 'measured: system prompt, tools, memory, summary'),
    row('tool output', b.toolOutput, 'estimated'),
    row('tool input', b.toolInput, 'estimated'),
    row('attachments', b.attachments, 'estimated'),
    row('your messages', b.user, 'estimated'),
    row('assistant text', b.assistant, 'estimated'),
    row('unaccounted', b.unaccounted, 'thinking and reminders are not in the transcript'),
  ];
}

/** A moment the transcript recorded, on the clock of `zone`; `─` for one it did not. */
const localStamp = (iso: string | null, zone: LocalTime): string =>
  localClock(iso === null ? Number.NaN : Date.parse(iso), zone);

function contextSection(r: SessionReport, p: Paint, w: number, zone: LocalTime): string[] {
  const out: string[] = [];
  if (r.context.series.length > 0)
    out.push(
      `  ${sparkline(
        r.context.series.map((x) => x.prompt),
        w - 4,
      )}`,
    );
  const n = r.context.compactions.length;
  out.push(
    `  ${counted(n, 'compaction')}${n > 0 ? `, the last at ${localStamp(r.context.compactions.at(-1) ?? null, zone)} ${safeLine(zone.timeZone)}` : ''}`,
  );
  if (r.context.breakdown !== null)
    out.push('  what fills it now:', ...breakdownLines(r.context.breakdown, p));
  return section(
    p,
    `Context ${percent(r.context.used, r.context.compactAt)} of the compaction point (${tokens(r.context.used)} of ${tokens(r.context.compactAt)})`,
    out,
  );
}

/** Calls by tool, then the failures, the slowest calls and the calls that grew the context most. */
function toolSections(r: SessionReport, p: Paint, w: number): string[] {
  const byTool = r.tools.byTool
    .slice(0, TOOLS_SHOWN)
    .map(
      (t) =>
        `  ${padEnd(safeLine(t.name), 24)} ${padStart(String(t.calls), 6)}  ${t.failed > 0 ? p.red(`${t.failed} failed`) : ''}`,
    );
  const out = section(
    p,
    `Tools ${r.tools.calls} calls, ${r.tools.failed === null ? `${UNKNOWN} failed (not recorded)` : `${r.tools.failed} failed`}`,
    byTool,
  );
  if (r.tools.failures.length > 0) {
    const lines: string[] = [];
    for (const f of r.tools.failures) {
      lines.push(`  ${p.red(`${f.count}×`)} ${safeLine(f.tool)} ${clip(safeLine(f.detail), w - 12)}`);
      if (f.samples[0]) lines.push(p.dim(`      ${clip(safeLine(f.samples[0]), w - 8)}`));
    }
    out.push(...section(p, 'Failures, grouped by tool and argument', lines));
  }
  // A harness that stamps no call's end (Codex) gives no slowest calls: said, not shown as 0s.
  if (r.tools.slowest.length > 0) {
    const lines = r.tools.slowest
      .slice(0, CALLS_SHOWN)
      .map(
        (c) =>
          `  ${padStart(duration(c.ms).replace(/^0m$/, `${Math.round(c.ms / 1000)}s`), 6)}  ${safeLine(c.tool)} ${clip(safeLine(c.detail), w - 20)}`,
      );
    out.push(...section(p, 'Slowest calls', lines));
  } else if (r.tools.calls > 0)
    out.push(
      ...section(p, 'Slowest calls', [
        `  ${padStart(UNKNOWN, 6)}  ${p.dim('this harness records no call durations')}`,
      ]),
    );
  if (r.tools.heaviest.length > 0) {
    const lines = r.tools.heaviest
      .slice(0, CALLS_SHOWN)
      .map(
        (c) =>
          `  ${padStart(`+${tokens(c.growth)}`, 7)}${c.shared ? '*' : ' '} ${safeLine(c.tool)} ${clip(safeLine(c.detail), w - 20)}`,
      );
    if (r.tools.heaviest.slice(0, CALLS_SHOWN).some((c) => c.shared))
      lines.push(p.dim('  * made together with other calls: the growth after them is theirs together'));
    out.push(...section(p, 'Calls that grew the context most', lines));
  }
  return out;
}

function filesSection(r: SessionReport, p: Paint, w: number): string[] {
  if (r.files.length === 0) return [];
  const lines = r.files.slice(0, FILES_SHOWN).map((f) => {
    const change = f.writes > 0 ? p.green(`+${f.added}`) + ' ' + p.red(`-${f.removed}`) : '';
    return `  ${padStart(`${f.reads}r ${f.writes}w`, 8)}  ${shortPath(f.path, '', w - 30)} ${change}`;
  });
  return section(p, `Files (${r.files.length})`, lines);
}

function subagentsSection(r: SessionReport, p: Paint, w: number): string[] {
  if (r.subagents.length === 0) return [];
  const lines = r.subagents.map(
    (a) =>
      `  ${padEnd(safeLine(a.agent), 18)} ${padStart(usd(a.usd), 8)} ${padStart(tokens(totalTokens(a.tokens)), 7)}  ${safeLine(a.type ?? '')} ${clip(safeLine(a.title ?? ''), w - 50)}`,
  );
  return section(p, `Subagents (${r.subagents.length})`, lines);
}

/** What could not be read for this report (a reader that failed is a problem, not the end of it). */
function problemsSection(r: SessionReport, p: Paint, w: number): string[] {
  if (r.problems.length === 0) return [];
  const lines: string[] = [];
  for (const q of r.problems) {
    // The path whole: a person needs all of it to find the file.
    lines.push(p.amber(`  ${safeLine(q.path)}`));
    lines.push(`    ${clip(safeLine(q.detail ?? q.kind), w - 4)}`);
  }
  return section(p, `Could not read (${r.problems.length})`, lines);
}

export function renderReport(
  r: SessionReport,
  p: Paint,
  columns: number,
  /** The zone its moments are shown in (`--timezone`); absent: the system's. */
  timeZone?: string,
): string[] {
  const w = Math.max(MIN_WIDTH, Math.min(columns, MAX_WIDTH));
  const zone = new LocalTime(timeZone);
  const out = [
    ...headLines(r.session, p, w),
    ...costSection(r, p, w),
    ...contextSection(r, p, w, zone),
    ...toolSections(r, p, w),
    ...filesSection(r, p, w),
    ...subagentsSection(r, p, w),
    ...problemsSection(r, p, w),
  ];
  return out.map((line) => printable(line, p));
}
