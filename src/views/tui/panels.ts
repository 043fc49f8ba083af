/**
 * The panels under the table, for the selected session: its info (with the command that resumes
 * it), its tool activity, how its context filled, what it cost, and its conversation.
 *
 * The info and cost panels need only the session's row; the others wait for the transcript, read
 * off the main thread (`Detail`), and say so while it is read, gone or unreadable. Another machine's
 * session draws from what was fetched over ssh (`remote-panels.ts`).
 */
import type { Conversation } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import type { StateSource } from '../../model/state.js';
import { totalTokens } from '../../model/usage.js';
import { placeById } from '../../providers/places.js';
import type { Paint } from '../cli/color.js';
import {
  clip,
  counted,
  modelLabel,
  padEnd,
  padStart,
  percent,
  shortModel,
  tildify,
  tokens,
  UNKNOWN,
  usd,
} from '../cli/format.js';
import { breakdownLines, sparkline } from '../cli/report.js';
import { shellWord } from '../shell-word.js';
import { safeLine } from '../terminal-text.js';
import { collisionsPanel } from './collisions-panel.js';
import { fetchState, remoteReport, remoteToolsPanel } from './remote-panels.js';
import type { Detail, ViewState } from './state.js';

/** What the panels say of a session whose transcript was deleted. */
const GONE = 'the transcript is gone; only its numbers remain';

function kv(label: string, value: string, p: Paint): string {
  return `  ${p.dim(padEnd(label, 10))} ${value}`;
}

/**
 * The command that resumes a session, to show and to copy: it is pasted into a shell, so the path
 * and id from the transcript are made safe to print (no control character reaches the clipboard)
 * and quoted as shell words. An id or a path that would read as an option (`--dangerously-…`) gives
 * no command and no `cd`: quoting does not stop a program from reading a word as a flag.
 */
/** Where a state came from, as the detail panel says it (see `cctop explain <id>` for the evidence). */
const SOURCE_WORDS: Record<StateSource, string> = {
  hook: 'reported by its hooks',
  registry: "reported by the agent's session list",
  driven: 'reported by the program driving it',
  inferred: 'inferred from its files',
};

export function resumeCommand(s: SessionDoc): string | null {
  if (s.id.startsWith('-')) return null;
  // A row for a driven run that has not named its session yet (`live/driven-doc.ts`) carries the
  // run's own id, which no harness can resume.
  if (s.driven !== undefined && s.driven.session === null) return null;
  // The harness says how it resumes a session (its own words); the table only quotes them.
  const words = placeById(s.provider).resumeCommand?.(s.id);
  if (words === undefined) return null;
  const cd = s.project && !s.project.startsWith('-') ? `cd ${shellWord(safeLine(s.project))} && ` : '';
  return `${cd}${words.map((w) => shellWord(safeLine(w))).join(' ')}`;
}

/** The call still without a result: pending while the session runs, unanswered once it went quiet. */
function pending(s: SessionDoc): string {
  if (s.pendingTool === null) return '';
  const tool = safeLine(s.pendingTool);
  return s.state === 'idle' ? `  last call unanswered: ${tool}` : `  pending ${tool}`;
}

function infoPanel(s: SessionDoc, p: Paint, columns: number, home: string | null): string[] {
  const out = [
    kv('session', `${placeById(s.provider).label} ${safeLine(s.id)}`, p),
    kv('title', safeLine(s.title ?? UNKNOWN), p),
    kv('project', `${safeLine(s.project ?? UNKNOWN)}${s.branch ? `  (${safeLine(s.branch)})` : ''}`, p),
    // Another machine's session (`--host`): its file and its resume command are that machine's.
    kv(
      'file',
      s.host === undefined
        ? home === null
          ? safeLine(s.file)
          : tildify(s.file, home)
        : `${safeLine(s.host)}:${safeLine(s.file)}`,
      p,
    ),
    kv(
      'model',
      `${s.models.map(shortModel).join(', ') || UNKNOWN}${s.reasoningEffort ? `  effort ${safeLine(s.reasoningEffort)}` : ''}`,
      p,
    ),
    kv(
      'state',
      `${s.state}${s.stateDetail ? ` (${safeLine(s.stateDetail)})` : ''}${pending(s)}${s.inferred ? `  ${s.inferred}` : ''}  ${p.dim(SOURCE_WORDS[s.stateSource])}`,
      p,
    ),
    kv(
      'process',
      s.process
        ? `${s.process.cctopRun ? `run by cctop (cctop attach ${safeLine(s.process.cctopRun)})  ` : ''}pids ${s.process.pids.slice(0, 6).join(' ')}  ${s.process.cpu ?? UNKNOWN}% cpu  ${Math.round(s.process.memory / (1 << 20))} MB  ${safeLine(s.process.command)}`
        : s.running === false
          ? 'not running'
          : UNKNOWN,
      p,
    ),
    kv(
      'tokens',
      `in ${tokens(s.tokens.input)}  out ${tokens(s.tokens.output)}  cache read ${tokens(s.tokens.cacheRead)}  write ${tokens(s.tokens.cacheWrite)}  reasoning ${tokens(s.tokens.reasoning)}`,
      p,
    ),
    kv(
      'resume',
      `${s.host === undefined ? '' : `on ${safeLine(s.host)}: `}${resumeCommand(s) ?? UNKNOWN}`,
      p,
    ),
    ...drivenLines(s, p, columns),
  ];
  return out.map((l) => clip(l, columns));
}

