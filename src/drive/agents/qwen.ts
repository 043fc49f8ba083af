/**
 * Qwen Code, headless: `qwen "<prompt>" --output-format stream-json` (JSON lines).
 *
 * Shapes recorded from Qwen Code 0.24.4 in the conformance lab. The records look like Claude's but
 * are not read by Claude's dialect, because the figures mean something else: `system/init` opens
 * with the session id and model; each `assistant` record is one model call, all its content blocks
 * (parallel `tool_use` blocks together) with that call's usage; `user` records carry tool results
 * back, one record per result; `result` closes the run with the answer, or `is_error` and
 * `error.message`.
 *
 * Two things differ from Claude, and both are the reason this is its own dialect:
 * - `input_tokens` is the whole prompt, cache included (OpenAI's `prompt_tokens`: 18006 beside a
 *   `cache_read_input_tokens` of 9003, when the server counted 9003 uncached), so cctop's `input` is
 *   the difference.
 * - The result's `usage` is the session's running total: on a resumed or forked run it includes every
 *   run before (0.24.4, resumed: 54285 input beside a run whose one call was 18163). This run's usage
 *   is the sum of its own `assistant` records, and the result's is the thread's.
 *
 * Not read: reasoning counts (the stream has none; the server's stay in the session file), and
 * `--include-partial-messages` deltas. known limit: drive does not ask for partial messages, so text
 * arrives one model call at a time; the settled message is the same text.
 *
 * Qwen Code has no approval channel headless (`default` mode leaves out the tools that would ask),
 * no effort flag, and its `--json-schema` is unverified (the lab's model never calls the tool it
 * adds), so drive offers none of them.
 */
import { arr, count, type JsonObject, obj, str } from '../../model/json.js';
import { emptyUsage, type TokenCounts } from '../../model/usage.js';
import { usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Event } from '../events.js';
import type { Dialect, ParseState } from '../parser.js';
import type { Permission, Plan } from '../request.js';
import { flattenContent } from './claude.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN, promptOnStdin } from './spec.js';

/** The tools that change things or run commands, as 0.24.4 names them in `system/init`. */
const WRITING_TOOLS = ['run_shell_command', 'write_file', 'edit', 'notebook_edit'];

/**
 * `--approval-mode` for each level. Headless, `default` and `plan` leave out the tools that would
 * ask (0.24.4 sent the lab's `call` script without a shell to call), so nothing waits on a person.
 */
const MODE: Record<Permission, string> = {
  'read-only': 'default',
  plan: 'plan',
  default: 'default',
  edit: 'auto-edit',
  auto: 'auto',
  bypass: 'yolo',
};

const RECOGNISED = new Set(['system', 'assistant', 'user', 'result', 'stream_event']);

