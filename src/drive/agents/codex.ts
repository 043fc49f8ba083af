/**
 * Codex, headless: `codex exec --json`, or `codex app-server` for a run with approvals or mid-run
 * input (`codex-app-server.ts`).
 *
 * Shapes verified against codex-cli 0.145.0 by the reference driver, replayed here from real 0.46.0
 * captures, and recorded from codex-cli 0.169.0 in the conformance lab: `thread.started` opens with
 * `thread_id`; every item arrives as `item.started` (in progress, empty output) and then
 * `item.completed`; `turn.completed` carries the thread's running usage (not the turn's: see
 * `codex-thread.ts`, which also works out this run's share); `turn.failed` carries the upstream
 * error, double-encoded, with exit code 0.
 *
 * Deliberately unknown: the context size. `turn.completed` sums every request the turn made, so a
 * turn with one tool call counts the conversation twice; reporting that sum as the context would
 * be the exact mistake the Claude reader refuses to make. Codex reports no usage mid-turn either,
 * so it never emits `usage` events. Mid-run input and approvals need a channel back, which `exec`
 * does not have: such runs go through `codex app-server` instead, whose per-call counts do give the
 * context figure.
 */
import { count, type JsonObject, obj, str } from '../../model/json.js';
import { codexTokens } from '../../providers/codex/thread.js';
import { boundText, usableId } from '../bounds.js';
import type { Event } from '../events.js';
import type { Dialect, ParseState, Terminal } from '../parser.js';
import { type Plan, withSystem } from '../request.js';
import { CodexAppServer, SANDBOX_MODE } from './codex-app-server.js';
import { codexBaseline, runShare } from './codex-thread.js';
import { codexConfiguredKey } from './credential-files.js';
import {
  type AgentSpec,
  type Baseline,
  baselineOf,
  type Invocation,
  NOT_LOGGED_IN,
  promptOnStdin,
} from './spec.js';

const TOOL_ITEMS = new Set(['command_execution', 'mcp_tool_call', 'file_change', 'web_search']);

/**
 * The tool an item stands for, by the name the model called it, which is the name cctop's session
 * document gives the same call. `command_execution` is the item's type; Codex 0.169's shell tool is
 * `exec_command`. known limit: older Codex called its shell `shell`, which the exec stream cannot tell
 * apart; the items not listed keep their type (or an MCP call its `tool`), having no verified name.
 */
const TOOL_NAMES: Readonly<Record<string, string>> = { command_execution: 'exec_command' };

/**
 * Codex forwards an upstream failure verbatim, so `turn.failed` carries
 * `{"type":"error","status":400,"error":{"message":"…"}}` as a string. The caller wants the sentence
 * and the status, not an envelope of JSON; anything not of that shape passes through untouched.
 */
export function unwrapErrorBody(message: string): { status: number | null; message: string } {
  let body: JsonObject | null = null;
  try {
    body = obj(JSON.parse(message));
  } catch {
    body = null;
  }
  if (body === null) return { status: null, message };
  const status = count(body.status);
  const inner = str(obj(body.error)?.message);
  return { status: status !== null && Number.isInteger(status) ? status : null, message: inner ?? message };
}

/** A tool item's arguments in whatever shape that item uses. */
function toolInput(item: JsonObject, type: string): unknown {
  if (type === 'command_execution') return { command: item.command ?? null };
  if (type === 'mcp_tool_call') return item.arguments ?? null;
  // `file_change` has `changes`, `web_search` a `query`: no single argument field, so the item stands in.
  return item;
}

function item(r: JsonObject, s: ParseState): Event[] {
  const it = obj(r.item);
  if (it === null) return [];
  const type = str(it.type) ?? '';
  const id = str(it.id);
  const done = r.type === 'item.completed';
  switch (type) {
    case 'agent_message': {
      if (!done) return [];
      const text = str(it.text) ?? '';
      // A turn can hold several messages; the last one to settle is the answer.
      s.terminal.text = text;
      return [{ kind: 'text', text }];
    }
    case 'reasoning': {
      const text = str(it.text);
      return done && text !== null ? [{ kind: 'thinking', text }] : [];
    }
    default: {
      if (!TOOL_ITEMS.has(type)) return [];
      const out: Event[] = [];
      const name = TOOL_NAMES[type] ?? str(it.tool) ?? type;
      // Each item is reported at least twice; announce the call on first sighting only. An item the
      // pending map could not hold (its budget spent) is announced again on completion: a deliberate
      // limit, since the alternative is an unbounded map of everything ever seen.
      const first = id === null || !s.tools.has(id);
      if (first) {
        if (id !== null && !done) s.tools.remember(id, name);
        out.push({ kind: 'tool_call', id, name, input: toolInput(it, type) });
      }
      // Only the finished record has real output; the in-progress one has "" and a null exit code.
      if (done) {
        if (id !== null) s.tools.forget(id);
        const code = it.exit_code;
        out.push({
          kind: 'tool_result',
          id,
          ok: typeof code === 'number' ? code === 0 : null,
          output: str(it.aggregated_output) ?? '',
        });
      }
      return out;
    }
  }
}

