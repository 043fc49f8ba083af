/**
 * Gemini CLI, headless: `gemini -p … --output-format stream-json` (JSON lines).
 *
 * Shapes verified against @google/gemini-cli 0.61.0 in the conformance lab: `init` names the session
 * and model, `message` with `role: "assistant"` and `delta: true` streams text (the prompt comes back
 * as a `user` message, not emitted), `tool_use` and `tool_result` bracket a call by `tool_id`, an
 * `error` record is a warning or a failed stream mid-turn, and `result` closes the run with `status`
 * (`success` or `error` with `error.message`) and `stats`, the run's token counts.
 *
 * What it does not do: Gemini has no schema option, no fork, no effort setting and no channel for
 * approvals or mid-run input. Headless, a tool that would need approval is not offered to the model
 * at all (0.61.0 leaves `run_shell_command` out of the request under `default`), so there is nothing
 * to answer: approvals are `unsupported`, not emulated.
 */
import { count, type JsonObject, obj, str } from '../../model/json.js';
import { headBytes, MAX_CAPTURE, usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Event } from '../events.js';
import type { Dialect, Terminal } from '../parser.js';
import { type Permission, type Plan, withSystem } from '../request.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN, promptOnStdin } from './spec.js';

/**
 * Gemini's `--approval-mode`. Every level also gets `--skip-trust`: headless in a folder the user
 * never trusted, 0.61.0 refuses to run at all (exit 55, "not running in a trusted directory"), which
 * no caller of a headless run can answer. It trusts the folder for this run only, as `claude -p`
 * skips its trust dialog; the folder's own `.gemini` settings then apply.
 */
const PERMISSION_FLAGS: Record<Permission, string[]> = {
  // Gemini's own read-only mode: read and search tools only.
  'read-only': ['--approval-mode', 'plan'],
  plan: ['--approval-mode', 'plan'],
  // Gemini's own settings decide; headless, what it would ask about is not offered.
  default: [],
  edit: ['--approval-mode', 'auto_edit'],
  // Gemini has no sandbox of its own without a container runtime: auto is yolo, as bypass is.
  auto: ['--approval-mode', 'yolo'],
  bypass: ['--approval-mode', 'yolo'],
};

/** The shell tool as the model calls it: its `success` says it ran, not how the command exited. */
const SHELL_TOOL = 'run_shell_command';

export const geminiDialect: Dialect = {
  recognizes: (type) =>
    type === 'init' ||
    type === 'message' ||
    type === 'tool_use' ||
    type === 'tool_result' ||
    type === 'error' ||
    type === 'result',
  modelOf: (r) => str(r.model),
  read(r, s): Event[] {
    const t = s.terminal;
    switch (str(r.type)) {
      case 'init': {
        const id = str(r.session_id);
        if (id !== null && usableId(id)) t.session = id;
        return [];
      }
      case 'message': {
        // The prompt is echoed back as a `user` message: not the assistant's text.
        if (str(r.role) !== 'assistant') return [];
        const text = str(r.content);
        if (!text) return [];
        addToAnswer(t, text);
        return [{ kind: 'text', text }];
      }
      case 'tool_use': {
        // What came before a call was a preamble: the answer is the text of the last model turn,
        // as Gemini's own `--output-format json` gives it.
        t.text = '';
        const id = str(r.tool_id);
        const name = str(r.tool_name) ?? 'tool';
        if (id !== null) s.tools.remember(id, name);
        return [{ kind: 'tool_call', id, name, input: r.parameters ?? null }];
      }
      case 'tool_result': {
        const id = str(r.tool_id);
        const shell = id !== null && s.tools.nameOf(id) === SHELL_TOOL;
        if (id !== null) s.tools.forget(id);
        return [{ kind: 'tool_result', id, ok: toolOk(r, shell), output: toolOutput(r) }];
      }
      case 'error': {
        // `warning` (a loop detected, a hook blocking) leaves the turn going; `error` (an empty or
        // malformed response) ends it with `status: "error"` and no message of its own.
        if (str(r.severity) === 'error') t.errorMessage ??= str(r.message);
        return [];
      }
      case 'result':
        settleResult(r, t);
        s.seen.turns++;
        return [];
      default:
        return [];
    }
  },
};