/** The most lines an approval's input takes in the Info panel; the rest is cut (the dashboard shows all). */
const MAX_ASK_LINES = 6;

/** What the program driving a session says: who drives it, what it asks, who answered last. */
function drivenLines(s: SessionDoc, p: Paint, columns: number): string[] {
  const d = s.driven;
  if (d === undefined) return [];
  const out = [
    kv(
      'driven',
      `by ${safeLine(d.program)} (pid ${d.pid}), ${safeLine(d.agent)}  ${d.remote ? 'a allow  d deny (then y)' : p.dim('the program answers its own approvals')}`,
      p,
    ),
  ];
  const asked = d.pending[0];
  if (asked !== undefined) {
    const width = Math.max(20, columns - 13);
    const text = safeLine(asked.input);
    out.push(kv('asks', p.amber(safeLine(asked.tool)), p));
    for (let i = 0; i < Math.min(MAX_ASK_LINES, Math.ceil(text.length / width)); i++)
      out.push(`             ${text.slice(i * width, (i + 1) * width)}`);
    if (d.pending.length > 1) out.push(p.dim(`             and ${d.pending.length - 1} more waiting`));
  }
  if (d.answered !== null)
    out.push(
      kv('answered', `${d.answered.behavior} ${safeLine(d.answered.tool)} by ${safeLine(d.answered.by)}`, p),
    );
  return out;
}

/** Why the transcript has nothing to show, for a detail that is not ready; null once it is. */
function unread(d: Detail | null, p: Paint): string[] | null {
  switch (d?.kind) {
    case undefined:
    case 'loading':
      return [p.dim('  reading the transcript…')];
    case 'gone':
      return [p.red(`  ${GONE}`)];
    case 'failed':
      return [p.red(`  ${safeLine(d.error)}`)];
    case 'ready':
    case 'remote':
      return null;
  }
}

function toolsPanel(d: Detail | null, p: Paint, columns: number): string[] {
  if (d?.kind === 'remote') return remoteToolsPanel(d, p, columns);
  if (d?.kind !== 'ready') return unread(d, p) ?? [];
  const calls = [...d.log.calls].reverse();
  if (calls.length === 0) return [p.dim('  no tool calls')];
  return calls.map((c) => {
    const markc = c.result === null ? p.amber('…') : c.failed ? p.red('✗') : p.green('✓');
    const when = c.startMs ? new Date(c.startMs).toTimeString().slice(0, 8) : '        ';
    const took =
      c.startMs !== null && c.endMs !== null
        ? `${Math.max(0, Math.round((c.endMs - c.startMs) / 1000))}s`
        : '';
    const lines = c.added + c.removed > 0 ? ` ${p.green(`+${c.added}`)} ${p.red(`-${c.removed}`)}` : '';
    const origin = c.origin === 'main' ? '' : p.dim(` ↳${safeLine(c.origin.slice(0, 8))}`);
    return (
      clip(`  ${p.dim(when)} ${markc} ${padEnd(safeLine(c.name), 10)} ${safeLine(c.detail)}`, columns - 20) +
      `${lines} ${p.dim(took)}${origin}`
    );
  });
}

