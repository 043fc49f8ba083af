/**
 * What `codex app-server` reports during a turn, read into drive's events and the facts known at the
 * end: the thread items (`item/started`, `item/completed`), the token counts after every model call
 * (`thread/tokenUsage/updated`), and the turn's end (`turn/completed`).
 *
 * Shapes recorded from codex-cli 0.169.0 in the lab (`lab/fixtures/drive/codex-app-server/`). Tools
 * keep the names and arguments `codex exec` gives them (`codex.ts`), so a caller sees the same call
 * whichever way Codex ran: a command is `exec_command` with `{ command }`.
 *
 * Usage differs from `codex exec` in what is known, not in what it means. Each token notification
 * carries the thread's running total and the call just made (`last`); the run's own usage is the sum
 * of its calls, so a resumed run needs no baseline read from the rollout, and the total the server
 * replays when a thread is resumed (stamped with an earlier turn) counts towards nothing but the
 * thread's figure. `last` is one request, so its prompt is the honest context figure that `codex exec`
 * never gives.
 *
 * What it does not read: reasoning deltas and message deltas (the completed item carries the whole
 * text), plans, diffs, hooks, and items outside this run's turn.
 */
import { arr, count, type JsonObject, num, obj, str } from '../../model/json.js';
import { emptyUsage, TOKEN_FIELDS, type TokenCounts } from '../../model/usage.js';
import { boundText } from '../bounds.js';
import type { Event } from '../events.js';
import type { PendingTools, Terminal } from '../parser.js';

/** The facts one run's notifications are read against. */
export interface TurnState {
  readonly terminal: Terminal;
  readonly tools: PendingTools;
  /** This run's turn, once Codex named it; notifications about any other turn are not this run's. */
  turnId: string | null;
  /** Model calls of this run's turn counted so far. */
  calls: number;
}

/**
 * Codex's counts in drive's terms: `input` without the cached part (Codex counts it inside),
 * `output` with reasoning (as Codex counts it), no cache-write figure (0.169.0 prints
 * `cacheWriteInputTokens: 0` for a provider that has none).
 */
export function tokensOf(v: unknown): TokenCounts | null {
  const u = obj(v);
  if (u === null) return null;
  const prompt = count(u.inputTokens);
  const cached = count(u.cachedInputTokens);
  return {
    input: prompt !== null && cached !== null ? Math.max(0, prompt - cached) : prompt,
    output: count(u.outputTokens),
    cacheRead: cached,
    cacheWrite: null,
    reasoning: count(u.reasoningOutputTokens),
  };
}

/** One call's counts added to the run's; a count one of its calls did not give stays unknown. */
function addTokens(s: TurnState, call: TokenCounts): void {
  const u = s.terminal.usage;
  for (const k of TOKEN_FIELDS) {
    const had = u[k];
    const add = call[k];
    u[k] = s.calls === 0 ? add : had === null || add === null ? null : had + add;
  }
  s.calls++;
}

/**
 * After every model call: the thread's running total, and the call itself. Counted towards this run
 * only when it is about this run's turn. Returns the live `usage` event for the call (its output
 * left null, as every agent's live usage is: the true figure comes with the outcome).
 */
function tokenUsage(p: JsonObject, s: TurnState): Event[] {
  const usage = obj(p.tokenUsage);
  const total = tokensOf(usage?.total);
  if (total !== null) s.terminal.threadUsage = total;
  const last = tokensOf(usage?.last);
  if (last === null || s.turnId === null || str(p.turnId) !== s.turnId) return [];
  addTokens(s, last);
  const prompt = count(obj(usage?.last)?.inputTokens);
  const window = count(usage?.modelContextWindow);
  const t = s.terminal.usage;
  if (prompt !== null) t.contextTokens = prompt;
  if (window !== null) t.contextWindow = window;
  return [
    {
      kind: 'usage',
      usage: { ...emptyUsage(), ...last, output: null, contextTokens: prompt, contextWindow: window },
    },
  ];
}

/** The tool an item is, by the name `codex exec` gives the same call; null for items that are not tools. */
function toolOf(item: JsonObject): { name: string; input: unknown } | null {
  switch (str(item.type)) {
    case 'commandExecution':
      return { name: 'exec_command', input: { command: item.command ?? null } };
    case 'mcpToolCall':
      return { name: str(item.tool) ?? 'mcp_tool_call', input: item.arguments ?? null };
    // No single argument field: the item stands in, as it does for `codex exec`.
    case 'fileChange':
      return { name: 'file_change', input: { changes: item.changes ?? null } };
    case 'webSearch':
      return { name: 'web_search', input: item };
    default:
      return null;
  }
}

