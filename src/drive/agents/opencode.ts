/**
 * OpenCode, headless: `opencode run --format json` (JSON lines), the prompt on stdin; or, for a run
 * with approvals, `opencode serve` spoken to over HTTP (`opencode-serve.ts`).
 *
 * Shapes recorded from opencode-ai 1.18.33 in the conformance lab. Every record carries the run's
 * `sessionID`; the rest is one of the session's parts as it settles: `step_start` and `step_finish`
 * bracket one model call (the finish has that call's tokens, cost and finish reason), `text` and
 * `reasoning` are whole parts once they end (not deltas), `tool_use` is a call written once it has
 * finished, input and output together, and `error` is a failed turn (an API error, a model that
 * cannot be found) with OpenCode's error object.
 *
 * There is no record that closes the run: `opencode run` exits once the session goes idle. The turn
 * has settled when its last model call finished for any reason but `tool-calls` (a later step, as
 * after an automatic compaction, reopens it), or when an `error` arrived. A run whose last call asked
 * for tools and got no answer, because a permission was refused headless, ends unsettled.
 *
 * Which transport: `opencode run` by default, the one verified longest, which needs no port and exits by
 * itself; it has no approval channel (it rejects whatever OpenCode's rules would ask, and says so on
 * stderr). A run with `approvals` goes through `opencode serve`, whose HTTP API asks
 * (`permission.asked` events, answered by a POST).
 *
 * What it does not do: no schema, no session id chosen by the caller, no switch for thinking and no
 * mid-run input; those are refused before spawning.
 */
import { join } from 'node:path';
import { count, type JsonObject, num, obj, str } from '../../model/json.js';
import { emptyUsage } from '../../model/usage.js';
import { headBytes, MAX_CAPTURE, usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Event } from '../events.js';
import type { Dialect, ParseState, Terminal } from '../parser.js';
import { type Permission, type Plan, withSystem } from '../request.js';
import { OpenCodeServe } from './opencode-serve.js';
import { SERVER_USER, serverPassword } from './opencode-serve-http.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN } from './spec.js';

/** What OpenCode does about a call: run it, refuse it, or ask (headless, `opencode run` rejects an ask). */
type Action = 'allow' | 'deny' | 'ask';

/** An OpenCode permission rule: one action, or actions by pattern (the last match wins). */
type Rule = Action | Record<string, Action>;

/**
 * What each level adds to OpenCode's own permission rules, through `OPENCODE_PERMISSION`, which
 * 1.18.33 merges over the `permission` of every config file it read. A tool denied outright is not
 * offered to the model at all (the lab's read-only request carried no `bash`), so nothing is refused
 * mid-turn. `edit` covers every tool that writes (`write`, `edit`, `apply_patch`).
 *
 * Only denials: an `allow` here would replace a stricter rule of the user's (`bash: {"rm *": "deny"}`)
 * under the same key. OpenCode's own default allows every tool but reading outside the project, `.env`
 * files and a call repeated in a loop, which it asks about, and headless rejects.
 */
const RULES: Record<Permission, Record<string, Rule>> = {
  'read-only': { edit: 'deny', bash: 'deny' },
  // OpenCode's plan agent still runs commands (1.18.33 allows `*` but edits), so they are denied too.
  plan: { edit: 'deny', bash: 'deny' },
  default: {},
  edit: { bash: 'deny' },
  // OpenCode has no automatic mode of its own: its defaults already edit and run commands in the project.
  auto: {},
  bypass: {},
};

/**
 * What each level adds on a run with approvals (`opencode serve`), where OpenCode's `ask` reaches the
 * caller instead of being rejected: what the level would deny outright but a caller who wants to be
 * asked means to decide (commands under `plan` and `edit`) is asked instead. `default` and `auto`
 * keep OpenCode's own rules, which ask where the user's config says so; `bypass` answers every
 * question itself (`opencode-serve.ts`).
 *
 * known limit: an `ask` here replaces the user's own rule under the same key, so a command the user's
 * config denies by pattern (`bash: {"rm *": "deny"}`) is asked about instead on such a run.
 */
const ASKING: Record<Permission, Record<string, Rule>> = {
  // Never reached: a run with approvals under read-only is refused before spawning (nothing would ask).
  'read-only': RULES['read-only'],
  plan: { edit: 'deny', bash: 'ask' },
  default: {},
  edit: { bash: 'ask' },
  auto: {},
  bypass: {},
};

/**
 * The permission rules for a run: the level's, and the added directories as places outside the
 * project it may use (OpenCode's `external_directory`, the same `<dir>/*` patterns it writes for its
 * own folders). What may be done there is still the level's: read-only denies writing everywhere.
 */
