/**
 * How `cctop exec` shows a run on a terminal: its events as a readable transcript, and the closing
 * account of how it ended. JSON output needs none of this; it is written as the events are.
 *
 * Every field comes from the agent and is made safe to print where it is placed (`safeLine`,
 * `safeText`); the caller passes every line once more through `printable` on its way out.
 */

import { spec } from '../../drive/agents/index.js';
import { type CredentialSource, credentialWords } from '../../drive/credentials.js';
import type { DriveError } from '../../drive/errors.js';
import { type Event, isNamedAgent, type Outcome, succeeded } from '../../drive/events.js';
import { totalTokens, type Usage } from '../../model/usage.js';
import { safeLine, safeText } from '../terminal-text.js';
import type { Paint } from './color.js';
import { clip, padEnd, padStart, tokens, usd } from './format.js';
import type { Io } from './main.js';

/** The longest preview of a tool call or result in the readable transcript: one terminal line. */
const PREVIEW_CELLS = 160;

/** A preview on one line: runs of whitespace (newlines too) become one space. */
const oneLine = (s: string): string => safeLine(s.replace(/\s+/g, ' ').trim());

function usageLine(u: Usage, p: Paint): string {
  const parts: string[] = [];
  if (u.input !== null) parts.push(`in ${tokens(u.input)}`);
  if (u.output !== null) parts.push(`out ${tokens(u.output)}`);
  if (u.cacheRead !== null || u.cacheWrite !== null) {
    parts.push(`cache ${tokens(u.cacheRead)} read / ${tokens(u.cacheWrite)} written`);
  }
  if (u.contextTokens !== null) {
    const of = u.contextWindow !== null ? ` of ${tokens(u.contextWindow)}` : '';
    parts.push(`context ${tokens(u.contextTokens)}${of}`);
  }
  if (u.costUsd !== null) parts.push(usd(u.costUsd));
  if (u.premiumRequests !== null) parts.push(`${u.premiumRequests} premium requests`);
  if (u.durationMs !== null) parts.push(`${(u.durationMs / 1000).toFixed(1)} s`);
  return p.dim(parts.join(' · '));
}

function stopWords(o: Outcome): string {
  switch (o.stop.kind) {
    case 'completed':
      return 'completed';
    case 'error':
      return 'the turn failed';
    case 'other':
      return `stopped: ${safeLine(o.stop.reason)}`;
    case 'unfinished':
      return 'ended without a result';
  }
}

/** The readable account of an ended run, for the terminal. */
export function describeOutcome(o: Outcome, p: Paint): string[] {
  const lines: string[] = [];
  // An ACP run is shown by the name its caller gave it (`goose`), not as `acp`.
  const who = o.acp !== undefined ? safeLine(o.acp.name) : o.agent;
  const known = o.credential !== null && o.credential.kind !== 'unknown';
  const under = known ? ` · ${safeLine(credentialWords(o.credential!))}` : '';
  const head = `${who}${o.model ? ` (${safeLine(o.model)})` : ''} · ${stopWords(o)}${o.session ? ` · session ${safeLine(o.session)}` : ''}${under}`;
  lines.push(succeeded(o) ? p.green(head) : p.red(head));
  if (!succeeded(o)) {
    const why = o.errorMessage ?? (o.text !== '' ? o.text : null);
    if (why !== null)
      lines.push(p.red(`${o.errorStatus !== null ? `${o.errorStatus}: ` : ''}${oneLine(why)}`));
    // Not logged in (exit 5): the agent's own way to log in.
    if (o.errorStatus === 401 && isNamedAgent(o.agent)) lines.push(p.amber(spec(o.agent).loginHint));
    if (o.stop.kind === 'unfinished' && o.unparsed > 0) {
      lines.push(
        p.amber(`${o.unparsed} lines were not understood; the first: ${oneLine(o.firstUnparsed ?? '')}`),
      );
    }
  }
  const u = usageLine(o.usage, p);
  if (u !== '') lines.push(u);
  lines.push(...truthLines(o, p));
  return lines;
}

/** What a tool result is called in a line: its name where the file gave one, else its id. */
const callWords = (name: string | null, id: string): string =>
  name !== null ? safeLine(name) : `call ${safeLine(id)}`;

/**
 * What the session file settled that the stream had left open, and where the two disagree: the
 * transcript above showed the stream's word, so a verdict only the file gave is said here.
 */
function truthLines(o: Outcome, p: Paint): string[] {
  const t = o.truth;
  const lines: string[] = [];
  for (const r of t.results) {
    if (r.from !== 'file') continue;
    const exit = r.exitCode !== null ? ` (exit ${r.exitCode})` : '';
    const verdict =
      r.ok === false
        ? p.red(`✗ ${callWords(r.name, r.id)} failed${exit}`)
        : `✓ ${callWords(r.name, r.id)} succeeded${exit}`;
    lines.push(`${verdict} ${p.dim('· from the session file; the stream gave no verdict')}`);
  }
  const filled = [...t.usageFromFile, ...(t.model === 'file' ? ['model'] : [])];
  if (filled.length > 0)
    lines.push(p.dim(`${filled.join(', ')} from the session file; the stream carried none`));
  for (const q of t.problems) {
    switch (q.kind) {
      case 'result':
        lines.push(
          p.amber(
            `! call ${safeLine(q.id)}: the stream says ${q.stream ? 'it succeeded' : 'it failed'}, the session file says ${q.file ? 'it succeeded' : 'it failed'}`,
          ),
        );
        break;
      case 'model':
        lines.push(
          p.amber(`! the stream names model ${safeLine(q.stream)}, the session file ${safeLine(q.file)}`),
        );
        break;
    }
  }
  return lines;
}

