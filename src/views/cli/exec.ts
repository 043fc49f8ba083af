/**
 * `cctop exec`: run an agent headlessly from the shell and print what it does.
 *
 *   cctop exec claude "summarise the last commit"        a readable transcript
 *   cctop exec codex --json -                             prompt from stdin, events as JSON lines
 *   cctop exec --all "is there a bug in parse()?"         every installed agent in parallel, one result each
 *
 * A thin view over `cctop/drive`: parsing arguments, printing events, and choosing the exit code. The
 * exit codes are documented in docs/drive.md and are part of the interface; scripts branch on them.
 *
 * Everything the agent sends is hostile to a terminal (its model, session id, tool names, rate-limit
 * fields and error bodies come from a process that read untrusted pages): each field is made safe to
 * print where it is placed, every line again on its way out, and JSON lines are written with `\u`
 * escapes for the characters a terminal acts on (`../terminal-text.ts`).
 */
import { readFileSync } from 'node:fs';
import { DriveError, type Failure } from '../../drive/errors.js';
import {
  AGENTS,
  type AgentId,
  type Event,
  isAgentId,
  isBlocking,
  type Outcome,
  succeeded,
} from '../../drive/events.js';
import { isPermission, PERMISSIONS, type Request } from '../../drive/request.js';
import { installed, run, stream } from '../../drive/run.js';
import type { Usage } from '../../model/usage.js';
import { printable, safeLine, safeText, terminalJson } from '../terminal-text.js';
import { type Paint, PLAIN, paint } from './color.js';
import { clip, tokens, usd } from './format.js';
import type { Io } from './main.js';
import { parse as parseOptions, UsageError } from './options.js';

/** Exit codes of `cctop exec`, one per way a run can end. */
export const EXIT = {
  ok: 0,
  /** The agent ran and reported the turn failed, or ended without settling it. */
  turnFailed: 1,
  /** Bad arguments, or a request the agent cannot honour. */
  usage: 2,
  /** The agent died without a result. */
  failed: 3,
  notInstalled: 4,
  notAuthenticated: 5,
  rateLimited: 6,
  timeout: 7,
  spawn: 8,
  /** A named session is busy, bound to another agent, or its store failed. */
  session: 9,
  /** Interrupted (Ctrl-C, SIGTERM) or cancelled. */
  cancelled: 130,
} as const;

/**
 * The largest prompt read from stdin. Far beyond any prompt a model takes (its window is smaller),
 * it only stops `cctop exec -` from reading an endless pipe into memory.
 */
const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;

/** The longest preview of a tool call or result in the readable transcript: one terminal line. */
const PREVIEW_CELLS = 160;

const HELP = `cctop exec: run an agent headlessly and print what it does

Usage:
  cctop exec <claude|codex|copilot> [options] <prompt | ->
  cctop exec --all [options] <prompt | ->     every installed agent in parallel, one result each

Options:
  --json                 events as JSON lines (one result line per agent with --all)
  -m, --model NAME       the model, passed to the agent verbatim
  --effort LEVEL         reasoning effort (low, medium, high, ...)
  --system TEXT          extra system prompt
  --permission LEVEL     ${PERMISSIONS.join(' | ')} (default read-only)
  -C, --cwd DIR          the agent's working directory
  --add-dir DIR          another directory the agent may use (repeatable)
  --schema FILE          a JSON Schema the answer must follow (claude, codex)
  --resume ID            continue an agent session
  --fork                 with --resume or --session: continue in a new branch (claude)
  --session NAME         a named session for this project, continued across runs
  --timeout DURATION     stop after 90s, 10m, 1h, ... (default: none)
  --bin PATH             the agent executable to run
  --inherit-env          give the agent this whole environment (default: only what it needs)
  -h, --help

Exit codes: 0 done, 1 the turn failed, 2 bad arguments, 3 the agent died without a result,
4 not installed, 5 not logged in, 6 rate limited, 7 timed out, 8 could not start, 9 session busy
or conflicting, 130 interrupted.`;

class ExecUsageError extends Error {}

/** The exit code for a run that could not produce an outcome. */
export function exitForFailure(f: Failure): number {
  switch (f.kind) {
    case 'not_installed':
      return EXIT.notInstalled;
    case 'spawn':
      return EXIT.spawn;
    case 'timeout':
      return EXIT.timeout;
    case 'failed':
      return EXIT.failed;
    case 'rate_limited':
      return EXIT.rateLimited;
    case 'not_authenticated':
      return EXIT.notAuthenticated;
    case 'unsupported':
    case 'invalid_request':
      return EXIT.usage;
    case 'cancelled':
      return EXIT.cancelled;
    case 'session_busy':
    case 'session_conflict':
    case 'store':
      return EXIT.session;
  }
}

