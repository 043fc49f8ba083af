/**
 * `cctop exec`'s command line: the flags, the prompt (an argument, or stdin with `-`), and the
 * request they make for drive. Every mistake is an {@link ExecUsageError} whose message says what
 * to type instead; checking the request against what an agent can do is drive's job, not this one.
 */

import { AUTH_REQUIREMENTS, isAuthRequirement } from '../../drive/credentials.js';
import { AGENTS } from '../../drive/events.js';
import { isPermission, PERMISSIONS, type Request } from '../../drive/request.js';
import { readRegularText } from '../../regular-file.js';
import { APPROVAL_MODES, type ApprovalMode } from './exec-approvals.js';
import { byName, everyInstalled, type Found, fromFlag, type Target } from './exec-targets.js';
import type { Io } from './main.js';
import { parse as parseOptions } from './options.js';

/**
 * The largest prompt read from stdin. Far beyond any prompt a model takes (its window is smaller),
 * it only stops `cctop exec -` from reading an endless pipe into memory.
 */
const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;

/** A JSON Schema for `--schema` is a few KiB; 1 MiB is far past any written by hand or generated. */
const MAX_SCHEMA_BYTES = 1024 * 1024;

export const EXEC_HELP = `cctop exec: run an agent headlessly and print what it does

Usage:
  cctop exec <${AGENTS.join('|')}> [options] <prompt | ->
  cctop exec --acp 'COMMAND' [options] <prompt | ->   any ACP agent, started by COMMAND
  cctop exec NAME [options] <prompt | ->      an ACP agent named in the config file ([acp.NAME])
  cctop exec --all [options] <prompt | ->     every installed agent (and configured ACP agent) at once

Options:
  --json                 events as JSON lines (one result line per agent with --all)
  --acp COMMAND          run an ACP agent: 'goose acp', 'gemini --acp' (split like a shell; none runs)
  -m, --model NAME       the model, passed to the agent verbatim
  --effort LEVEL         reasoning effort (low, medium, high, ...)
  --system TEXT          extra system prompt
  --permission LEVEL     ${PERMISSIONS.join(' | ')} (default read-only)
  -C, --cwd DIR          the agent's working directory
  --add-dir DIR          another directory the agent may use (repeatable)
  --schema FILE          a JSON Schema the answer must follow (claude, codex)
  --resume ID            continue an agent session
  --fork                 with --resume or --session: continue in a new branch (claude, qwen, pi)
  --session NAME         a named session for this project, continued across runs
  --timeout DURATION     stop after 90s, 10m, 1h, ... (default: none)
  --bin PATH             the agent executable to run
  --inherit-env          give the agent this whole environment (default: only what it needs)
  --approvals MODE       ask before tool calls: ask (at this terminal, y/N) | remote (answered from a
                         running cctop: the live table's a/d, the dashboard); permission default
  --auth KIND            run only under this credential: api-key | login | cloud (refused before
                         starting when the agent would use another; exit code 5)
  -h, --help

Exit codes: 0 done, 1 the turn failed, 2 bad arguments, 3 the agent died without a result,
4 not installed, 5 not logged in, 6 rate limited, 7 timed out, 8 could not start, 9 session busy
or conflicting, 130 interrupted.`;

/** A command line `cctop exec` cannot run, with the sentence that says why. */
export class ExecUsageError extends Error {}

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
  // Without waiting, and only a regular file (`regular-file.ts`): a named pipe is not waited on.
  const r = readRegularText(path, MAX_SCHEMA_BYTES);
  if (r.kind === 'missing') throw new ExecUsageError(`--schema ${path}: no such file`);
  if (r.kind === 'not-file') throw new ExecUsageError(`--schema ${path}: it is ${r.what}, not a file`);
  if (r.kind === 'too-large')
    throw new ExecUsageError(`--schema ${path}: larger than ${MAX_SCHEMA_BYTES} bytes`);
  if (r.kind === 'failed') throw new ExecUsageError(`--schema ${path}: ${r.reason}`);
  let value: unknown;
  try {
    value = JSON.parse(r.text);
  } catch (e) {
    throw new ExecUsageError(`--schema ${path}: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ExecUsageError(`--schema ${path}: a JSON Schema is an object`);
  }
  return value as Record<string, unknown>;
}

export interface Parsed {
  /** What to run: one agent, or with `--all` every installed one. */
  agents: Target[];
  /** Who answers the run's approvals (`--approvals`); null: it asks none. */
  approvals: ApprovalMode | null;
  all: boolean;
  json: boolean;
  request: Omit<Request, 'agent' | 'prompt'>;
  prompt: string;
}

/** The flags `cctop exec` takes, as the option table above declares them. */
interface ExecFlags {
  all?: boolean;
  acp?: string;
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
  auth?: string;
  approvals?: string;
  help?: boolean;
}

/** The run `args` ask for, or `help`; throws {@link ExecUsageError} for a command line it cannot run. */
export async function parseExec(args: string[], io: Io): Promise<Parsed | 'help'> {
  // Through the shared parser, so a mistyped flag gets our sentence and the nearest flag, not Node's.
  const parsed = parseOptions(
    args,
    {
      all: { type: 'boolean' },
      acp: { type: 'string' },
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
      auth: { type: 'string' },
      approvals: { type: 'string' },
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
  let agents: Target[];
  if (all) {
    if (values.session !== undefined || values.resume !== undefined || values.bin !== undefined) {
      throw new ExecUsageError('--all runs several agents: --session, --resume and --bin name one');
    }
    if (values.acp !== undefined) throw new ExecUsageError('--all runs every agent: --acp names one');
    agents = everyInstalled(io.env);
  } else {
    const word = values.acp === undefined ? rest.shift() : undefined;
    if (values.acp === undefined && word === undefined)
      throw new ExecUsageError(
        `which agent? cctop exec <${AGENTS.join('|')}|NAME> <prompt>, or --acp 'COMMAND'`,
      );
    const found: Found = values.acp !== undefined ? fromFlag(values.acp) : byName(word!, io.env);
    if (found.kind === 'bad') throw new ExecUsageError(found.why);
    agents = [found.target];
  }
  if (rest.length === 0) throw new ExecUsageError('no prompt (give it as an argument, or - to read stdin)');
  const prompt = rest.length === 1 && rest[0] === '-' ? await readStdin() : rest.join(' ');
  const approvals = approvalsOf(values);
  // Approvals are asked in the agent's own ask mode; read-only would leave nothing to ask.
  const permission = values.permission ?? (approvals === null ? 'read-only' : 'default');
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
    // Running cctops show the run as driven by this command (`docs/drive.md`, "Watching driven runs").
    announce: { program: 'cctop exec' },
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
  if (values.auth !== undefined) {
    if (!isAuthRequirement(values.auth)) {
      throw new ExecUsageError(`--auth ${values.auth}: one of ${AUTH_REQUIREMENTS.join(', ')}`);
    }
    request.auth = values.auth;
  }
  if (approvals !== null) request.approvals = approvals === 'ask' ? true : 'remote';
  return { agents, approvals, all, json: values.json === true, request, prompt };
}

/** `--approvals`, checked: the agents' questions, answered here or from a running cctop. */
function approvalsOf(values: ExecFlags): ApprovalMode | null {
  if (values.approvals === undefined) return null;
  if (!(APPROVAL_MODES as readonly string[]).includes(values.approvals))
    throw new ExecUsageError(`--approvals ${values.approvals}: one of ${APPROVAL_MODES.join(', ')}`);
  return values.approvals as ApprovalMode;
}