/**
 * Whether a call worked. `status: "error"` is a call that could not run (refused, bad arguments).
 * A shell command that ran reports `success` whatever it exited with (0.61.0: `exit 3` gives
 * `"status":"success","output":"lab-fail-out"`; only the model is told `Exit Code: 3`), so for the
 * shell `success` says nothing and `ok` is null. known limit: drive does not guess the exit code from
 * the output.
 */
function toolOk(r: JsonObject, shell: boolean): boolean | null {
  const status = str(r.status);
  if (status === 'error') return false;
  if (status === 'success') return shell ? null : true;
  return null;
}

/** What the call printed; for a failed call, the error's message. */
function toolOutput(r: JsonObject): string {
  const output = str(r.output);
  const error = str(obj(r.error)?.message);
  return (str(r.status) === 'error' ? (error ?? output) : (output ?? error)) ?? '';
}

/**
 * The answer grows by deltas, so it is held to {@link MAX_CAPTURE}, the bound of every other answer
 * drive keeps: an agent streaming text forever must not grow it.
 */
function addToAnswer(t: Terminal, text: string): void {
  if (t.text.length >= MAX_CAPTURE) return;
  t.text = headBytes(t.text + text, MAX_CAPTURE);
}

/**
 * `stats` are the run's own (a resumed run starts from zero), summed over every model call of the
 * run. `input` is uncached input, `cached` the cache read, `output_tokens` the visible answer only:
 * 0.61.0 does not print thoughts, but `total_tokens` is prompt + answer + thoughts, so the thoughts
 * are the difference. known limit: the difference would also hold the prompt of Google's server-side
 * tools, which the stream does not tell apart (none in the lab).
 */
function settleResult(r: JsonObject, t: Terminal): void {
  if (str(r.status) === 'error') {
    t.stop = { kind: 'error' };
    t.errorMessage = str(obj(r.error)?.message) ?? t.errorMessage ?? 'gemini reported an error';
  }
  const stats = obj(r.stats);
  if (stats === null) return;
  const prompt = count(stats.input_tokens);
  const answer = count(stats.output_tokens);
  const total = count(stats.total_tokens);
  const thoughts = prompt !== null && answer !== null && total !== null ? total - prompt - answer : null;
  const reasoning = thoughts !== null && thoughts >= 0 ? thoughts : null;
  t.usage.input = count(stats.input);
  t.usage.cacheRead = count(stats.cached);
  t.usage.output = answer === null ? null : answer + (reasoning ?? 0);
  t.usage.reasoning = reasoning;
  t.usage.durationMs = count(stats.duration_ms);
}

function invocation(plan: Plan): Invocation {
  if (plan.effort !== null) {
    throw new DriveError({ kind: 'unsupported', agent: 'gemini', what: 'a reasoning effort' });
  }
  const prompt = withSystem(plan);
  const piped = promptOnStdin(prompt);
  // A piped prompt drops -p: with no prompt argument and stdin not a terminal, Gemini reads stdin.
  const args = piped ? [] : ['-p', prompt];
  args.push('--skip-trust', ...PERMISSION_FLAGS[plan.permission]);
  if (plan.model !== null) args.push('--model', plan.model);
  const session = plan.session;
  if (session.kind === 'mint') args.push('--session-id', session.id);
  else if (session.kind === 'resume') args.push('--resume', session.id);
  for (const dir of plan.addDirs) args.push('--include-directories', dir);
  args.push('--output-format', plan.format === 'text' ? 'text' : 'stream-json');
  return { args, stdin: piped ? { kind: 'prompt', text: prompt } : { kind: 'none' }, env: {} };
}

export const gemini: AgentSpec = {
  id: 'gemini',
  bin: 'gemini',
  installHint: 'install Gemini CLI with `npm install -g @google/gemini-cli`, or pass its path as `bin`',
  loginHint: 'run `gemini` once and sign in, or set GEMINI_API_KEY',
  caps: { fork: false, schema: false, interactive: false, mintSession: true, thinkingSwitch: false },
  credentials: {
    names: [
      'GOOGLE_API_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_LOCATION',
    ],
    prefixes: ['GEMINI_', 'GOOGLE_GENAI_', 'GOOGLE_GEMINI_'],
  },
  dialect: geminiDialect,
  schemaInFile: false,
  invocation,
  authFailure: (stderr) =>
    NOT_LOGGED_IN.test(stderr) || /GEMINI_API_KEY|auth(entication)? method/i.test(stderr),
  // Each run's stats start from zero, resumed or not: there is no thread total to take a share of.
  baseline: baselineOf,
  settle: (t) => t,
};
