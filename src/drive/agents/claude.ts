/**
 * Claude Code, headless: `claude -p … --output-format stream-json --verbose`.
 *
 * Shapes verified against claude 2.1.212 by the reference driver, and the `result` record against
 * 2.1.328 in the conformance lab: `system/init` opens with the session id, model and command
 * catalogue; each `assistant` record carries one content block of one API call together with that
 * call's usage; `user` records carry tool results back; `rate_limit_event` reports quota; `result`
 * closes the turn with the answer, the turn's summed usage, and the session's running totals.
 * Approvals travel over the stream-json control channel (`control_request` / `control_response`)
 * when drive starts it with `--permission-prompt-tool stdio`.
 *
 * The figures (which scope each usage and cost belongs to, and which to trust) are read in
 * `claude-usage.ts`; this module reads everything else and says how to start the CLI.
 *
 * Not read here: `compact_boundary` (it describes the transcript's layout, which drive does not
 * model; the `status` pair already says what a compaction did) and `input_json_delta` fragments (the
 * completed `tool_use` block carries the arguments whole).
 */
import { arr, count, type JsonObject, num, obj, str } from '../../model/json.js';
import { accumulate } from '../../model/usage.js';
import { usableId } from '../bounds.js';
import type { Event, RateLimit, Stop } from '../events.js';
import type { Dialect, ParseState, Terminal } from '../parser.js';
import type { Permission, Plan } from '../request.js';
import { liveUsage, resultUsage, sessionTokens } from './claude-usage.js';
import { claudeReport } from './credentials.js';
import {
  type AgentSpec,
  type Baseline,
  baselineOf,
  type Invocation,
  NOT_LOGGED_IN,
  promptOnStdin,
  type StdinPlan,
} from './spec.js';

const MODE: Record<Permission, string> = {
  'read-only': 'dontAsk',
  plan: 'plan',
  // 2.1.328's --help lists `manual` for it; `default` is still taken and is what `init` reports.
  default: 'default',
  edit: 'acceptEdits',
  auto: 'auto',
  bypass: 'bypassPermissions',
};

/** The tools that change things. `dontAsk` alone still lets allow-listed ones through. */
const READ_ONLY_DENIED = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'mcp__*'];

const RECOGNISED = new Set([
  'system',
  'assistant',
  'user',
  'result',
  'rate_limit_event',
  'stream_event',
  'control_request',
  'control_cancel_request',
]);

/** An `allowed` heartbeat or a refusal, from `rate_limit_info`. */
function rateLimit(v: unknown): RateLimit | null {
  const o = obj(v);
  const status = str(o?.status);
  if (o === null || status === null) return null;
  return {
    status,
    window: str(o.rateLimitType),
    resetsAt: num(o.resetsAt),
    overageStatus: str(o.overageStatus),
    isUsingOverage: typeof o.isUsingOverage === 'boolean' ? o.isUsingOverage : null,
  };
}

function stopFrom(v: unknown): Stop {
  const reason = str(v);
  if (reason === null || reason === 'end_turn' || reason === 'stop' || reason === 'completed') {
    return { kind: 'completed' };
  }
  return { kind: 'other', reason };
}

/**
 * A tool result's content as the model saw it. Text blocks flatten to their text; any other block
 * (an image, a kind added later) stays as its JSON, so nothing a caller inspects silently vanishes.
 */
export function flattenContent(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  const blocks = arr(v);
  if (blocks === null) return JSON.stringify(v);
  return blocks.map((b) => str(obj(b)?.text) ?? JSON.stringify(b)).join('\n');
}

/** The status an API gives a request without a usable credential. */
const HTTP_UNAUTHORIZED = 401;

