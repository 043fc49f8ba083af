/**
 * Pi, headless: `pi --mode json -p <prompt>` (one JSON event per line); or, for a run that takes
 * input mid-run (`interactive`, `send`), `pi --mode rpc` (`pi-rpc.ts`), whose events are the same.
 *
 * Shapes recorded from @mariozechner/pi-coding-agent 0.73.1 in the conformance lab. The first line
 * is the session header (`{"type":"session","id":…}`); then Pi's own agent events: `message_update`
 * streams the assistant's text and thinking as deltas, `message_end` closes one message (an
 * assistant message is one model call, with that call's `usage` and `stopReason`),
 * `tool_execution_start` and `tool_execution_end` bracket a call by `toolCallId` (`isError` is set
 * for a command that exited non-zero), and `agent_end` closes the run.
 *
 * The turn is settled by the last assistant `message_end`, not by `agent_end`: `agent_end` repeats
 * every message of the run, tool results included, so on a long run it passes `MAX_LINE` and
 * arrives cut (unparsed). An assistant message whose `stopReason` is not `toolUse` ends Pi's loop,
 * as `agent_end` then says, unless Pi retries (`auto_retry_start` after a 429 or a 5xx, or a
 * compaction with `willRetry` after a context overflow), which un-settles it until the next one.
 * known limit: every `message_update` line carries the whole message so far, twice, so the deltas of
 * an answer past about 256 KiB arrive cut and are counted as unparsed; the answer itself is read
 * from `message_end`.
 *
 * What it does not do: Pi has no permission system (it never asks; an extension may), so there is
 * nothing to approve, and no output schema. `sessionId` is refused: Pi picks its own ids and has no
 * flag to take one.
 */
import { arr, count, type JsonObject, num, obj, str } from '../../model/json.js';
import { emptyUsage } from '../../model/usage.js';
import { headBytes, MAX_CAPTURE, usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Event, Stop } from '../events.js';
import type { Dialect, ParseState, Terminal } from '../parser.js';
import { type Permission, type Plan, withSystem } from '../request.js';
import { PiRpc } from './pi-rpc.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN, promptOnStdin } from './spec.js';

/** Pi's tools that read and search only (its `--help` gives this list for read-only use). */
const READING_TOOLS = ['read', 'grep', 'find', 'ls'];

/**
 * `--tools` for each level: an allowlist of Pi's tools (extension tools included, so an extension's
 * writing tool is left out too). Pi has no modes and asks nothing, so `default`, `auto` and `bypass`
 * pass no list: Pi's own default tools (read, bash, edit, write) run without asking, as they do on a
 * terminal.
 */
const TOOLS: Record<Permission, string[] | null> = {
  'read-only': READING_TOOLS,
  // Pi has no planning mode of its own (an extension may add one): the read-only tools.
  plan: READING_TOOLS,
  default: null,
  edit: [...READING_TOOLS, 'edit', 'write'],
  auto: null,
  bypass: null,
};

/** Pi's `--thinking` levels (0.73.1). Any other word is only warned about and ignored, so drive refuses it. */
const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/**
 * A whole session id. Pi matches `--session` and `--fork` by prefix, in this project and then in
 * every other, so a shortened id would continue whichever session happens to start with it.
 */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const RECOGNISED = new Set([
  'session',
  'agent_start',
  'agent_end',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'message_end',
  'tool_execution_start',
  'tool_execution_update',
  'tool_execution_end',
  'queue_update',
  'compaction_start',
  'compaction_end',
  'auto_retry_start',
  'auto_retry_end',
]);

/** The HTTP status at the head of a provider error (`"429 Rate limit reached…"`), where there is one. */
const STATUS_AT_HEAD = /^([45]\d\d)\b/;

