/**
 * An agent's hook payload reduced to one `HookEvent`, and a stored or received event read back.
 *
 * Each agent names the same facts differently (`session_id`, `sessionId`, Codex's `thread-id`,
 * Cursor's `conversation_id`; `cwd`, `directory`, Cursor's `workspace_roots`), so every field is
 * looked up under all the spellings the agents use, first found wins. The payload is hostile text:
 * whatever is not a string of the expected shape reads as null, never as an error.
 *
 * Two kinds of string, two rules. An identifier or a path (session, cwd, tool, permission mode,
 * transcript) is kept whole or not at all: a shortened id resolves to nothing, and an id with control
 * characters in it is no id. A notification, which may be a sentence (`message`), is cleaned of
 * control characters and cut to `MAX_HOOK_FIELD_CHARS`.
 *
 * A payload cut at `MAX_HOOK_INPUT_BYTES` is no longer JSON (Claude Code sends a whole tool result
 * with `PostToolUse`): its top-level strings are still read by a small scanner, so a large result
 * does not cost the event its session.
 *
 * Not here: what an event means (the agent's `providers/<name>/hooks.ts`), reading stdin or argv
 * (`run.ts`), storing or sending the event (`journal.ts`, `runtime/peers.ts`).
 */
import { arr, type JsonObject, num, obj, parseJson, str } from '../model/json.js';
import {
  HOOK_EVENT_VERSION,
  type HookAgent,
  type HookEvent,
  isHookAgent,
  MAX_HOOK_FIELD_CHARS,
} from './types.js';

/**
 * What an event's name may look like: the agents' names are short words (`PreToolUse`,
 * `tool.execute.before`, `agent-turn-complete`). Anything else on the command line is not an event
 * and is not recorded; 64 characters is twice the longest name any agent uses.
 */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

export const isEventName = (s: string): boolean => EVENT_NAME.test(s);

/**
 * Characters that have no place in a table cell: C0 and C1 controls (terminal escapes start with
 * them), and the invisible format characters that reorder or hide text (bidirectional overrides,
 * zero-width marks, line and paragraph separators).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const HAS_UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** An identifier or a path: whole, printable and within the bound, else null. */
function ident(v: unknown): string | null {
  const s = str(v);
  if (s === null || s.length === 0 || s.length > MAX_HOOK_FIELD_CHARS || HAS_UNPRINTABLE.test(s)) return null;
  return s;
}

/** Free text: cleaned of unprintable characters and cut to the bound; empty reads as null. */
function prose(v: unknown): string | null {
  const s = str(v);
  if (s === null) return null;
  let t = s.length > 4 * MAX_HOOK_FIELD_CHARS ? s.slice(0, 4 * MAX_HOOK_FIELD_CHARS) : s;
  t = t.replace(UNPRINTABLE, '').trim();
  if (t.length > MAX_HOOK_FIELD_CHARS) {
    t = t.slice(0, MAX_HOOK_FIELD_CHARS);
    // Never end on half of a surrogate pair.
    const last = t.charCodeAt(t.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) t = t.slice(0, -1);
  }
  return t.length > 0 ? t : null;
}

/** The first key of `keys` whose value reads, in the order given. */
function first(o: JsonObject, keys: readonly string[], read: (v: unknown) => string | null): string | null {
  for (const k of keys) {
    const v = read(o[k]);
    if (v !== null) return v;
  }
  return null;
}

/**
 * Every spelling of each field, as the agents send them. Sessions: Claude Code, Gemini CLI, Qwen
 * Code and Codex's hooks file `session_id`; OpenCode `sessionID`; Copilot `sessionId`; Codex's
 * `notify` `thread-id`; Cursor `conversation_id`. Notifications: Claude Code and Gemini CLI
 * `notification_type` (else the `message`), Codex's `notify` `type`, Cursor's `stop` its `status`.
 */
const SPELLINGS = {
  session: [
    'session_id',
    'sessionId',
    'sessionID',
    'thread-id',
    'thread_id',
    'conversation_id',
    'conversationId',
  ],
  cwd: ['cwd', 'directory'],
  roots: ['workspace_roots', 'workspaceRoots'],
  notification: ['notification_type', 'notificationType', 'type', 'status'],
  message: ['message'],
  tool: ['tool_name', 'toolName', 'tool'],
  permissionMode: ['permission_mode', 'permissionMode'],
  transcript: ['transcript_path', 'transcriptPath'],
} as const;