/** The exit code for a run that ended with an outcome. */
export function exitForOutcome(o: Outcome): number {
  if (succeeded(o)) return EXIT.ok;
  if (o.errorStatus === 401) return EXIT.notAuthenticated;
  if (o.errorStatus === 429 || (o.rateLimit !== null && isBlocking(o.rateLimit))) return EXIT.rateLimited;
  return EXIT.turnFailed;
}

function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new ExecUsageError(`--timeout ${v}: expected a duration such as 90s, 10m or 1h`);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(m[1]) * scale;
  if (!(ms > 0)) throw new ExecUsageError('--timeout must be longer than zero');
  return ms;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_STDIN_PROMPT_BYTES) {
      throw new ExecUsageError(`the prompt on stdin is over ${MAX_STDIN_PROMPT_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readSchema(path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ExecUsageError(`--schema ${path}: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ExecUsageError(`--schema ${path}: a JSON Schema is an object`);
  }
  return value as Record<string, unknown>;
}

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
function describeOutcome(o: Outcome, p: Paint): string[] {
  const lines: string[] = [];
  const head = `${o.agent}${o.model ? ` (${safeLine(o.model)})` : ''} · ${stopWords(o)}${o.session ? ` · session ${safeLine(o.session)}` : ''}`;
  lines.push(succeeded(o) ? p.green(head) : p.red(head));
  if (!succeeded(o)) {
    const why = o.errorMessage ?? (o.text !== '' ? o.text : null);
    if (why !== null)
      lines.push(p.red(`${o.errorStatus !== null ? `${o.errorStatus}: ` : ''}${oneLine(why)}`));
    if (o.stop.kind === 'unfinished' && o.unparsed > 0) {
      lines.push(
        p.amber(`${o.unparsed} lines were not understood; the first: ${oneLine(o.firstUnparsed ?? '')}`),
      );
    }
  }
  const u = usageLine(o.usage, p);
  if (u !== '') lines.push(u);
  return lines;
}

function failureJson(e: DriveError): Record<string, unknown> {
  return { ...e.failure, message: e.message };
}

