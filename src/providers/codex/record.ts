/**
 * The part of a Codex rollout line that session facts need, and how to read it from a parsed line.
 *
 * Rollout lines are `{timestamp, type, payload}`. Only a handful of kinds matter for the session
 * table: the session's identity (`session_meta`), its model (`turn_context`), token counts, tool
 * calls and their outputs, and the events that start or end a turn.
 */
import { count, isoMs, type JsonObject, num, obj, parseJson, str, text } from '../../model/json.js';
import { type CodexPolicy, codexPolicy } from './permission.js';

export interface CodexTokenUsage {
  /** Includes the cached part, as Codex reports it. */
  input: number;
  cached: number;
  output: number;
  /** Inside `output`. */
  reasoning: number;
  total: number;
}

/** Whether two counts are the same event written again (Codex repeats a `token_count` verbatim). */
export const sameUsage = (a: CodexTokenUsage, b: CodexTokenUsage): boolean =>
  a.input === b.input &&
  a.cached === b.cached &&
  a.output === b.output &&
  a.reasoning === b.reasoning &&
  a.total === b.total;

export type CodexLine =
  | {
      kind: 'meta';
      ms: number | null;
      id: string | null;
      cwd: string | null;
      branch: string | null;
      /** The thread that spawned this one, when it is a subagent's (`spawnedBy`). */
      parent: string | null;
    }
  | {
      kind: 'context';
      ms: number | null;
      model: string | null;
      effort: string | null;
      cwd: string | null;
      /** The turn's approval and sandbox policies, when it names them. */
      policy: CodexPolicy | null;
    }
  | {
      kind: 'tokens';
      ms: number | null;
      /** The raw timestamp string, part of the event's identity. */
      stamp: string;
      last: CodexTokenUsage | null;
      total: CodexTokenUsage | null;
      window: number | null;
      rateLimits: unknown;
    }
  | { kind: 'call'; ms: number | null; id: string | null; name: string }
  | { kind: 'output'; ms: number | null; id: string | null; failed: boolean }
  | { kind: 'prompt'; ms: number | null; text: string }
  | { kind: 'title'; ms: number | null; text: string }
  | {
      kind: 'turn';
      ms: number | null;
      event: 'started' | 'complete' | 'aborted' | 'error';
      detail: string | null;
    }
  | { kind: 'compaction'; ms: number | null; marker: 'compacted' | 'event' }
  | { kind: 'rate_limits'; ms: number | null; rateLimits: unknown }
  | { kind: 'window'; ms: number | null; window: number }
  /** Something the model wrote besides a call (words, reasoning, a hosted tool's search). */
  | { kind: 'said'; ms: number | null }
  | { kind: 'activity'; ms: number | null }
  | { kind: 'other'; ms: number | null };

/**
 * The thread a session was spawned by, from its `session_meta`'s `source`: a subagent's reads
 * `{"subagent": {"thread_spawn": {"parent_thread_id": …, "depth": …, "agent_role": …}}}` (Codex's
 * `SessionSource::SubAgent(SubAgentSource::ThreadSpawn)`); a session the person started reads `"cli"`,
 * `"vscode"`, `"exec"`, and the harness's other subagents (`"review"`, `"compact"`) name no parent.
 */
export function spawnedBy(source: unknown): string | null {
  const spawn = obj(obj(obj(source)?.subagent)?.thread_spawn);
  return spawn ? text(spawn.parent_thread_id) : null;
}

/** A window of 0 is a placeholder, not a window. */
export const positive = (v: unknown): number | null => {
  const n = count(v);
  return n !== null && n > 0 ? n : null;
};

function tokenUsage(v: unknown): CodexTokenUsage | null {
  const u = obj(v);
  if (!u) return null;
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input === null && output === null) return null;
  const cached = count(u.cached_input_tokens) ?? 0;
  const reasoning = count(u.reasoning_output_tokens) ?? 0;
  return {
    input: input ?? 0,
    cached,
    output: output ?? 0,
    reasoning,
    total: count(u.total_tokens) ?? (input ?? 0) + (output ?? 0),
  };
}