/** The keys of a tool call's input that say what the call is about, most telling first. */
const INPUT_KEYS = [
  'command',
  'cmd',
  'file_path',
  'filePath',
  'notebook_path',
  'path',
  'url',
  'pattern',
  'query',
];

/**
 * What a tool call is about, from its input (an object, or the JSON text of one, as Gemini CLI sends
 * it): the first of `INPUT_KEYS` that holds text.
 */
function inputOf(o: JsonObject): string | null {
  const raw = o.tool_input ?? o.toolInput ?? o.input;
  const input = obj(typeof raw === 'string' ? parseJson(raw) : raw);
  return input === null ? null : first(input, INPUT_KEYS, prose);
}

/** The first root of a list of workspace roots (Cursor's `workspace_roots`). */
function firstRoot(v: unknown): string | null {
  const a = arr(v);
  return a !== null && a.length > 0 ? ident(a[0]) : null;
}

export interface HookCall {
  agent: HookAgent;
  /** The event's name, already checked with `isEventName`. */
  event: string;
  /** The payload read by `readPayload` (null when there was none, or nothing of it read). */
  payload: JsonObject | null;
  at: number;
  ppid: number | null;
}

/**
 * How far before `cctop hook` ran an agent may say its event happened and still be believed. Hooks
 * started together finish in any order; the agent's own time keeps their order (OpenCode's plugin
 * sends it, Gemini CLI's payloads carry a `timestamp`). A time outside this, or in the future, is a
 * clock gone wrong or a made-up one: the hook's own time is used.
 */
export const HOOK_CLOCK_SKEW_MS = 60_000;

/** When the agent says the event happened (ms), where it says so believably; else `now`. */
function eventTime(o: JsonObject, now: number): number {
  const said = o.event_at_ms ?? o.timestamp;
  const ms = typeof said === 'number' ? said : typeof said === 'string' ? Date.parse(said) : Number.NaN;
  return Number.isFinite(ms) && ms <= now && now - ms <= HOOK_CLOCK_SKEW_MS ? ms : now;
}

/** One hook call as the line every reader of hooks gets. */
export function reduceHook(call: HookCall): HookEvent {
  const o = call.payload ?? {};
  return {
    v: HOOK_EVENT_VERSION,
    at: eventTime(o, call.at),
    agent: call.agent,
    event: call.event,
    session: first(o, SPELLINGS.session, ident),
    cwd: first(o, SPELLINGS.cwd, ident) ?? first(o, SPELLINGS.roots, firstRoot),
    notification: first(o, SPELLINGS.notification, prose) ?? first(o, SPELLINGS.message, prose),
    tool: first(o, SPELLINGS.tool, ident),
    permissionMode: first(o, SPELLINGS.permissionMode, ident),
    transcript: first(o, SPELLINGS.transcript, ident),
    input: inputOf(o),
    ppid: call.ppid !== null && Number.isSafeInteger(call.ppid) && call.ppid > 0 ? call.ppid : null,
  };
}

/**
 * A payload's text as an object: parsed whole when it is JSON, else (a payload cut at the input
 * bound, or one that is not quite JSON) its top-level strings and string lists, as far as they read.
 * Null when nothing does.
 */