export const codexDialect: Dialect = {
  recognizes: (type) =>
    type === 'error' || type.startsWith('thread.') || type.startsWith('turn.') || type.startsWith('item.'),
  modelOf: () => null,
  read(r, s) {
    const tid = str(r.thread_id);
    if (tid !== null && usableId(tid)) s.terminal.session ??= tid;
    const t = s.terminal;
    switch (str(r.type)) {
      case 'turn.completed':
        s.seen.turns++;
        // The thread's running total; this run's share needs the baseline, so `settle` works it out.
        t.threadUsage = codexTokens(r.usage);
        return [];
      case 'turn.failed': {
        s.seen.turns++;
        t.stop = { kind: 'error' };
        const message = str(obj(r.error)?.message);
        if (message !== null) {
          const unwrapped = unwrapErrorBody(message);
          t.errorStatus = unwrapped.status;
          t.errorMessage = boundText(unwrapped.message);
        }
        return [];
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return item(r, s);
      case 'error': {
        // Not the turn failing (that is `turn.failed`): Codex saying why the run is not moving yet,
        // "Reconnecting... 2/5 (…)", then "waiting for network" for a minute or more. Said at once,
        // a run with no network explains itself instead of printing nothing.
        const message = str(r.message);
        return message === null ? [] : [{ kind: 'notice', text: message }];
      }
      default:
        return [];
    }
  },
};

/**
 * Whether a run goes through `codex app-server`: only it can ask before a tool runs or take input
 * mid-run. Every other run keeps `codex exec`, the one verified longest.
 */
export const usesAppServer = (plan: Pick<Plan, 'interactive'>): boolean => plan.interactive;

/**
 * The command line for a plan. Under `exec`, `default` passes no sandbox, so Codex applies its own:
 * `sandbox_mode` from its config.toml, and with none a read-only sandbox that never asks (codex-cli
 * 0.169.0's exec recorded `approval_policy` never, `sandbox_policy` read-only); `bypass` has a flag
 * of its own. Under the app server, everything goes in JSON-RPC requests instead.
 */
function invocation(plan: Plan, schemaFile: string | null): Invocation {
  if (usesAppServer(plan)) {
    return {
      args: ['app-server'],
      stdin: { kind: 'none' },
      env: {},
      conversation: (host) => new CodexAppServer(plan, host),
    };
  }
  const args = ['exec'];
  const session = plan.session;
  if (session.kind === 'resume') args.push('resume', session.id);
  args.push('--skip-git-repo-check');
  if (plan.permission === 'bypass') args.push('--dangerously-bypass-approvals-and-sandbox');
  else {
    const mode = SANDBOX_MODE[plan.permission];
    // `exec resume` takes no --sandbox flag; the same setting goes in as configuration.
    if (mode !== null && session.kind === 'resume') args.push('-c', `sandbox_mode="${mode}"`);
    else if (mode !== null) args.push('--sandbox', mode);
  }
  if (plan.model !== null) args.push('--model', plan.model);
  if (plan.effort !== null) args.push('-c', `model_reasoning_effort="${plan.effort}"`);
  if (schemaFile !== null) args.push('--output-schema', schemaFile);
  for (const dir of plan.addDirs) args.push('--add-dir', dir);
  if (plan.format === 'stream') args.push('--json');
  const prompt = withSystem(plan);
  if (promptOnStdin(prompt)) {
    args.push('-');
    return { args, stdin: { kind: 'prompt', text: prompt }, env: {} };
  }
  args.push(prompt);
  return { args, stdin: { kind: 'none' }, env: {} };
}

/**
 * Under `exec`, this run's usage is its share of the thread's running total; the app server counted
 * the run's own calls as they came. With a schema, Codex's answer is the conforming JSON itself.
 */
function settle(terminal: Terminal, plan: Plan, baseline: Baseline): Terminal {
  const share =
    terminal.threadUsage === null || usesAppServer(plan) ? null : runShare(terminal.threadUsage, baseline);
  // Under exec, contextTokens stays null (see the module comment). Codex prices nothing: no cost either.
  const t = share === null ? terminal : { ...terminal, usage: { ...terminal.usage, ...share } };
  if (plan.schema === null || t.structured !== null || t.text === '') return t;
  try {
    return { ...t, structured: JSON.parse(t.text) as unknown };
  } catch {
    return t;
  }
}

export const codex: AgentSpec = {
  id: 'codex',
  bin: 'codex',
  installHint:
    'install Codex with `npm install -g @openai/codex` (or `brew install codex`), or pass its path as `bin`',
  loginHint: 'run `codex login`, or set OPENAI_API_KEY',
  caps: {
    fork: false,
    schema: true,
    interactive: true,
    approvals: true,
    mintSession: false,
    thinkingSwitch: false,
  },
  credentials: { names: [], prefixes: ['CODEX_', 'OPENAI_'], configured: codexConfiguredKey },
  dialect: codexDialect,
  schemaInFile: true,
  invocation,
  authFailure: (stderr) => NOT_LOGGED_IN.test(stderr),
  // The app server's per-call counts need no earlier total; only `exec` reads one from the rollout.
  baseline: (plan, env) => (usesAppServer(plan) ? baselineOf(plan) : codexBaseline(plan, env)),
  settle,
};