/** What a tool result or message says, as text; an image is named, not inlined as base64. */
function contentText(v: unknown): string {
  if (typeof v === 'string') return v;
  const parts: string[] = [];
  for (const raw of arr(v) ?? []) {
    const b = obj(raw);
    if (b === null) continue;
    if (b.type === 'text') parts.push(str(b.text) ?? '');
    else if (b.type === 'image') {
      const mime = str(b.mimeType);
      parts.push(mime === null ? '[image]' : `[image ${mime}]`);
    }
  }
  return parts.join('\n');
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

/**
 * One assistant message's usage: that call's own figures (`input` uncached, `cacheRead`,
 * `cacheWrite`, `output` with any reasoning inside; 0.73.1 keeps no reasoning count). A call Pi got
 * no response for keeps its all-zero placeholder, which is not a count. `cost.total` is Pi's own
 * price; 0 is what a model without a price in Pi's table gets (every custom model unless its
 * `models.json` entry names a cost), so a zero is unknown, not free.
 */
function callUsage(message: JsonObject, s: ParseState): Event[] {
  const u = obj(message.usage);
  const input = count(u?.input);
  const output = count(u?.output);
  const cacheRead = count(u?.cacheRead);
  const cacheWrite = count(u?.cacheWrite);
  const figures = [input, output, cacheRead, cacheWrite];
  if (figures.every((f) => f === null || f === 0)) return [];
  const cost = num(obj(u?.cost)?.total);
  const priced = cost !== null && cost > 0 ? cost : null;
  const prompt = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const t = s.terminal.usage;
  t.input = add(t.input, input);
  t.output = add(t.output, output);
  t.cacheRead = add(t.cacheRead, cacheRead);
  t.cacheWrite = add(t.cacheWrite, cacheWrite);
  t.costUsd = add(t.costUsd, priced);
  // The newest call's whole prompt: what the context holds now.
  if (prompt > 0) t.contextTokens = prompt;
  // `output` stays null in the live event, as for every agent (events.ts says why).
  return [
    {
      kind: 'usage',
      usage: {
        ...emptyUsage(),
        input,
        cacheRead,
        cacheWrite,
        contextTokens: prompt > 0 ? prompt : null,
        costUsd: priced,
      },
    },
  ];
}

/** How an assistant message that ends Pi's loop stopped. */
function stopOf(reason: string | null): Stop {
  switch (reason) {
    case null:
    case 'stop':
      return { kind: 'completed' };
    case 'error':
    case 'aborted':
      return { kind: 'error' };
    default:
      return { kind: 'other', reason };
  }
}

/** An assistant message ended: its call's usage, and, when it ends the loop, the answer. */
function assistantEnd(message: JsonObject, s: ParseState): Event[] {
  const out = callUsage(message, s);
  const reason = str(message.stopReason);
  if (reason === 'toolUse') return out;
  const t = s.terminal;
  const text = contentText((arr(message.content) ?? []).filter((b) => obj(b)?.type === 'text'));
  t.text = headBytes(text, MAX_CAPTURE);
  t.stop = stopOf(reason);
  if (t.stop.kind === 'error') {
    const why =
      str(message.errorMessage) ??
      (reason === 'aborted' ? 'the request was aborted' : 'pi reported an error');
    t.errorMessage = why;
    const status = STATUS_AT_HEAD.exec(why);
    t.errorStatus = status ? Number(status[1]) : null;
  } else {
    // A retry that succeeded leaves no error behind.
    t.errorMessage = null;
    t.errorStatus = null;
  }
  s.seen.turns++;
  return out;
}

/** Pi is trying again after the message that seemed to end the turn: it is not settled yet. */
function unsettle(s: ParseState): void {
  s.seen.turns = Math.max(0, s.seen.turns - 1);
}

/** A streamed piece of the message in progress: visible text and thinking surface. */
function delta(r: JsonObject): Event[] {
  const e = obj(r.assistantMessageEvent);
  const piece = str(e?.delta);
  if (!piece) return [];
  switch (str(e?.type)) {
    case 'text_delta':
      return [{ kind: 'text', text: piece }];
    case 'thinking_delta':
      return [{ kind: 'thinking', text: piece }];
    default:
      return [];
  }
}

export const piDialect: Dialect = {
  recognizes: (type) => RECOGNISED.has(type),
  // The header names no model; each assistant message does.
  modelOf: (r) => {
    const m = obj(r.message);
    return m?.role === 'assistant' ? str(m.model) : null;
  },
  read(r, s): Event[] {
    switch (str(r.type)) {
      case 'session': {
        const id = str(r.id);
        if (id !== null && usableId(id)) s.terminal.session ??= id;
        return [];
      }
      case 'message_update':
        return delta(r);
      case 'message_end': {
        const m = obj(r.message);
        return m !== null && m.role === 'assistant' ? assistantEnd(m, s) : [];
      }
      case 'tool_execution_start': {
        const id = str(r.toolCallId);
        const name = str(r.toolName) ?? 'tool';
        if (id !== null) s.tools.remember(id, name);
        return [{ kind: 'tool_call', id, name, input: r.args ?? null }];
      }
      case 'tool_execution_end': {
        const id = str(r.toolCallId);
        if (id !== null) s.tools.forget(id);
        const ok = typeof r.isError === 'boolean' ? !r.isError : null;
        return [{ kind: 'tool_result', id, ok, output: contentText(obj(r.result)?.content) }];
      }
      case 'compaction_start':
        return [{ kind: 'compaction', compaction: { phase: 'started' } }];
      case 'compaction_end':
        return compactionEnd(r, s);
      case 'auto_retry_start':
        unsettle(s);
        return [];
      default:
        // Lifecycle markers, the tool's partial output, the queue: nothing a caller acts on.
        return [];
    }
  },
};

/** A compaction finished: whether it worked, and whether Pi now tries the failed call again. */
function compactionEnd(r: JsonObject, s: ParseState): Event[] {
  const error = str(r.errorMessage) ?? (r.aborted === true ? 'aborted' : null);
  const ok = error === null && obj(r.result) !== null;
  if (r.willRetry === true) unsettle(s);
  return [{ kind: 'compaction', compaction: { phase: 'finished', ok, error } }];
}

function refuse(what: string): DriveError {
  return new DriveError({ kind: 'unsupported', agent: 'pi', what });
}

/** `--thinking` from the plan's effort and thinking switch. */
function thinkingFlag(plan: Plan): string[] {
  if (plan.effort !== null && !THINKING_LEVELS.includes(plan.effort)) {
    throw refuse(`the effort "${plan.effort}" (Pi's levels: ${THINKING_LEVELS.join(', ')})`);
  }
  if (plan.thinking === false) {
    if (plan.effort !== null && plan.effort !== 'off') {
      throw new DriveError({
        kind: 'invalid_request',
        what: `thinking: false turns Pi's thinking off, and effort "${plan.effort}" asks for some: choose one`,
      });
    }
    return ['--thinking', 'off'];
  }
  return plan.effort === null ? [] : ['--thinking', plan.effort];
}

/** Whether a run goes through `pi --mode rpc`: only it takes input mid-run. */
const usesRpc = (plan: Pick<Plan, 'interactive'>): boolean => plan.interactive;

/** Pi says so when it has no key for the provider it would use (0.73.1). */
const notLoggedIn = (text: string): boolean => NOT_LOGGED_IN.test(text) || /no api key found/i.test(text);

function invocation(plan: Plan): Invocation {
  // Pi has a system-prompt flag, but it reads a file instead when the text names one that exists:
  // in front of the prompt, the text is always the text.
  const prompt = withSystem(plan);
  // A word starting with `@` is a file for Pi to attach, one starting with `-` a flag: both go on
  // stdin, which Pi reads whole as the prompt when it is not a terminal.
  const piped = promptOnStdin(prompt) || prompt.startsWith('@');
  const rpc = usesRpc(plan);
  // Flags first: a prompt in first place that reads `install`, `update` or `config` is a subcommand.
  const args = rpc ? ['--mode', 'rpc'] : ['--mode', plan.format === 'text' ? 'text' : 'json', '-p'];
  const tools = TOOLS[plan.permission];
  if (tools !== null) args.push('--tools', tools.join(','));
  if (plan.model !== null) args.push('--model', plan.model);
  args.push(...thinkingFlag(plan));
  const session = plan.session;
  switch (session.kind) {
    case 'new':
      break;
    case 'mint':
      throw refuse('choosing the session id');
    case 'resume':
      if (!SESSION_ID.test(session.id)) {
        throw new DriveError({
          kind: 'invalid_request',
          what: `resume "${session.id.slice(0, 40)}" is not a whole Pi session id: Pi matches by prefix and would continue whichever session starts with it`,
        });
      }
      args.push(session.fork ? '--fork' : '--session', session.id);
      break;
  }
  if (rpc) {
    // The prompt goes as a command on stdin, where it arrives verbatim whatever it starts with.
    return {
      args,
      stdin: { kind: 'none' },
      env: {},
      conversation: (host) => new PiRpc(prompt, host, piDialect, notLoggedIn),
    };
  }
  if (!piped) args.push(prompt);
  return { args, stdin: piped ? { kind: 'prompt', text: prompt } : { kind: 'none' }, env: {} };
}

export const pi: AgentSpec = {
  id: 'pi',
  bin: 'pi',
  installHint: 'install Pi with `npm install -g @mariozechner/pi-coding-agent`, or pass its path as `bin`',
  loginHint: 'run `pi` and `/login`, or set the provider key Pi names (ANTHROPIC_API_KEY, OPENAI_API_KEY, …)',
  caps: {
    fork: true,
    schema: false,
    // Through `pi --mode rpc` (`send` steers the running turn).
    interactive: true,
    // Pi asks nothing, so there is nothing to approve, though it takes input mid-run.
    approvals: false,
    mintSession: false,
    thinkingSwitch: true,
  },
  credentials: {
    // The keys `pi --help` lists (0.73.1); Pi's own login lives under its home, which HOME finds.
    names: [
      'DEEPSEEK_API_KEY',
      'GEMINI_API_KEY',
      'GROQ_API_KEY',
      'CEREBRAS_API_KEY',
      'XAI_API_KEY',
      'FIREWORKS_API_KEY',
      'OPENROUTER_API_KEY',
      'AI_GATEWAY_API_KEY',
      'ZAI_API_KEY',
      'MISTRAL_API_KEY',
      'MINIMAX_API_KEY',
      'MOONSHOT_API_KEY',
      'OPENCODE_API_KEY',
      'KIMI_API_KEY',
      'AWS_PROFILE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_BEARER_TOKEN_BEDROCK',
      'AWS_REGION',
    ],
    prefixes: ['PI_', 'ANTHROPIC_', 'OPENAI_', 'AZURE_OPENAI_', 'CLOUDFLARE_', 'XIAOMI_'],
  },
  dialect: piDialect,
  schemaInFile: false,
  invocation,
  // 0.73.1 without a key: "No API key found for anthropic." and exit 1, before any event.
  authFailure: notLoggedIn,
  // Each message's usage is that call's own, so the run's usage is its own calls, resumed or not.
  baseline: baselineOf,
  settle: (t: Terminal) => t,
};