/**
 * The exit status line of a shell call's output: `Exit code: N` (the `shell` tool) or, from Codex
 * 0.16x's `exec_command`, `Process exited with code N` after its chunk and wall-time lines.
 */
const EXIT_LINE = /^(?:Exit code:|Process exited with code) (-?\d+)/m;

/**
 * The sandbox a turn ran in: `{mode}` in early versions, `{type}` from 0.77 on (`read-only`,
 * `workspace-write`, `danger-full-access`), or a bare string.
 */
export function sandboxName(policy: unknown): string | null {
  const o = obj(policy);
  return o ? (str(o.type) ?? str(o.mode)) : str(policy);
}

/** Whether a tool's output says it failed. */
export function outputFailed(output: unknown): boolean {
  if (typeof output === 'string') {
    const s = output.trimStart();
    if (s.startsWith('{')) {
      // Not JSON after all (or too deep to read): judged as text.
      const meta = obj(obj(parseJson(s))?.metadata);
      const code = meta ? num(meta.exit_code) : null;
      if (code !== null) return code !== 0;
    }
    const exit = EXIT_LINE.exec(s.slice(0, 200));
    if (exit) return exit[1] !== '0';
    return /^(failed in sandbox|execution error|patch rejected|script failed|error:|aborted)/i.test(s);
  }
  const o = obj(output);
  if (o && o.success === false) return true;
  return false;
}

/**
 * The text of a `response_item` user message when it is something the user typed, else null. Codex
 * also sends its own context as user messages (the environment, AGENTS.md, skills); 0.16x marks
 * each message's kinds (`user.text`), older versions are told by the envelope the text opens with.
 * From 0.169 this is the only record of a prompt: no `event_msg` `user_message` is written.
 */
export function typedPrompt(p: JsonObject): string | null {
  if (p.role !== 'user') return null;
  const words: string[] = [];
  for (const c of Array.isArray(p.content) ? p.content : []) {
    const t = str(obj(c)?.text);
    if (t !== null) words.push(t);
  }
  const joined = words.join('\n').trim();
  if (joined.length === 0) return null;
  const kinds = obj(p.internal_chat_message_metadata_passthrough)?.content_item_kinds;
  if (Array.isArray(kinds)) return kinds.includes('user.text') ? joined : null;
  return CONTEXT_ENVELOPE.test(joined) ? null : joined;
}

