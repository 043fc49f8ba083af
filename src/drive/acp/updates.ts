/**
 * What an ACP agent reports, read into drive's events and the facts known at the end: the
 * `session/update` notifications of a prompt turn, the tool call a permission request is about, and
 * the reply that ends the turn (its `stopReason` and, where the agent gives one, its usage).
 *
 * Shapes from the published protocol (v1), checked against what Gemini CLI 0.61.0 writes in its ACP
 * mode. A tool in ACP has no name, only a `title` written for people (Gemini: the command itself)
 * and a `kind` (`execute`, `edit`, `read`, …), so a call's `name` is its title; its `input` is the
 * agent's `rawInput` when it sends one (Gemini 0.61.0 sends none), else null.
 *
 * A plan arrives whole each time it changes and is passed on whole, as a `plan` event.
 *
 * What it does not read: content that is not text (images, audio, resources), diffs beyond their
 * path, terminals (drive offers none), and anything outside a prompt turn, which the connection
 * decides (a loaded session replays its history as updates; that history is not this run's).
 */
import { arr, count, type JsonObject, num, obj, str } from '../../model/json.js';
import { emptyUsage } from '../../model/usage.js';
import { headBytes, MAX_CAPTURE, usableId } from '../bounds.js';
import type { Event, PlanEntry } from '../events.js';
import { enforceBounds, type PendingTools, type Terminal } from '../parser.js';
import type { Reply } from '../rpc/peer.js';

/** The mutable facts the updates of one run are read against. */
export interface TurnState {
  readonly terminal: Terminal;
  readonly tools: PendingTools;
  /** The command catalogue was reported (once per run, as Claude's is). */
  commandsShown: boolean;
}

/** `cost.currency` drive can report: its outcome counts dollars only. */
const DOLLARS = 'USD';

/**
 * The answer grows by chunks, so it is held to {@link MAX_CAPTURE}, the bound of every answer drive
 * keeps: an agent streaming text for ever must not grow it.
 */
function addToAnswer(t: Terminal, text: string): void {
  if (t.text.length >= MAX_CAPTURE) return;
  t.text = headBytes(t.text + text, MAX_CAPTURE);
}

/** The text of a content block; null for images, audio and resources. */
const textOf = (block: unknown): string | null => {
  const b = obj(block);
  return b !== null && str(b.type) === 'text' ? str(b.text) : null;
};

/**
 * One `session/update`. `inTurn` says whether a prompt is in flight: outside one, only the session's
 * own state (its commands, its context figures) is read, never text or tools.
 */
export function readUpdate(update: unknown, s: TurnState, inTurn: boolean): Event[] {
  const u = obj(update);
  if (u === null) return [];
  const kind = str(u.sessionUpdate);
  switch (kind) {
    case 'available_commands_update':
      return commands(u, s);
    case 'usage_update':
      return contextOf(u, s.terminal);
    default:
      break;
  }
  if (!inTurn) return [];
  switch (kind) {
    case 'agent_message_chunk': {
      const text = textOf(u.content);
      if (!text) return [];
      addToAnswer(s.terminal, text);
      return [enforceBounds({ kind: 'text', text })];
    }
    case 'agent_thought_chunk': {
      const text = textOf(u.content);
      return text ? [enforceBounds({ kind: 'thinking', text })] : [];
    }
    case 'tool_call':
    case 'tool_call_update':
      return readToolCall(u, s);
    case 'plan':
      return [enforceBounds({ kind: 'plan', entries: planOf(u) })];
    default:
      // The prompt echoed back, a mode or title change: not events drive has.
      return [];
  }
}

const STATUSES: readonly PlanEntry['status'][] = ['pending', 'in_progress', 'completed'];
const PRIORITIES: readonly string[] = ['high', 'medium', 'low'];

/** A plan's entries; one with no text or a status ACP does not define is left out. */
function planOf(u: JsonObject): PlanEntry[] {
  return (arr(u.entries) ?? []).flatMap((item) => {
    const e = obj(item);
    const content = str(e?.content);
    const status = STATUSES.find((k) => k === str(e?.status));
    if (!content || status === undefined) return [];
    const p = str(e?.priority);
    const priority = p !== null && PRIORITIES.includes(p) ? (p as PlanEntry['priority']) : null;
    return [{ content, status, priority }];
  });
}

function commands(u: JsonObject, s: TurnState): Event[] {
  if (s.commandsShown) return [];
  const names = (arr(u.availableCommands) ?? []).flatMap((c) => {
    const name = str(obj(c)?.name);
    return name === null ? [] : [name];
  });
  s.commandsShown = true;
  return [enforceBounds({ kind: 'commands', commands: { all: names, skills: [] } })];
}

/**
 * `usage_update`: the context window now (`used` of `size`) and the session's cumulative cost. The
 * cost is the conversation's, not this run's (the agent's spec settles this run's share), so the
 * live event carries only the context figures, which `accumulate` replaces rather than adds.
 */