function rulesFor(plan: Plan): Record<string, Rule> {
  const rules: Record<string, Rule> = { ...(plan.approvals ? ASKING : RULES)[plan.permission] };
  if (plan.addDirs.length > 0) {
    rules.external_directory = Object.fromEntries(plan.addDirs.map((d) => [join(d, '*'), 'allow']));
  }
  return rules;
}

/** What a call printed; a call OpenCode could not run (refused, bad arguments) says why instead. */
function toolResult(id: string | null, state: JsonObject | null): Event {
  if (str(state?.status) === 'error')
    return { kind: 'tool_result', id, ok: false, output: str(state?.error) ?? '' };
  // The shell says how its command exited (1.18.33: `metadata.exit` 3 for `exit 3`, with `completed`);
  // a command that was stopped has none, and gets no verdict.
  const metadata = obj(state?.metadata);
  const exit = metadata !== null && 'exit' in metadata ? num(metadata.exit) : undefined;
  const ok = exit === undefined ? true : exit === null ? null : exit === 0;
  return { kind: 'tool_result', id, ok, output: str(state?.output) ?? '' };
}

/**
 * The answer is the text of the last model call, as OpenCode's own default format ends with it: what
 * came before a tool call was a preamble. Held to {@link MAX_CAPTURE} like every answer drive keeps.
 */