/** How Codex's own context messages open, in versions that do not mark their kinds. */
const CONTEXT_ENVELOPE =
  /^(<environment_context>|<user_instructions>|<skills_instructions>|<INSTRUCTIONS>|<user_shell_command>|<turn_aborted>|# AGENTS\.md instructions)/;

const TURN_EVENTS: Record<string, 'started' | 'complete' | 'aborted' | 'error'> = {
  task_started: 'started',
  turn_started: 'started',
  task_complete: 'complete',
  turn_complete: 'complete',
  turn_aborted: 'aborted',
  error: 'error',
  stream_error: 'error',
};

/**
 * Items the model writes besides its calls and their outputs (Codex's own items, such as
 * `ghost_snapshot`, are not): they show that a response is being written before its usage.
 */
export const SAID_ITEMS: ReadonlySet<string> = new Set([
  'reasoning',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
]);

/** The tool name Codex gives the shell it runs for a `local_shell_call` item. */
export const LOCAL_SHELL = 'local_shell';

/** Event payload types that `lineFrom` reads anything from; every other event is plain activity. */
export const READ_EVENTS: ReadonlySet<string> = new Set([
  'token_count',
  'user_message',
  'thread_name_updated',
  'context_compacted',
  'account/rateLimits/updated',
  'thread_settings_applied',
  ...Object.keys(TURN_EVENTS),
]);

const IDE_REQUEST = '## My request for Codex:';

/** The user's words from a `user_message`, without the IDE context the extension prepends. */
export function userWords(message: string): string {
  const at = message.indexOf(IDE_REQUEST);
  return at === -1 ? message : message.slice(at + IDE_REQUEST.length);
}

function metaLine(ms: number | null, p: JsonObject): CodexLine {
  const parent = spawnedBy(p.source);
  return { kind: 'meta', ms, id: text(p.id), cwd: text(p.cwd), branch: text(obj(p.git)?.branch), parent };
}

export function lineFromJson(o: JsonObject): CodexLine {
  return lineFrom(str(o.type), str(o.timestamp), isoMs(o.timestamp), obj(o.payload) ?? {});
}

/**
 * A line from its parts: the record type, its timestamp (as written, and as milliseconds) and its
 * (parsed) payload.
 */
export function lineFrom(
  type: string | null,
  timestamp: string | null,
  ms: number | null,
  p: JsonObject,
): CodexLine {
  const stamp = timestamp ?? '';
  const ptype = str(p.type);
  switch (type) {
    case 'session_meta':
      return metaLine(ms, p);
    case 'turn_context': {
      const sandbox = sandboxName(p.sandbox_policy);
      const approval = str(p.approval_policy);
      return {
        kind: 'context',
        ms,
        model: text(p.model),
        effort: text(p.effort) ?? text(p.reasoning_effort),
        cwd: text(p.cwd),
        policy: codexPolicy(approval, sandbox),
      };
    }
    case 'compacted':
      return { kind: 'compaction', ms, marker: 'compacted' };
    case 'response_item':
      switch (ptype) {
        case 'function_call':
        case 'custom_tool_call': {
          const name = text(p.name);
          return name ? { kind: 'call', ms, id: text(p.call_id), name } : { kind: 'activity', ms };
        }
        case 'local_shell_call':
          return { kind: 'call', ms, id: text(p.call_id), name: LOCAL_SHELL };
        case 'function_call_output':
        case 'custom_tool_call_output':
          return { kind: 'output', ms, id: text(p.call_id), failed: outputFailed(p.output) };
        case 'message': {
          if (p.role === 'assistant') return { kind: 'said', ms };
          const typed = typedPrompt(p);
          return typed !== null ? { kind: 'prompt', ms, text: userWords(typed) } : { kind: 'activity', ms };
        }
        default:
          return ptype !== null && SAID_ITEMS.has(ptype) ? { kind: 'said', ms } : { kind: 'activity', ms };
      }
    case 'event_msg': {
      if (ptype === 'token_count') {
        const info = obj(p.info);
        return {
          kind: 'tokens',
          ms,
          stamp,
          last: tokenUsage(info?.last_token_usage),
          total: tokenUsage(info?.total_token_usage),
          window: positive(info?.model_context_window),
          rateLimits: obj(p.rate_limits),
        };
      }
      if (ptype === 'user_message') {
        const message = str(p.message);
        return message ? { kind: 'prompt', ms, text: userWords(message) } : { kind: 'activity', ms };
      }
      if (ptype === 'thread_name_updated') {
        const name = text(p.thread_name);
        return name ? { kind: 'title', ms, text: name } : { kind: 'other', ms };
      }
      if (ptype === 'context_compacted') return { kind: 'compaction', ms, marker: 'event' };
      if (ptype === 'account/rateLimits/updated')
        return { kind: 'rate_limits', ms, rateLimits: obj(p.rate_limits) };
      if (ptype === 'thread_settings_applied') {
        const s = obj(p.thread_settings);
        if (s)
          return {
            kind: 'context',
            ms,
            model: text(s.model),
            effort: text(s.reasoning_effort),
            cwd: text(s.cwd),
            policy: null,
          };
      }
      const turn = ptype ? TURN_EVENTS[ptype] : undefined;
      if (turn) {
        if (turn === 'started') {
          const window = positive(p.model_context_window);
          if (window !== null) return { kind: 'window', ms, window };
        }
        const err = obj(p.error);
        const detail = turn === 'error' ? (str(err?.message) ?? str(p.message)) : str(p.reason);
        return { kind: 'turn', ms, event: turn, detail };
      }
      return { kind: 'activity', ms };
    }
    default:
      return { kind: 'other', ms };
  }
}