export function readPayload(text: string): JsonObject | null {
  const whole = obj(parseJson(text));
  if (whole !== null) return whole;
  const partial = skimTopLevel(text);
  return partial !== null && Object.keys(partial).length > 0 ? partial : null;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\n' || c === '\r' || c === '\t';

/** The index past the JSON string that opens at `i`, or -1 when it does not close. */
function stringEnd(t: string, i: number): number {
  let q = i;
  for (;;) {
    q = t.indexOf('"', q + 1);
    if (q === -1) return -1;
    let k = q - 1;
    while (t.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
  }
}

/** The JSON string that opens at `i`, decoded, and where it ends; null when it does not read. */
function readString(t: string, i: number): { value: string; end: number } | null {
  const end = stringEnd(t, i);
  if (end === -1) return null;
  const value = parseJson(t.slice(i, end));
  return typeof value === 'string' ? { value, end } : null;
}

/** The index past the value that starts at `i` (any JSON value), or -1 when it does not end. */
function valueEnd(t: string, i: number): number {
  const c = t[i];
  if (c === '"') return stringEnd(t, i);
  if (c !== '{' && c !== '[') {
    let j = i;
    while (j < t.length && !isSpace(t[j]) && t[j] !== ',' && t[j] !== '}' && t[j] !== ']') j++;
    return j < t.length ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < t.length; j++) {
    const d = t[j];
    if (d === '"') {
      const e = stringEnd(t, j);
      if (e === -1) return -1;
      j = e - 1;
    } else if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * The top-level string members of a JSON object whose text may be cut short, and the first string of
 * each top-level array: enough for every field a `HookEvent` keeps. Stops at the first thing that does
 * not read; what was read before it is kept. Nested values are stepped over, never read, so a key
 * inside a tool's input is never taken for the payload's own.
 */
function skimTopLevel(t: string): JsonObject | null {
  let i = 0;
  const skip = () => {
    while (isSpace(t[i])) i++;
  };
  skip();
  if (t[i] !== '{') return null;
  i++;
  const out: JsonObject = {};
  for (;;) {
    skip();
    if (t[i] !== '"') return out;
    const key = readString(t, i);
    if (key === null) return out;
    i = key.end;
    skip();
    if (t[i] !== ':') return out;
    i++;
    skip();
    if (t[i] === '"') {
      const s = readString(t, i);
      if (s === null) return out;
      out[key.value] = s.value;
    } else if (t[i] === '[') {
      let j = i + 1;
      while (isSpace(t[j])) j++;
      const s = t[j] === '"' ? readString(t, j) : null;
      if (s !== null) out[key.value] = [s.value];
    }
    const end = valueEnd(t, i);
    if (end === -1) return out;
    i = end;
    skip();
    if (t[i] !== ',') return out;
    i++;
  }
}

/**
 * A `HookEvent` read back from the journal or a peer: a current-version object whose every field
 * has its type and passes the same checks as when it was made, else null. Built field by field, so
 * nothing else the line carried is kept.
 */
export function readHookEvent(v: unknown): HookEvent | null {
  const o = obj(v);
  if (o === null || o.v !== HOOK_EVENT_VERSION) return null;
  const agent = str(o.agent);
  const event = str(o.event);
  const at = num(o.at);
  if (agent === null || !isHookAgent(agent) || event === null || !isEventName(event) || at === null)
    return null;
  const strings = {
    session: optional(o.session, ident),
    cwd: optional(o.cwd, ident),
    notification: optional(o.notification, keptProse),
    tool: optional(o.tool, ident),
    permissionMode: optional(o.permissionMode, ident),
    transcript: optional(o.transcript, ident),
    // Lines written before the field was kept have none.
    input: o.input === undefined ? null : optional(o.input, keptProse),
  };
  if (Object.values(strings).includes(undefined)) return null;
  const ppid = o.ppid === null ? null : num(o.ppid);
  if (o.ppid !== null && (ppid === null || !Number.isSafeInteger(ppid) || ppid <= 0)) return null;
  return {
    v: HOOK_EVENT_VERSION,
    at,
    agent,
    event,
    session: strings.session ?? null,
    cwd: strings.cwd ?? null,
    notification: strings.notification ?? null,
    tool: strings.tool ?? null,
    permissionMode: strings.permissionMode ?? null,
    transcript: strings.transcript ?? null,
    input: strings.input ?? null,
    ppid,
  };
}

/** A notification as it was stored: already what `prose` makes of it. */
function keptProse(v: unknown): string | null {
  const s = str(v);
  return s !== null && prose(s) === s ? s : null;
}

/** A field that may be null: null stays null, a value must read, anything else is undefined (bad). */
function optional(v: unknown, read: (v: unknown) => string | null): string | null | undefined {
  if (v === null) return null;
  const s = read(v);
  return s === null ? undefined : s;
}