/**
 * Whether a finished tool succeeded. A command says so by its exit code; one declined or refused by
 * the sandbox before it ran has none, and failed all the same.
 */
function succeeded(item: JsonObject): boolean | null {
  const status = str(item.status);
  const code = num(item.exitCode);
  if (code !== null) return code === 0;
  if (status === 'declined' || status === 'failed') return false;
  if (status === 'completed') return str(item.type) === 'commandExecution' ? null : true;
  return null;
}

/** A finished tool's output, in words. */
function outputOf(item: JsonObject): string {
  const aggregated = str(item.aggregatedOutput);
  if (aggregated !== null) return aggregated;
  const error = str(obj(item.error)?.message);
  if (error !== null) return error;
  if (str(item.status) === 'declined') return 'declined';
  const result = item.result;
  return result === undefined || result === null ? '' : JSON.stringify(result);
}

/** One `item/started` or `item/completed`. */
function readItem(item: JsonObject, done: boolean, s: TurnState): Event[] {
  const type = str(item.type);
  if (type === 'agentMessage') {
    if (!done) return [];
    const text = str(item.text) ?? '';
    // A turn can say several things; the last one to settle is the answer.
    s.terminal.text = text;
    return [{ kind: 'text', text }];
  }
  if (type === 'reasoning') {
    if (!done) return [];
    const parts = [...(arr(item.summary) ?? []), ...(arr(item.content) ?? [])].flatMap((p) =>
      typeof p === 'string' ? [p] : [],
    );
    return parts.length > 0 ? [{ kind: 'thinking', text: parts.join('\n') }] : [];
  }
  const tool = toolOf(item);
  if (tool === null) return [];
  const id = str(item.id);
  const out: Event[] = [];
  // Announced on first sighting only; an item the pending map could not hold is announced again on
  // completion (the same deliberate limit as `codex exec`'s reader).
  if (id === null || !s.tools.has(id)) {
    if (id !== null && !done) s.tools.remember(id, tool.name);
    out.push({ kind: 'tool_call', id, name: tool.name, input: tool.input });
  }
  if (done) {
    if (id !== null) s.tools.forget(id);
    out.push({ kind: 'tool_result', id, ok: succeeded(item), output: outputOf(item) });
  }
  return out;
}

/**
 * The HTTP status a failed turn stands for. Codex forwards the upstream status inside some of its
 * error kinds and names the others; the names mapped here are the ones drive already acts on
 * (401: not logged in, 429: rate limited), the rest stay unknown rather than guessed.
 */
export function statusOf(info: unknown): number | null {
  if (info === 'unauthorized') return 401;
  if (info === 'rateLimitExceeded' || info === 'usageLimitExceeded') return 429;
  const variant = obj(info);
  if (variant === null) return null;
  for (const v of Object.values(variant)) {
    const status = count(obj(v)?.httpStatusCode);
    if (status !== null) return status;
  }
  return null;
}

/** `turn/completed`: how the turn ended. True when it was this run's turn. */
function turnCompleted(p: JsonObject, s: TurnState): boolean {
  const turn = obj(p.turn);
  if (turn === null || str(turn.id) !== s.turnId) return false;
  const t = s.terminal;
  const status = str(turn.status);
  switch (status) {
    case 'completed':
      t.stop = { kind: 'completed' };
      break;
    case 'failed': {
      t.stop = { kind: 'error' };
      const error = obj(turn.error);
      const message = str(error?.message);
      t.errorMessage = message === null ? null : boundText(message);
      t.errorStatus = statusOf(error?.codexErrorInfo);
      break;
    }
    default:
      t.stop = { kind: 'other', reason: status ?? 'unknown' };
  }
  return true;
}

/** What one notification means for the run; `ended` when it settled this run's turn. */
export interface Read {
  events: Event[];
  ended: boolean;
}

/** One notification from `codex app-server` during the run's turn. */
export function readNotification(method: string, params: unknown, s: TurnState): Read {
  const p = obj(params);
  if (p === null) return { events: [], ended: false };
  switch (method) {
    case 'thread/tokenUsage/updated':
      return { events: tokenUsage(p, s), ended: false };
    case 'item/started':
    case 'item/completed': {
      const item = obj(p.item);
      if (item === null || s.turnId === null || str(p.turnId) !== s.turnId)
        return { events: [], ended: false };
      return { events: readItem(item, method === 'item/completed', s), ended: false };
    }
    case 'turn/completed':
      return { events: [], ended: turnCompleted(p, s) };
    default:
      return { events: [], ended: false };
  }
}