function contextPanel(s: SessionDoc, d: Detail | null, p: Paint, columns: number): string[] {
  const out: string[] = [];
  const frac = s.context.used !== null && s.context.compactAt ? s.context.used / s.context.compactAt : null;
  const barWidth = Math.max(10, Math.min(50, columns - 40));
  const filled = frac === null ? 0 : Math.min(barWidth, Math.round(frac * barWidth));
  out.push(
    `  ${percent(s.context.used, s.context.compactAt)} of the compaction point  ${p.green('█'.repeat(filled))}${p.dim('░'.repeat(barWidth - filled))}  ${tokens(s.context.used)} / ${tokens(s.context.compactAt)} (window ${tokens(s.context.window)})`,
  );
  const ready = d?.kind === 'ready' ? d : null;
  // Another machine's session: its report, fetched over ssh, has the breakdown and the series.
  const report = ready?.report ?? remoteReport(d);
  const b = ready?.log.breakdown ?? report?.context.breakdown ?? null;
  if (b) {
    out.push(...breakdownLines(b, p));
  } else if (d?.kind === 'loading') out.push(p.dim('  reading the transcript…'));
  else if (d?.kind === 'remote' && d.report.kind !== 'read') out.push(...(fetchState(d, d.report, p) ?? []));
  else out.push(p.dim('  no breakdown for this harness'));
  const series = report?.context.series ?? [];
  if (series.length > 1) {
    out.push(
      `  ${sparkline(
        series.map((x) => x.prompt),
        Math.max(10, columns - 4),
      )}`,
    );
    const n = report?.context.compactions.length ?? 0;
    out.push(p.dim(`  how it filled, request by request; ${counted(n, 'compaction')}`));
  }
  return out.map((l) => clip(l, columns));
}

function costPanel(s: SessionDoc, p: Paint, columns: number): string[] {
  const out = [
    `  ${usd(s.cost.usd, s.cost.included)}${s.cost.included ? ` (${usd(s.cost.usd)} at retail)` : ''}  this hour ${usd(s.cost.byHour?.usd.at(-1) ?? null)}  today ${usd(s.cost.byDay?.usd.at(-1) ?? null)}`,
  ];
  for (const m of s.cost.byModel)
    out.push(
      `  ${padEnd(modelLabel(m.model, m.fast), 20)} ${padStart(usd(m.usd), 9)}  ${padStart(tokens(totalTokens(m.tokens)), 7)} tokens  ${m.requests} requests`,
    );
  if (s.cost.unpriced.length > 0)
    out.push(p.amber(`  no price for ${s.cost.unpriced.map(safeLine).join(', ')}`));
  const hours = s.cost.byHour?.usd ?? [];
  if (hours.some((h) => h > 0)) out.push(`  last 48h ${sparkline(hours, Math.min(48, columns - 12))}`);
  return out.map((l) => clip(l, columns));
}

function chatPanel(d: Detail | null, p: Paint, columns: number): string[] {
  if (d === null || d.kind === 'loading') return [p.dim('  reading the conversation…')];
  if (d.kind === 'remote') {
    const c = d.conversation;
    return c.kind === 'read' ? conversationLines(c.value, p, columns) : (fetchState(d, c, p) ?? []);
  }
  // A transcript that is gone or could not be read has no conversation to show.
  if (d.kind !== 'ready') return [p.dim('  no conversation')];
  return conversationLines(d.conversation, p, columns);
}

/** A conversation, one line a turn and one a call, the newest last. */
function conversationLines(c: Conversation, p: Paint, columns: number): string[] {
  if (!c.supported) return [p.dim(`  ${safeLine(c.note ?? 'no reader for this harness')}`)];
  const out: string[] = [];
  for (const t of c.turns) {
    const who =
      t.role === 'user'
        ? p.bold('you')
        : t.role === 'system'
          ? p.dim('harness')
          : t.kind === 'reasoning'
            ? p.dim('thinking')
            : p.green('agent');
    const text = safeLine(t.text.replace(/\n+/g, ' ⏎ '));
    if (text.length > 0) out.push(clip(`  ${p.dim(`#${t.seq}`)} ${who} ${text}`, columns));
    for (const tool of t.tools)
      out.push(
        clip(
          `      ${tool.result === null ? p.amber('…') : tool.failed ? p.red('✗') : p.green('✓')} ${safeLine(tool.name)} ${safeLine(tool.detail)}`,
          columns,
        ),
      );
  }
  return out;
}

export function panelLines(v: ViewState, s: SessionDoc, p: Paint, columns: number, now: number): string[] {
  switch (v.panel) {
    case 'info':
      return infoPanel(s, p, columns, v.home);
    case 'tools':
      return toolsPanel(v.detail, p, columns);
    case 'context':
      return contextPanel(s, v.detail, p, columns);
    case 'cost':
      return costPanel(s, p, columns);
    case 'chat':
      return chatPanel(v.detail, p, columns);
    case 'collisions':
      return collisionsPanel(v, s, p, columns, now);
  }
}