/** A failure as JSON: its fields and the sentence a person reads. */
export function failureJson(e: DriveError): Record<string, unknown> {
  return { ...e.failure, message: e.message };
}

/** Prints a run's events as a transcript, joining text deltas into whole lines. */
export class Transcript {
  private pending = '';
  shownText = false;

  constructor(
    private readonly io: Io,
    private readonly p: Paint,
  ) {}

  private flush(): void {
    if (this.pending === '') return;
    this.io.out(safeText(this.pending));
    this.pending = '';
  }

  text(t: string): void {
    this.shownText = true;
    const parts = (this.pending + t).split(/\r?\n/);
    this.pending = parts.pop() ?? '';
    for (const line of parts) this.io.out(safeText(line));
  }

  note(line: string): void {
    this.flush();
    this.io.out(line);
  }

  event(e: Event): void {
    const p = this.p;
    switch (e.kind) {
      case 'text':
        this.text(e.text);
        return;
      case 'thinking':
        this.note(p.dim(clip(`· ${oneLine(e.text)}`, PREVIEW_CELLS)));
        return;
      case 'tool_call':
        this.note(
          p.bold(clip(`→ ${safeLine(e.name)} ${oneLine(JSON.stringify(e.input) ?? '')}`, PREVIEW_CELLS)),
        );
        return;
      case 'tool_result': {
        const mark = e.ok === false ? p.red('← failed') : p.dim('←');
        this.note(`${mark} ${p.dim(clip(oneLine(e.output), PREVIEW_CELLS))}`);
        return;
      }
      case 'rate_limit':
        if (e.limit.status !== 'allowed')
          this.note(
            p.amber(
              `! rate limit: ${safeLine(e.limit.status)}${e.limit.window ? ` (${safeLine(e.limit.window)})` : ''}`,
            ),
          );
        return;
      case 'compaction':
        this.note(
          p.dim(
            e.compaction.phase === 'started'
              ? '· compacting the conversation'
              : `· compaction ${e.compaction.ok ? 'done' : `refused: ${oneLine(e.compaction.error ?? '')}`}`,
          ),
        );
        return;
      case 'notice':
        this.note(p.amber(clip(`! ${oneLine(e.text)}`, PREVIEW_CELLS)));
        return;
      case 'plan': {
        const mark = { completed: '[x]', in_progress: '[>]', pending: '[ ]' } as const;
        const steps = e.entries.map((s) => `${mark[s.status]} ${s.content}`).join('  ');
        this.note(p.dim(clip(`· plan ${oneLine(steps)}`, PREVIEW_CELLS)));
        return;
      }
      case 'started':
      case 'usage':
      case 'commands':
      case 'approval_request':
        // The session is in the closing summary; live usage is for counters; exec runs take no
        // approvals; the catalogue is for palettes, not transcripts.
        return;
    }
  }

  end(): void {
    this.flush();
  }
}

/** One agent's line in `cctop exec --all`'s closing table. */
export interface AllRow {
  agent: string;
  /** The outcome, or the failure that kept the run from one. */
  result: { kind: 'outcome'; outcome: Outcome } | { kind: 'failure'; error: DriveError };
  /** Wall time from the start of the run to its end, as `exec` measured it. */
  ms: number;
}

/** A credential in one word or two, for the table: `api-key`, `login chatgpt`, `cloud bedrock`, `─`. */
function credentialCell(c: CredentialSource | null): string {
  if (c === null) return '─';
  switch (c.kind) {
    case 'api-key':
      return 'api-key';
    case 'login':
      return c.login !== null ? `login ${c.login}` : 'login';
    case 'cloud':
      return `cloud ${c.provider}`;
    case 'unknown':
      return '─';
  }
}

/**
 * The closing table of `cctop exec --all`: per agent, how it ended, how long it took, its tokens and
 * what it reported it cost, and the kind of credential it ran under. A figure the agent did not report
 * is `─`, never 0 (drive prices nothing itself: a cost is only ever the agent's own).
 */
export function allSummary(rows: readonly AllRow[], p: Paint): string[] {
  const cells = rows.map((r) => {
    const o = r.result.kind === 'outcome' ? r.result.outcome : null;
    const how =
      o !== null
        ? succeeded(o)
          ? 'completed'
          : stopWords(o)
        : `${r.result.kind === 'failure' ? r.result.error.failure.kind : ''}`;
    return {
      ok: o !== null && succeeded(o),
      cols: [
        r.agent,
        safeLine(how),
        `${(r.ms / 1000).toFixed(1)} s`,
        tokens(o === null ? null : totalTokens(o.usage)),
        usd(o?.usage.costUsd ?? null),
        safeLine(credentialCell(o?.credential ?? null)),
      ],
    };
  });
  const head = ['agent', 'outcome', 'time', 'tokens', 'cost', 'credential'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c.cols[i]!.length)));
  const last = head.length - 1;
  // Figures right-aligned; words left-aligned, and the last column unpadded (no trailing blanks).
  const cell = (c: string, i: number) =>
    i === last ? c : i >= 2 ? padStart(c, widths[i]!) : padEnd(c, widths[i]!);
  const line = (cols: readonly string[]) => cols.map(cell).join('  ');
  return [
    p.dim(line(head)),
    ...cells.map((c) => {
      const text = line(c.cols);
      return c.ok ? text : p.red(text);
    }),
  ];
}