/** One call's figures from an `assistant` record's (or the result's) `usage`. */
export function qwenTokens(v: unknown): TokenCounts | null {
  const u = obj(v);
  const prompt = count(u?.input_tokens);
  const cacheRead = count(u?.cache_read_input_tokens);
  const output = count(u?.output_tokens);
  if (prompt === null && cacheRead === null && output === null) return null;
  return {
    // `input_tokens` counts the cached part too (see the module comment).
    input: prompt === null ? null : prompt - Math.min(prompt, cacheRead ?? 0),
    output,
    cacheRead,
    cacheWrite: null,
    reasoning: null,
  };
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

/** An `assistant` record: its call's usage once, then its blocks. */
function assistant(r: JsonObject, s: ParseState): Event[] {
  const out: Event[] = [];
  const message = obj(r.message);
  const tokens = qwenTokens(message?.usage);
  const id = str(message?.id);
  // A call is counted once: a record without an id cannot be told from a repeat, so it is not.
  if (tokens !== null && id !== null && s.seen.usageOf !== id) {
    s.seen.usageOf = id;
    const prompt = count(obj(message?.usage)?.input_tokens);
    // A subagent's prompt is its own conversation, not the window the caller watches.
    if (str(r.parent_tool_use_id) === null && prompt !== null && prompt > 0) s.latestContext = prompt;
    const u = s.terminal.usage;
    u.input = add(u.input, tokens.input);
    u.output = add(u.output, tokens.output);
    u.cacheRead = add(u.cacheRead, tokens.cacheRead);
    // `output` stays null in the live event, as for every agent (events.ts says why).
    out.push({
      kind: 'usage',
      usage: { ...emptyUsage(), input: tokens.input, cacheRead: tokens.cacheRead, contextTokens: prompt },
    });
  }
  for (const raw of arr(message?.content) ?? []) {
    const b = obj(raw);
    switch (str(b?.type)) {
      case 'text': {
        const text = str(b?.text);
        if (text) out.push({ kind: 'text', text });
        break;
      }
      case 'thinking': {
        const text = str(b?.thinking);
        if (text) out.push({ kind: 'thinking', text });
        break;
      }
      case 'tool_use': {
        const call = str(b?.id);
        const name = str(b?.name) ?? 'tool';
        if (call !== null) s.tools.remember(call, name);
        out.push({ kind: 'tool_call', id: call, name, input: b?.input ?? null });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** A `user` record: the tool results the model is sent back. */
function results(r: JsonObject, s: ParseState): Event[] {
  const out: Event[] = [];
  for (const raw of arr(obj(r.message)?.content) ?? []) {
    const b = obj(raw);
    if (b === null || b.type !== 'tool_result') continue;
    const id = str(b.tool_use_id);
    if (id !== null) s.tools.forget(id);
    // 0.24.4 sets `is_error` for a command that exited non-zero ("Exit Code: 3").
    const ok = typeof b.is_error === 'boolean' ? !b.is_error : null;
    out.push({ kind: 'tool_result', id, ok, output: flattenContent(b.content) });
  }
  return out;
}

function result(r: JsonObject, s: ParseState): void {
  const t = s.terminal;
  const text = str(r.result);
  if (text !== null) t.text = text;
  t.threadUsage = qwenTokens(r.usage) ?? t.threadUsage;
  t.usage.durationMs = count(r.duration_ms);
  t.usage.apiDurationMs = count(r.duration_api_ms);
  if (s.latestContext !== null) t.usage.contextTokens = s.latestContext;
  s.seen.turns++;
  if (r.is_error === true) {
    t.stop = { kind: 'error' };
    t.errorMessage = str(obj(r.error)?.message) ?? str(r.subtype);
  } else {
    const subtype = str(r.subtype);
    t.stop =
      subtype === null || subtype === 'success' ? { kind: 'completed' } : { kind: 'other', reason: subtype };
  }
}

export const qwenDialect: Dialect = {
  recognizes: (type) => RECOGNISED.has(type),
  modelOf: (r) => str(r.model) ?? str(obj(r.message)?.model),
  read(r, s) {
    const sid = str(r.session_id);
    if (sid !== null && usableId(sid)) s.terminal.session ??= sid;
    switch (str(r.type)) {
      case 'assistant':
        return assistant(r, s);
      case 'user':
        return results(r, s);
      case 'result':
        result(r, s);
        return [];
      default:
        // `system/init` gives only the session and model, read above; `stream_event` carries
        // `goal_state` bookkeeping, and partial messages drive does not ask for.
        return [];
    }
  },
};

function invocation(plan: Plan): Invocation {
  if (plan.effort !== null) {
    // 0.24.4 has no flag for it (only the interactive `/effort`); dropping it silently would mislead.
    throw new DriveError({ kind: 'unsupported', agent: 'qwen', what: 'a reasoning effort' });
  }
  const piped = promptOnStdin(plan.prompt);
  // Positional and first, before any flag that takes a list and would swallow it. A piped prompt
  // has no positional: Qwen Code reads stdin when it is not a terminal.
  const args = piped ? [] : [plan.prompt];
  args.push('--output-format', plan.format === 'text' ? 'text' : 'stream-json');
  args.push('--approval-mode', MODE[plan.permission]);
  if (plan.model !== null) args.push('--model', plan.model);
  if (plan.system !== null) args.push('--append-system-prompt', plan.system);
  const session = plan.session;
  switch (session.kind) {
    case 'new':
      break;
    case 'mint':
      args.push('--session-id', session.id);
      break;
    case 'resume':
      args.push('--resume', session.id);
      if (session.fork) args.push('--fork-session');
      break;
  }
  // `=` keeps each list flag to one value, so nothing after it is read as a directory or a tool.
  for (const dir of plan.addDirs) args.push(`--include-directories=${dir}`);
  if (plan.permission === 'read-only') for (const tool of WRITING_TOOLS) args.push(`--exclude-tools=${tool}`);
  return { args, stdin: piped ? { kind: 'prompt', text: plan.prompt } : { kind: 'none' }, env: {} };
}

export const qwen: AgentSpec = {
  id: 'qwen',
  bin: 'qwen',
  installHint: 'install Qwen Code with `npm install -g @qwen-code/qwen-code`, or pass its path as `bin`',
  loginHint: 'run `qwen` once and choose an auth type, or set OPENAI_API_KEY (with OPENAI_BASE_URL)',
  caps: { fork: true, schema: false, interactive: false, mintSession: true, thinkingSwitch: false },
  credentials: {
    names: [],
    prefixes: ['QWEN_', 'OPENAI_', 'DASHSCOPE_'],
  },
  dialect: qwenDialect,
  schemaInFile: false,
  invocation,
  authFailure: (stderr) => NOT_LOGGED_IN.test(stderr) || /no auth type is selected/i.test(stderr),
  // The run's usage is summed from its own calls, so nothing before it needs reading.
  baseline: baselineOf,
  settle: (t) => t,
};