function contextOf(u: JsonObject, t: Terminal): Event[] {
  const used = count(u.used);
  const size = count(u.size);
  const cost = obj(u.cost);
  const amount = num(cost?.amount);
  if (amount !== null && str(cost?.currency) === DOLLARS) t.threadCostUsd = amount;
  if (used === null && size === null) return [];
  if (used !== null) t.usage.contextTokens = used;
  if (size !== null) t.usage.contextWindow = size;
  const usage = { ...emptyUsage(), contextTokens: used, contextWindow: size };
  return [{ kind: 'usage', usage }];
}

/**
 * A tool call or an update of one (also the `toolCall` of a permission request): `tool_call` the
 * first time its id is seen, `tool_result` once its status is `completed` or `failed`.
 */
export function readToolCall(u: JsonObject, s: TurnState): Event[] {
  const raw = str(u.toolCallId);
  const id = raw !== null && usableId(raw) ? raw : null;
  const out: Event[] = [];
  if (id === null || !s.tools.has(id)) {
    // What came before a call was a preamble: the answer is the text after the last call.
    s.terminal.text = '';
    const name = str(u.title) ?? str(u.kind) ?? 'tool';
    if (id !== null) s.tools.remember(id, name);
    out.push(enforceBounds({ kind: 'tool_call', id, name, input: 'rawInput' in u ? u.rawInput : null }));
  }
  const status = str(u.status);
  if (status === 'completed' || status === 'failed') {
    const execute = str(u.kind) === 'execute';
    if (id !== null) s.tools.forget(id);
    out.push(enforceBounds({ kind: 'tool_result', id, ok: verdict(status, execute), output: outputOf(u) }));
  }
  return out;
}

/**
 * Whether a call worked. `failed` is a call that did not; `completed` is read as success, except
 * for a command: Gemini CLI 0.61.0 says `completed` for `echo lab-fail-out; exit 3`, so for
 * `execute` it says the command ran, not how it exited, and `ok` is null.
 */
const verdict = (status: 'completed' | 'failed', execute: boolean): boolean | null =>
  status === 'failed' ? false : execute ? null : true;

/** What a finished call produced: its text content, the paths of its diffs, else its `rawOutput`. */
function outputOf(u: JsonObject): string {
  const parts: string[] = [];
  for (const item of arr(u.content) ?? []) {
    const c = obj(item);
    if (c === null) continue;
    const type = str(c.type);
    if (type === 'content') {
      const text = textOf(c.content);
      if (text !== null) parts.push(text);
    } else if (type === 'diff') {
      const path = str(c.path);
      if (path !== null) parts.push(`diff ${path}`);
    }
  }
  if (parts.length > 0) return parts.join('\n');
  const raw = u.rawOutput;
  if (raw === undefined || raw === null) return '';
  return typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
}

/** The reasons ACP v1 gives for a turn's end besides `end_turn`, kept as the agent's words. */
const OTHER_STOPS = new Set(['max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

/** The reply that ends a prompt turn: how it stopped, and its usage where the agent gives one. */
export function settlePrompt(reply: Reply, t: Terminal): void {
  if (reply.kind === 'error') {
    t.stop = { kind: 'error' };
    t.errorMessage = reply.message || 'the agent failed the prompt without a message';
    // Gemini CLI 0.61.0 answers a refused model call with its HTTP status as the code (429).
    if (reply.code !== null && reply.code >= 400 && reply.code < 600) t.errorStatus = reply.code;
    return;
  }
  const result = obj(reply.value);
  const stop = str(result?.stopReason);
  if (stop === 'end_turn') t.stop = { kind: 'completed' };
  else if (stop !== null && OTHER_STOPS.has(stop)) t.stop = { kind: 'other', reason: stop };
  else {
    t.stop = { kind: 'error' };
    t.errorMessage = `the agent ended the turn without a known stopReason (${JSON.stringify(stop)})`;
  }
  readTurnUsage(obj(result?.usage), t);
}

/**
 * `usage` on the prompt's reply, which ACP keeps unstable: read as its draft defines it, this turn's
 * tokens with `totalTokens` = input + output + cache read + cache write, so `inputTokens` is the
 * uncached input and `outputTokens` holds the thoughts. known limit: an agent that counts otherwise is
 * read wrong until the protocol settles; Gemini CLI 0.61.0 sends none (its `_meta.quota` folds the
 * cache into input and leaves thoughts out of output, so it is not read at all).
 */
function readTurnUsage(u: JsonObject | null, t: Terminal): void {
  if (u === null) return;
  t.usage.input = count(u.inputTokens);
  t.usage.output = count(u.outputTokens);
  t.usage.cacheRead = count(u.cachedReadTokens);
  t.usage.cacheWrite = count(u.cachedWriteTokens);
  t.usage.reasoning = count(u.thoughtTokens);
}
