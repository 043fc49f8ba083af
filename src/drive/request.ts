/**
 * What a caller asks for, and the checked, defaulted plan a run is built from.
 *
 * Options an agent cannot honour are refused before anything is spawned, naming the agent and the
 * option, rather than silently dropped: a caller who asked for a schema and got free text back would
 * find out much later and much more confusingly.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AcpAgent } from './acp/request.js';
import { MAX_IDENTIFIER_BYTES, usableId } from './bounds.js';
import type { AuthRequirement } from './credentials.js';
import type { Env, EnvPolicy } from './env.js';
import { DriveError } from './errors.js';
import type { AgentId } from './events.js';
import { AGENTS, isAgentId } from './events.js';
import type { Format } from './parser.js';
import type { SessionStore } from './sessions.js';

/**
 * How much the agent may do without asking. Each agent has its own switches; drive maps these onto
 * them (docs/drive.md has the table).
 * - `read-only` (default): read and search, change nothing, run no commands.
 * - `plan`: the agent's planning mode.
 * - `default`: the agent's own default (ask) mode, as its own settings make it. Headless, nobody is
 *   there to answer, so what it would ask about is refused; a Claude run with `approvals` asks the
 *   caller. Never the default: a request that names no permission stays `read-only`.
 * - `edit`: edit files in the working directory; no shell commands where the agent can tell them apart.
 * - `auto`: the agent's own automatic mode (edits and commands inside its sandbox).
 * - `bypass`: no checks and no sandbox. Only for a throw-away machine.
 */