function addToAnswer(t: Terminal, text: string): void {
  if (t.text.length >= MAX_CAPTURE) return;
  t.text = headBytes(t.text === '' ? text : `${t.text}\n${text}`, MAX_CAPTURE);
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

/**
 * One model call ended. Its tokens are this run's own (a resumed run's calls count only themselves),
 * so the run's usage is their sum. OpenCode bills reasoning apart from `output`; cctop counts it
 * inside (the lab's 21 out with 7 reasoning reads `output: 14, reasoning: 7`). Its `cost` is the
 * call priced from the model's configured rates; 0 is also what a model without rates gets, so a 0
 * is left unknown rather than read as free.
 */
function stepFinish(part: JsonObject | null, s: ParseState): Event[] {
  const t = s.terminal;
  const reason = str(part?.reason);
  if (reason !== 'tool-calls') {
    s.seen.turns++;
    t.stop = reason === null || reason === 'stop' ? { kind: 'completed' } : { kind: 'other', reason };
  }
  // A part written twice is one call: counted once.
  const id = str(part?.id);
  if (id !== null && s.seen.usageOf === id) return [];
  s.seen.usageOf = id;
  const tokens = obj(part?.tokens);
  const cache = obj(tokens?.cache);
  const input = count(tokens?.input);
  const output = count(tokens?.output);
  const reasoning = count(tokens?.reasoning);
  const cacheRead = count(cache?.read);
  const cacheWrite = count(cache?.write);
  const cost = num(part?.cost);
  const costUsd = cost !== null && cost > 0 ? cost : null;
  const u = t.usage;
  u.input = add(u.input, input);
  u.output = add(u.output, output === null ? null : output + (reasoning ?? 0));
  u.reasoning = add(u.reasoning, reasoning);
  u.cacheRead = add(u.cacheRead, cacheRead);
  u.cacheWrite = add(u.cacheWrite, cacheWrite);
  u.costUsd = add(u.costUsd, costUsd);
  const prompt = input === null ? null : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  if (prompt !== null && prompt > 0) u.contextTokens = prompt;
  if (input === null && cacheRead === null && costUsd === null) return [];
  // `output` stays null in the live event, as for every agent (events.ts says why).
  return [
    {
      kind: 'usage',
      usage: { ...emptyUsage(), input, cacheRead, cacheWrite, contextTokens: prompt, costUsd },
    },
  ];
}

/** A failed turn: OpenCode's error object, `{ name, data: { message, statusCode? } }`. */
function failed(r: JsonObject, s: ParseState): void {
  const t = s.terminal;
  const error = obj(r.error);
  const data = obj(error?.data);
  t.stop = { kind: 'error' };
  t.errorMessage ??= str(data?.message) ?? str(error?.name) ?? 'opencode reported an error';
  t.errorStatus ??= count(data?.statusCode);
  s.seen.turns++;
}

const RECORDS = new Set(['step_start', 'step_finish', 'text', 'reasoning', 'tool_use', 'error']);

export const opencodeDialect: Dialect = {
  recognizes: (type) => RECORDS.has(type),
  // No record names the model; the spec's `settle` fills in the one it was asked to use.
  modelOf: () => null,
  read(r, s): Event[] {
    const t = s.terminal;
    const sid = str(r.sessionID);
    if (sid !== null && usableId(sid)) t.session ??= sid;
    const part = obj(r.part);
    switch (str(r.type)) {
      case 'step_start':
        // A new model call: the answer is its text, and a turn that looked settled goes on.
        t.text = '';
        s.seen.turns = 0;
        return [];
      case 'text': {
        const text = str(part?.text);
        if (!text) return [];
        addToAnswer(t, text);
        return [{ kind: 'text', text }];
      }
      case 'reasoning': {
        const text = str(part?.text);
        return text ? [{ kind: 'thinking', text }] : [];
      }
      case 'tool_use': {
        const id = str(part?.callID) ?? str(part?.id);
        const state = obj(part?.state);
        const call: Event = {
          kind: 'tool_call',
          id,
          name: str(part?.tool) ?? 'tool',
          input: state?.input ?? null,
        };
        return [call, toolResult(id, state)];
      }
      case 'step_finish':
        return stepFinish(part, s);
      case 'error':
        failed(r, s);
        return [];
      default:
        return [];
    }
  },
};

/** The environment both transports share: the run's folder, and the permission rules. */
function envFor(plan: Plan): Record<string, string> {
  const env: Record<string, string> = {
    // 1.18.33 takes the session's folder from PWD before its own working directory, so an inherited
    // PWD would put the session in the caller's folder.
    PWD: plan.cwd,
  };
  const rules = rulesFor(plan);
  if (Object.keys(rules).length > 0) env.OPENCODE_PERMISSION = JSON.stringify(rules);
  return env;
}

/**
 * A run with approvals: `opencode serve` on a loopback port of its choosing (0: 1.18.33 takes 4096
 * when it is free, any free port otherwise), behind a password made for this run.
 */
function serveInvocation(plan: Plan): Invocation {
  if (plan.model !== null && !/^[^/]+\/./.test(plan.model)) {
    throw new DriveError({
      kind: 'invalid_request',
      what: `model "${plan.model}" for OpenCode is provider/model (as \`opencode models\` lists them)`,
    });
  }
  const password = serverPassword();
  return {
    args: ['serve', '--hostname', '127.0.0.1', '--port', '0'],
    stdin: { kind: 'none' },
    env: { ...envFor(plan), OPENCODE_SERVER_PASSWORD: password, OPENCODE_SERVER_USERNAME: SERVER_USER },
    conversation: (host) => new OpenCodeServe(plan, host, opencodeDialect, password),
  };
}

function invocation(plan: Plan): Invocation {
  if (plan.approvals) return serveInvocation(plan);
  const args = ['run'];
  // `--thinking` only adds `reasoning` records; in the default format it prints them as answer lines.
  if (plan.format !== 'text') args.push('--format', 'json', '--thinking');
  if (plan.permission === 'plan') args.push('--agent', 'plan');
  // Approve what OpenCode would ask about (outside the project, `.env`, a loop) instead of rejecting it.
  if (plan.permission === 'bypass') args.push('--auto');
  if (plan.model !== null) args.push('--model', plan.model);
  // OpenCode's reasoning effort is the model's variant; 1.18.33 ignores one the model does not define.
  if (plan.effort !== null) args.push('--variant', plan.effort);
  const session = plan.session;
  switch (session.kind) {
    case 'new':
    case 'mint':
      // `mint` never reaches here: OpenCode makes its own ids, and the caps refuse a chosen one.
      break;
    case 'resume':
      args.push('--session', session.id);
      if (session.fork) args.push('--fork');
      break;
  }
  const env = envFor(plan);
  // Always on stdin: `opencode run` joins its arguments with spaces and wraps any that holds a space
  // in quotes, which the model then sees; from stdin alone the prompt arrives verbatim.
  return { args, stdin: { kind: 'prompt', text: withSystem(plan) }, env };
}

export const opencode: AgentSpec = {
  id: 'opencode',
  bin: 'opencode',
  installHint: 'install OpenCode with `npm install -g opencode-ai`, or pass its path as `bin`',
  loginHint:
    "run `opencode auth login`, or set the provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, …)",
  caps: {
    fork: true,
    schema: false,
    interactive: false,
    // Through `opencode serve`.
    approvals: true,
    mintSession: false,
    thinkingSwitch: false,
  },
  credentials: {
    // OpenCode reaches many providers; these are the keys of the common ones. Others (Bedrock, Azure,
    // Vertex) need `setEnv` or `env: 'inherit'`, or a key stored with `opencode auth login`.
    names: [
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'OPENROUTER_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'GEMINI_API_KEY',
      'GROQ_API_KEY',
      'XAI_API_KEY',
      'DEEPSEEK_API_KEY',
      'MISTRAL_API_KEY',
    ],
    prefixes: ['OPENCODE_'],
  },
  dialect: opencodeDialect,
  schemaInFile: false,
  invocation,
  authFailure: (stderr) => NOT_LOGGED_IN.test(stderr),
  // Each call's tokens are its own: nothing before the run needs reading.
  baseline: baselineOf,
  // The stream never names the model; `--model` is used exactly as given (or the run fails), so it is
  // the run's model. Without it OpenCode's config chose, and the model stays unknown.
  settle: (t, plan) => (t.model === null && plan.model !== null ? { ...t, model: plan.model } : t),
};