function contentBlocks(r: JsonObject, s: ParseState, fromAssistant: boolean): Event[] {
  // Without a usable login Claude Code (2.1.328) answers with a synthetic message marked
  // `error: "authentication_failed"` and a result with no `api_error_status`: the API's 401, said
  // only here, so a run that is not logged in exits as one.
  if (fromAssistant && str(r.error) === 'authentication_failed') s.terminal.errorStatus = HTTP_UNAUTHORIZED;
  const out = fromAssistant ? liveUsage(r, s) : [];
  const blocks = arr(obj(r.message)?.content);
  if (blocks === null) return out;
  for (const raw of blocks) {
    const b = obj(raw);
    if (b === null) continue;
    switch (str(b.type)) {
      // Once deltas streamed the text, the completed copy would show every answer twice. Only the
      // assistant speaks here: a `user` record's text is the prompt echoed back, not output.
      case 'text': {
        const text = str(b.text);
        if (fromAssistant && !s.seen.deltas && text !== null) out.push({ kind: 'text', text });
        break;
      }
      case 'thinking': {
        const text = str(b.thinking);
        if (fromAssistant && !s.seen.deltas && text !== null) out.push({ kind: 'thinking', text });
        break;
      }
      case 'tool_use': {
        const name = str(b.name) ?? 'tool';
        const id = str(b.id);
        if (id !== null) s.tools.remember(id, name);
        out.push({ kind: 'tool_call', id, name, input: b.input ?? null });
        break;
      }
      case 'tool_result': {
        const id = str(b.tool_use_id);
        if (id !== null) s.tools.forget(id);
        const ok = typeof b.is_error === 'boolean' ? !b.is_error : null;
        out.push({ kind: 'tool_result', id, ok, output: flattenContent(b.content) });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function names(v: unknown): string[] {
  return (arr(v) ?? []).filter((x): x is string => typeof x === 'string');
}

/** `init` (the catalogue) and `status` (compaction phases). */
function system(r: JsonObject, s: ParseState): Event[] {
  switch (str(r.subtype)) {
    case 'init': {
      // Where its key came from, before anything else here can return: the first init names it.
      s.terminal.credential ??= claudeReport(r.apiKeySource);
      // A compaction re-initialises the session with the same catalogue; a host would redraw an
      // unchanged palette.
      if (s.seen.catalogue) return [];
      const all = names(r.slash_commands);
      // An init that lists nothing is an older CLI, not an agent without commands.
      if (all.length === 0) return [];
      s.seen.catalogue = true;
      return [{ kind: 'commands', commands: { all, skills: names(r.skills) } }];
    }
    case 'status': {
      if (r.status === 'compacting') return [{ kind: 'compaction', compaction: { phase: 'started' } }];
      const result = str(r.compact_result);
      if (result === null) return [];
      return [
        {
          kind: 'compaction',
          compaction: { phase: 'finished', ok: result === 'success', error: str(r.compact_error) },
        },
      ];
    }
    default:
      return [];
  }
}

/** Token-level deltas (`--include-partial-messages`). Only visible text and thinking surface. */
function delta(r: JsonObject, s: ParseState): Event[] {
  const event = obj(r.event);
  if (event === null || event.type !== 'content_block_delta') return [];
  const d = obj(event.delta);
  if (d === null) return [];
  // The deltas always precede the completed message, so one delta proves that message a repeat.
  s.seen.deltas = true;
  const text = str(d.text);
  const thinking = str(d.thinking);
  if (d.type === 'text_delta' && text) return [{ kind: 'text', text }];
  if (d.type === 'thinking_delta' && thinking) return [{ kind: 'thinking', text: thinking }];
  return [];
}

/**
 * A question on the control channel. `can_use_tool` becomes an approval request, verbatim shape from
 * claude 2.1.212: `{"type":"control_request","request_id":"…","request":{"subtype":"can_use_tool",
 * "tool_name":"Bash","input":{…}}}`. Without a usable id the answer could not be routed back, so the
 * question is dropped: a consumer holding a request it can never answer would stall the run.
 */
function control(r: JsonObject, s: ParseState): Event[] {
  const request = obj(r.request);
  const id = str(r.request_id);
  if (request === null || id === null || !usableId(id)) return [];
  const subtype = str(request.subtype) ?? 'unknown';
  if (subtype !== 'can_use_tool') {
    s.control.push({ kind: 'unanswerable', id, subtype });
    return [];
  }
  const input = request.input ?? null;
  s.control.push({ kind: 'approval', id, input });
  return [{ kind: 'approval_request', id, tool: str(request.tool_name) ?? 'unknown', input }];
}

function result(r: JsonObject, s: ParseState): void {
  const t = s.terminal;
  const text = str(r.result);
  if (text !== null) t.text = text;
  // Claude hands the schema-conforming value over as its own field: no re-parsing the answer.
  if ('structured_output' in r) t.structured = r.structured_output ?? null;
  const turn = resultUsage(r, t.model);
  // The newest request's prompt outranks the turn's sum; the sum stays only for older CLIs whose
  // assistant records carried no usage.
  if (s.latestContext !== null) turn.contextTokens = s.latestContext;
  // A run that took more than one message (mid-run input) settles more than once; the turns add up.
  // The cost adds up only while every result states its own: one that does not leaves it unknown.
  const costSoFar = t.usage.costUsd;
  if (s.seen.turns === 0) t.usage = turn;
  else {
    t.usage = accumulate(t.usage, turn);
    t.usage.costUsd = costSoFar === null || turn.costUsd === null ? null : costSoFar + turn.costUsd;
  }
  s.seen.turns++;
  // Running totals: the newest result's replace the rest, never add to them.
  t.threadCostUsd = count(r.total_cost_usd) ?? t.threadCostUsd;
  t.threadUsage = sessionTokens(r.modelUsage) ?? t.threadUsage;
  // `subtype` says "success" even for a failed turn; `is_error` is the field that decides. The
  // explanation is the answer text itself, so `errorMessage` stays empty here.
  if (r.is_error === true) {
    t.stop = { kind: 'error' };
    t.errorStatus = count(r.api_error_status) ?? t.errorStatus;
  } else {
    t.stop = stopFrom(r.stop_reason);
  }
}

export const claudeDialect: Dialect = {
  recognizes: (type) => RECOGNISED.has(type),
  modelOf: (r) => str(r.model),
  read(r, s) {
    // An unusable session id is never captured: it would be bound to a name and resume nothing.
    const sid = str(r.session_id);
    if (sid !== null && usableId(sid)) s.terminal.session ??= sid;
    switch (str(r.type)) {
      case 'rate_limit_event': {
        const limit = rateLimit(r.rate_limit_info);
        if (limit === null) return [];
        s.terminal.rateLimit = limit;
        return [{ kind: 'rate_limit', limit }];
      }
      case 'stream_event':
        return delta(r, s);
      case 'control_request':
        return control(r, s);
      case 'control_cancel_request': {
        const id = str(r.request_id);
        if (id !== null && usableId(id)) s.control.push({ kind: 'withdrawn', id });
        return [];
      }
      case 'assistant':
        return contentBlocks(r, s, true);
      case 'user':
        return contentBlocks(r, s, false);
      case 'system':
        return system(r, s);
      case 'result':
        result(r, s);
        return [];
      default:
        return [];
    }
  },
};

function invocation(plan: Plan): Invocation {
  const args = ['-p'];
  let stdin: StdinPlan;
  if (plan.interactive) stdin = { kind: 'channel', prompt: plan.prompt };
  else if (promptOnStdin(plan.prompt)) stdin = { kind: 'prompt', text: plan.prompt };
  else {
    // Right after `-p`, before any flag that takes a list and would swallow it.
    args.push(plan.prompt);
    stdin = { kind: 'none' };
  }
  if (plan.interactive) args.push('--input-format', 'stream-json', '--include-partial-messages');
  // stream-json under -p refuses to run without --verbose.
  args.push('--output-format', plan.format === 'text' ? 'text' : 'stream-json');
  if (plan.format === 'stream') args.push('--verbose');
  if (plan.approvals) args.push('--permission-prompt-tool', 'stdio');
  args.push('--permission-mode', MODE[plan.permission]);
  if (plan.model !== null) args.push('--model', plan.model);
  if (plan.effort !== null) args.push('--effort', plan.effort);
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
  if (plan.schema !== null) args.push('--json-schema', JSON.stringify(plan.schema));
  for (const dir of plan.addDirs) args.push('--add-dir', dir);
  // Last: it takes every following word as a tool name.
  if (plan.permission === 'read-only') args.push('--disallowedTools', ...READ_ONLY_DENIED);
  return { args, stdin, env: plan.thinking === false ? { MAX_THINKING_TOKENS: '0' } : {} };
}

/**
 * A session this run began has cost exactly its running total, which is what a CLI that states no
 * per-result cost leaves to go by. On a resumed or forked session that total includes the runs
 * before, so there the run's cost stays unknown.
 */
function settle(t: Terminal, _plan: Plan, baseline: Baseline): Terminal {
  if (t.usage.costUsd !== null || baseline.kind !== 'fresh') return t;
  return { ...t, usage: { ...t.usage, costUsd: t.threadCostUsd } };
}

export const claude: AgentSpec = {
  id: 'claude',
  bin: 'claude',
  installHint:
    'install Claude Code with `npm install -g @anthropic-ai/claude-code`, or pass its path as `bin`',
  loginHint: 'run `claude` once and log in with /login, or set ANTHROPIC_API_KEY',
  caps: { fork: true, schema: true, interactive: true, mintSession: true, thinkingSwitch: true },
  credentials: {
    names: [
      'CLAUDE_CONFIG_DIR',
      'AWS_PROFILE',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_BEARER_TOKEN_BEDROCK',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'CLOUD_ML_REGION',
    ],
    prefixes: ['ANTHROPIC_', 'CLAUDE_CODE_'],
  },
  dialect: claudeDialect,
  schemaInFile: false,
  invocation,
  authFailure: (stderr) => NOT_LOGGED_IN.test(stderr),
  baseline: baselineOf,
  settle,
};