export const PERMISSIONS = ['read-only', 'plan', 'default', 'edit', 'auto', 'bypass'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const isPermission = (v: string): v is Permission => (PERMISSIONS as readonly string[]).includes(v);

/** A caller's name for a conversation, threaded across runs: drive stores which agent session it is. */
export interface NamedSession {
  name: string;
  /** The project the name belongs to; defaults to the run's working directory. */
  project?: string;
  /** Continue from the named conversation in a new branch; the name then follows the branch. */
  fork?: boolean;
  /** Defaults to the store under `$XDG_STATE_HOME/cctop/sessions`. */
  store?: SessionStore;
}

export interface Request {
  agent: AgentId;
  prompt: string;
  /** The agent's working directory (default: this process's). */
  cwd?: string;
  /** More directories the agent may read and, permission allowing, write. */
  addDirs?: readonly string[];
  /** Passed to the agent verbatim. */
  model?: string;
  /** Reasoning effort, verbatim (`low`, `medium`, `high`, …). */
  effort?: string;
  /** Appended to Claude's system prompt; prepended to the prompt for the others. */
  system?: string;
  permission?: Permission;
  /** A JSON Schema the answer must conform to (Claude, Codex). The result is in `Outcome.structured`. */
  schema?: Record<string, unknown>;
  /** Continue this agent session id. */
  resume?: string;
  /** With `resume`: continue into a new session, leaving the original untouched (Claude). */
  fork?: boolean;
  /** Start a new session with this id (Claude, Copilot). */
  sessionId?: string;
  /** Thread a name across runs instead of handling ids yourself. */
  session?: NamedSession;
  /** Which of the parent's variables the agent sees (default `minimal`). */
  env?: EnvPolicy;
  /** Variables set for the agent whatever the policy. */
  setEnv?: Readonly<Record<string, string>>;
  /** The environment the policy picks from, and whose PATH finds the agent (default `process.env`). */
  parentEnv?: Env;
  /**
   * Run only under this kind of credential: `api-key`, `login` (the CLI's own) or `cloud`. Checked
   * against the agent's environment and config before spawning; refused with `auth_missing` when the
   * agent would use another kind, or drive cannot tell which it uses (docs/drive.md, "Credentials").
   */
  auth?: AuthRequirement;
  /** Stop the run after this long. No default: a long task is not a hung one. */
  timeoutMs?: number;
  /** Aborting cancels the run. */
  signal?: AbortSignal;
  /** The executable to run instead of the agent's usual name on PATH. */
  bin?: string;
  /**
   * Ask before tool calls (`approval_request` events). `true`: the program answers them itself with
   * `respond` (needs `stream()`). `'remote'`: a person answers from a running cctop (the live table
   * or the dashboard), and the program may still answer first; the first answer wins.
   */
  approvals?: boolean | 'remote';
  /**
   * Tell running cctops about this run (docs/protocol.md, "Driven runs"), so it shows in their table
   * and dashboard as driven. On by default; `false` keeps the run to this program. `program` names
   * the driver in their views (default: this script's file name).
   */
  announce?: false | { program?: string };
  /** Keep stdin open for `send()` until the turn settles. Claude; Codex (`codex app-server`); Pi (`pi --mode rpc`). */
  interactive?: boolean;
  /** With `agent: 'acp'`: which Agent Client Protocol agent to run, and how (`src/drive/acp/`). */
  acp?: AcpAgent;
  /** `stream` (default) for events; `text` for plain output, one text event per line. */
  format?: Format;
  /** `false` turns extended thinking off. Claude. */
  thinking?: boolean;
}

/** Which session a run starts in. */
export type SessionPlan =
  | { kind: 'new' }
  /** A new session whose id drive chose, so it is known before the agent starts. */
  | { kind: 'mint'; id: string }
  | { kind: 'resume'; id: string; fork: boolean };

/** A request with its defaults applied and its options checked against the agent. */
export interface Plan {
  agent: AgentId;
  prompt: string;
  system: string | null;
  model: string | null;
  effort: string | null;
  permission: Permission;
  format: Format;
  cwd: string;
  addDirs: string[];
  schema: Record<string, unknown> | null;
  session: SessionPlan;
  approvals: boolean;
  /** stdin stays open (for `send`, and for the approval channel). */
  interactive: boolean;
  thinking: boolean | null;
}

/** What an agent can do beyond a plain prompt. */
export interface Caps {
  fork: boolean;
  schema: boolean;
  /** Mid-run input over stdin (and approvals, unless `approvals` says otherwise). */
  interactive: boolean;
  /** Approvals without mid-run input (ACP agents); absent, the same as `interactive`. */
  approvals?: boolean;
  /** Accepts a session id chosen by the caller. */
  mintSession: boolean;
  thinkingSwitch: boolean;
}

const invalid = (what: string) => new DriveError({ kind: 'invalid_request', what });

function checkId(label: string, id: string | undefined): void {
  if (id === undefined) return;
  if (id === '' || !usableId(id)) {
    throw invalid(`${label} must be 1 to ${MAX_IDENTIFIER_BYTES} bytes (an id is never shortened)`);
  }
  // An id that looks like a flag would be read as one by the agent's argument parser.
  if (id.startsWith('-') || /[\s\0]/.test(id)) throw invalid(`${label} "${id.slice(0, 40)}" is not an id`);
}

/** Check a request against what its agent can do and fill in the defaults. */
export function planRequest(req: Request, caps: Caps): Plan {
  if (!isAgentId(req.agent)) throw invalid(`unknown agent "${String(req.agent)}" (${AGENTS.join(', ')})`);
  const agent = req.agent;
  const unsupported = (what: string) => new DriveError({ kind: 'unsupported', agent, what });
  if (typeof req.prompt !== 'string' || req.prompt.trim() === '') throw invalid('the prompt is empty');
  if (req.prompt.includes('\0')) throw invalid('the prompt contains a NUL byte');
  const permission = req.permission ?? 'read-only';
  if (!isPermission(permission))
    throw invalid(`unknown permission "${String(permission)}" (${PERMISSIONS.join(', ')})`);
  const format = req.format ?? 'stream';
  const approvals = req.approvals === true || req.approvals === 'remote';
  const interactive = approvals || req.interactive === true;
  if (approvals && !(caps.approvals ?? caps.interactive)) {
    throw unsupported('approvals (it has no approval channel in exec mode)');
  }
  if (req.interactive === true && !caps.interactive) throw unsupported('mid-run input');
  if (approvals && permission === 'read-only') {
    throw unsupported('approvals under read-only permission: nothing would be asked; use plan, edit or auto');
  }
  if (interactive && format === 'text')
    throw unsupported('approvals or mid-run input with plain-text output');
  if (req.schema !== undefined && !caps.schema) throw unsupported('an output schema');
  if (req.schema !== undefined && format === 'text')
    throw unsupported('an output schema with plain-text output');
  if (req.thinking === false && !caps.thinkingSwitch) throw unsupported('turning thinking off');
  checkId('resume', req.resume);
  checkId('sessionId', req.sessionId);
  if (req.resume !== undefined && req.sessionId !== undefined) {
    throw invalid('resume and sessionId are exclusive: one continues a session, the other starts one');
  }
  if (req.fork === true && req.resume === undefined)
    throw invalid('fork needs resume (which session to fork)');
  if (req.fork === true && !caps.fork) throw unsupported('forking a session');
  if (req.sessionId !== undefined && !caps.mintSession) throw unsupported('choosing the session id');
  if (req.session !== undefined && (req.resume !== undefined || req.sessionId !== undefined)) {
    throw invalid('a named session chooses its own id; drop resume / sessionId');
  }
  if (req.timeoutMs !== undefined && !(Number.isFinite(req.timeoutMs) && req.timeoutMs > 0)) {
    throw invalid(`timeoutMs must be a positive number of milliseconds (got ${req.timeoutMs})`);
  }
  const cwd = resolve(req.cwd ?? process.cwd());
  const dirs = (req.addDirs ?? []).map((d) => resolve(cwd, d));
  for (const d of [cwd, ...dirs]) {
    if (!existsSync(d) || !statSync(d).isDirectory()) throw invalid(`${d} is not a directory`);
  }
  const session: SessionPlan =
    req.resume !== undefined
      ? { kind: 'resume', id: req.resume, fork: req.fork === true }
      : req.sessionId !== undefined
        ? { kind: 'mint', id: req.sessionId }
        : { kind: 'new' };
  const text = (v: string | undefined) => (v === undefined || v === '' ? null : v);
  for (const [label, v] of [
    ['model', req.model],
    ['effort', req.effort],
  ] as const) {
    // Codex takes effort inside a TOML value, where a quote would end it; a leading dash reads as a flag.
    if (v !== undefined && (v.startsWith('-') || /[\s\0"'\\]/.test(v))) {
      throw invalid(`${label} "${v}" is not a name`);
    }
  }
  return {
    agent,
    prompt: req.prompt,
    system: text(req.system),
    model: text(req.model),
    effort: text(req.effort),
    permission,
    format,
    cwd,
    addDirs: dirs,
    schema: req.schema ?? null,
    session,
    approvals,
    interactive,
    thinking: req.thinking ?? null,
  };
}

/** The prompt with a system prompt in front, for agents that have no flag for one. */
export const withSystem = (p: Plan): string => (p.system === null ? p.prompt : `${p.system}\n\n${p.prompt}`);