/** Prints a run's events as a transcript, joining text deltas into whole lines. */
class Transcript {
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

interface Parsed {
  agents: AgentId[];
  all: boolean;
  json: boolean;
  request: Omit<Request, 'agent' | 'prompt'>;
  prompt: string;
}

/** The flags `cctop exec` takes, as the option table above declares them. */
interface ExecFlags {
  all?: boolean;
  json?: boolean;
  model?: string;
  effort?: string;
  system?: string;
  permission?: string;
  cwd?: string;
  'add-dir'?: string[];
  schema?: string;
  resume?: string;
  fork?: boolean;
  session?: string;
  timeout?: string;
  bin?: string;
  'inherit-env'?: boolean;
  help?: boolean;
}

async function parse(args: string[], io: Io): Promise<Parsed | 'help'> {
  // Through the shared parser, so a mistyped flag gets our sentence and the nearest flag, not Node's.
  const parsed = parseOptions(
    args,
    {
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      model: { type: 'string', short: 'm' },
      effort: { type: 'string' },
      system: { type: 'string' },
      permission: { type: 'string' },
      cwd: { type: 'string', short: 'C' },
      'add-dir': { type: 'string', multiple: true },
      schema: { type: 'string' },
      resume: { type: 'string' },
      fork: { type: 'boolean' },
      session: { type: 'string' },
      timeout: { type: 'string' },
      bin: { type: 'string' },
      'inherit-env': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'exec',
  );
  // The shared parser checked every flag against the table above, so each has the type it declares.
  const values = parsed.values as ExecFlags;
  const positionals = parsed.positionals;
  if (values.help) return 'help';
  const all = values.all === true;
  const rest = [...positionals];
  let agents: AgentId[];
  if (all) {
    if (values.session !== undefined || values.resume !== undefined || values.bin !== undefined) {
      throw new ExecUsageError('--all runs several agents: --session, --resume and --bin name one');
    }
    agents = AGENTS.filter((a) => installed(a, io.env));
  } else {
    const agent = rest.shift();
    if (agent === undefined)
      throw new ExecUsageError('which agent? cctop exec <claude|codex|copilot> <prompt>');
    if (!isAgentId(agent)) throw new ExecUsageError(`unknown agent "${agent}" (claude, codex or copilot)`);
    agents = [agent];
  }
  if (rest.length === 0) throw new ExecUsageError('no prompt (give it as an argument, or - to read stdin)');
  const prompt = rest.length === 1 && rest[0] === '-' ? await readStdin() : rest.join(' ');
  const permission = values.permission ?? 'read-only';
  if (!isPermission(permission)) {
    throw new ExecUsageError(`--permission ${permission}: one of ${PERMISSIONS.join(', ')}`);
  }
  if (values.fork === true && values.resume === undefined && values.session === undefined) {
    throw new ExecUsageError('--fork needs --resume or --session');
  }
  const request: Omit<Request, 'agent' | 'prompt'> = {
    permission,
    parentEnv: io.env,
    env: values['inherit-env'] ? 'inherit' : 'minimal',
  };
  if (values.model !== undefined) request.model = values.model;
  if (values.effort !== undefined) request.effort = values.effort;
  if (values.system !== undefined) request.system = values.system;
  if (values.cwd !== undefined) request.cwd = values.cwd;
  if (values['add-dir'] !== undefined) request.addDirs = values['add-dir'];
  if (values.schema !== undefined) request.schema = readSchema(values.schema);
  if (values.session !== undefined) request.session = { name: values.session, fork: values.fork === true };
  else if (values.resume !== undefined) {
    request.resume = values.resume;
    request.fork = values.fork === true;
  }
  if (values.timeout !== undefined) request.timeoutMs = parseDuration(values.timeout);
  if (values.bin !== undefined) request.bin = values.bin;
  return { agents, all, json: values.json === true, request, prompt };
}

async function single(
  agent: AgentId,
  parsed: Parsed,
  signal: AbortSignal,
  io: Io,
  p: Paint,
): Promise<number> {
  const r = stream({ ...parsed.request, agent, prompt: parsed.prompt, signal });
  const transcript = new Transcript(io, p);
  try {
    for await (const e of r) {
      if (parsed.json) io.out(terminalJson(e));
      else transcript.event(e);
    }
    const o = await r.outcome;
    if (parsed.json) io.out(terminalJson({ kind: 'outcome', outcome: o }));
    else {
      transcript.end();
      // Nothing streamed (an agent that only reports its answer at the end): the answer is the transcript.
      if (!transcript.shownText && o.text !== '' && succeeded(o)) transcript.text(`${o.text}\n`);
      transcript.end();
      for (const line of describeOutcome(o, p)) io.err(line);
    }
    return exitForOutcome(o);
  } catch (e) {
    transcript.end();
    if (!(e instanceof DriveError)) throw e;
    if (parsed.json) io.out(terminalJson({ kind: 'error', error: failureJson(e) }));
    else io.err(p.red(`cctop: ${safeText(e.message)}`));
    return exitForFailure(e.failure);
  }
}

async function everyAgent(parsed: Parsed, signal: AbortSignal, io: Io, p: Paint): Promise<number> {
  if (parsed.agents.length === 0) {
    io.err(`cctop: no agent is installed (looked for ${AGENTS.join(', ')} on PATH)`);
    return EXIT.notInstalled;
  }
  const settled = await Promise.allSettled(
    parsed.agents.map((agent) => run({ ...parsed.request, agent, prompt: parsed.prompt, signal })),
  );
  const codes: number[] = [];
  settled.forEach((s, i) => {
    const agent = parsed.agents[i]!;
    if (s.status === 'fulfilled') {
      codes.push(exitForOutcome(s.value));
      if (parsed.json) io.out(terminalJson({ agent, outcome: s.value }));
      else {
        const [head, ...more] = describeOutcome(s.value, p);
        io.out(`── ${head}`);
        if (s.value.text !== '') io.out(safeText(s.value.text));
        for (const line of more) io.out(line);
        io.out('');
      }
      return;
    }
    const e = s.reason;
    if (!(e instanceof DriveError)) throw e;
    codes.push(exitForFailure(e.failure));
    if (parsed.json) io.out(terminalJson({ agent, error: failureJson(e) }));
    else {
      io.out(p.red(`── ${agent} · ${safeText(e.message)}`));
      io.out('');
    }
  });
  // Every agent succeeded, or the first one (in the listed order) that did not says how.
  return codes.find((c) => c !== EXIT.ok) ?? EXIT.ok;
}

/** `cctop exec …`; `args` is everything after the word `exec`. */
export async function execCommand(args: string[], io: Io): Promise<number> {
  let parsed: Parsed | 'help';
  try {
    parsed = await parse(args, io);
  } catch (e) {
    if (
      e instanceof ExecUsageError ||
      e instanceof UsageError ||
      (e instanceof Error && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.err(printable(`cctop exec: ${e.message}`, PLAIN));
      return EXIT.usage;
    }
    throw e;
  }
  if (parsed === 'help') {
    io.out(HELP);
    return EXIT.ok;
  }
  const p = paint(io.isTty, io.env);
  // The last step of every line this command writes from here on: whatever a field let through,
  // nothing but cctop's own colours reaches the terminal.
  const shown: Io = {
    ...io,
    out: (s) => io.out(typeof s === 'string' ? printable(s, p) : s),
    err: (s) => io.err(printable(s, p)),
  };
  // Ctrl-C cancels the runs (their process groups are killed and reaped) and exits 130.
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    if (parsed.all) return await everyAgent(parsed, abort.signal, shown, p);
    return await single(parsed.agents[0]!, parsed, abort.signal, shown, p);
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
