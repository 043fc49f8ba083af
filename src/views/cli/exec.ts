/**
 * `cctop exec`: run an agent headlessly from the shell and print what it does.
 *
 *   cctop exec claude "summarise the last commit"        a readable transcript
 *   cctop exec codex --json -                             prompt from stdin, events as JSON lines
 *   cctop exec --all "is there a bug in parse()?"         every installed agent in parallel, one result each
 *
 * A thin view over `cctop/drive`: this module runs the request and chooses the exit code; the
 * command line is read in `exec-args.ts` and the transcript printed by `exec-print.ts`. The exit
 * codes are documented in docs/drive.md and are part of the interface; scripts branch on them.
 *
 * Everything the agent sends is hostile to a terminal (its model, session id, tool names, rate-limit
 * fields and error bodies come from a process that read untrusted pages): each field is made safe to
 * print where it is placed, every line again on its way out, and JSON lines are written with `\u`
 * escapes for the characters a terminal acts on (`../terminal-text.ts`).
 */
import { spec } from '../../drive/agents/index.js';
import { DriveError, type Failure } from '../../drive/errors.js';
import { AGENTS, isBlocking, type Outcome, succeeded } from '../../drive/events.js';
import type { Request } from '../../drive/request.js';
import { run, stream } from '../../drive/run.js';
import { printable, safeText, terminalJson } from '../terminal-text.js';
import { type Paint, PLAIN, paint } from './color.js';
import { type Approver, approverFor } from './exec-approvals.js';
import { EXEC_HELP, ExecUsageError, type Parsed, parseExec } from './exec-args.js';
import { type AllRow, allSummary, describeOutcome, failureJson, Transcript } from './exec-print.js';
import type { Target } from './exec-targets.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';

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
  /** Not logged in, or not under the kind of credential `--auth` requires. */
  notAuthenticated: 5,
  rateLimited: 6,
  timeout: 7,
  spawn: 8,
  /** A named session is busy, bound to another agent, or its store failed. */
  session: 9,
  /** Interrupted (Ctrl-C, SIGTERM) or cancelled. */
  cancelled: 130,
} as const;

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
    case 'protocol':
      return EXIT.failed;
    case 'rate_limited':
      return EXIT.rateLimited;
    case 'not_authenticated':
    case 'auth_missing':
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

/** The request for one target: the command line's, for this agent. */
const requestFor = (t: Target, parsed: Parsed, signal: AbortSignal): Request => ({
  ...parsed.request,
  agent: t.agent,
  ...(t.acp !== undefined && { acp: t.acp }),
  prompt: parsed.prompt,
  signal,
});

async function single(
  target: Target,
  parsed: Parsed,
  signal: AbortSignal,
  io: Io,
  p: Paint,
): Promise<number> {
  const approver = approverFor(parsed.approvals, io, p);
  if (typeof approver === 'string') {
    io.err(p.red(`cctop: ${approver}`));
    return EXIT.usage;
  }
  const r = stream(requestFor(target, parsed, signal));
  const transcript = new Transcript(io, p);
  try {
    for await (const e of r) {
      if (parsed.json) io.out(terminalJson(e));
      else transcript.event(e);
      if (e.kind === 'approval_request') approver?.onApproval(e, r, null);
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
  } finally {
    approver?.close();
  }
}

/** Whether an agent can ask before a tool call (`--approvals`): ACP agents, Claude, Codex and OpenCode. */
function canAsk(t: Target): boolean {
  if (t.agent === 'acp') return true;
  const caps = spec(t.agent).caps;
  return caps.approvals ?? caps.interactive;
}

/** One of `--all`'s runs to its end, its questions put to `approver` under the agent's name. */
async function ranTo(request: Request, approver: Approver | null, who: string): Promise<Outcome> {
  if (request.approvals === undefined || approver === null) return run(request);
  const r = stream(request);
  for await (const e of r) if (e.kind === 'approval_request') approver.onApproval(e, r, who);
  return r.outcome;
}

async function everyAgent(parsed: Parsed, signal: AbortSignal, io: Io, p: Paint): Promise<number> {
  if (parsed.agents.length === 0) {
    io.err(
      `cctop: no agent is installed (looked for ${AGENTS.join(', ')} and the config file's ACP agents on PATH)`,
    );
    return EXIT.notInstalled;
  }
  // One approver for every agent: one terminal, one question on it at a time.
  const approver = approverFor(parsed.approvals, io, p);
  if (typeof approver === 'string') {
    io.err(p.red(`cctop: ${approver}`));
    return EXIT.usage;
  }
  const silent = approver === null ? [] : parsed.agents.filter((t) => !canAsk(t));
  if (silent.length > 0) {
    io.err(
      p.amber(
        `${silent.map((t) => safeText(t.label)).join(', ')} cannot ask before a tool call: run under the same permission without asking (what they would ask about is refused)`,
      ),
    );
  }
  let rows: AllRow[];
  try {
    rows = await Promise.all(
      parsed.agents.map(async (target): Promise<AllRow> => {
        const started = Date.now();
        const agent = target.label;
        const request = requestFor(target, parsed, signal);
        if (!canAsk(target)) delete request.approvals;
        try {
          const outcome = await ranTo(request, approver, agent);
          return { agent, result: { kind: 'outcome', outcome }, ms: Date.now() - started };
        } catch (e) {
          if (!(e instanceof DriveError)) throw e;
          return { agent, result: { kind: 'failure', error: e }, ms: Date.now() - started };
        }
      }),
    );
  } finally {
    approver?.close();
  }
  const codes: number[] = [];
  for (const { agent, result } of rows) {
    if (result.kind === 'outcome') {
      const o = result.outcome;
      codes.push(exitForOutcome(o));
      if (parsed.json) io.out(terminalJson({ agent, outcome: o }));
      else {
        const [head, ...more] = describeOutcome(o, p);
        io.out(`── ${head}`);
        if (o.text !== '') io.out(safeText(o.text));
        for (const line of more) io.out(line);
        io.out('');
      }
      continue;
    }
    codes.push(exitForFailure(result.error.failure));
    if (parsed.json) io.out(terminalJson({ agent, error: failureJson(result.error) }));
    else {
      io.out(p.red(`── ${agent} · ${safeText(result.error.message)}`));
      io.out('');
    }
  }
  if (!parsed.json) for (const line of allSummary(rows, p)) io.out(line);
  // Every agent succeeded, or the first one (in the listed order) that did not says how.
  return codes.find((c) => c !== EXIT.ok) ?? EXIT.ok;
}

/** `cctop exec …`; `args` is everything after the word `exec`. */
export async function execCommand(args: string[], io: Io): Promise<number> {
  let parsed: Parsed | 'help';
  try {
    parsed = await parseExec(args, io);
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
    io.out(EXEC_HELP);
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
