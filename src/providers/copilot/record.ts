/**
 * The part of a GitHub Copilot CLI session event that session facts need.
 *
 * Copilot CLI writes `session-state/<id>/events.jsonl` (older builds: a flat `<id>.jsonl`), one
 * event per line: `{type, data, id, timestamp, parentId}`. The events read here: `session.start` /
 * `session.resume` (identity, working directory, branch, model), `session.model_change`,
 * `user.message`, `assistant.turn_start` / `turn_end`, `assistant.message` (its `toolRequests`),
 * `tool.execution_start` / `tool.execution_complete` (`success`, and a shell's exit code),
 * `session.usage_record` (one request's tokens, written as the request ends: 1.0.102), the
 * `assistant.usage` older builds wrote to disk, `session.shutdown` (the tokens of the session so far,
 * per model, and its line changes), `session.error`, `abort`, compaction and truncation events.
 * A subagent's events carry `parentToolCallId` (1.0.102: `agentId` beside `type`).
 *
 * Copilot's `inputTokens` is the whole prompt: Copilot CLI 1.0.102 writes a Chat Completions
 * `prompt_tokens` unchanged (cached tokens inside) and an Anthropic response's input, cache reads and
 * cache writes added up, in its usage records and its shutdown totals alike. Uncached input is what
 * is left once the cache parts are taken out.
 */
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** Copilot's placeholder before a model is chosen; never a model. */
const AUTO = 'auto';

export interface CopilotTokens {
  model: string | null;
  /** Uncached input. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Inside `output`; null where Copilot wrote no figure (it writes none for an Anthropic provider). */
  reasoning: number | null;
}

export type CopilotLine =
  | {
      kind: 'start';
      ms: number | null;
      sessionId: string | null;
      cwd: string | null;
      branch: string | null;
      model: string | null;
    }
  | { kind: 'model'; ms: number | null; model: string | null; effort: string | null }
  | { kind: 'prompt'; ms: number | null; text: string | null; sub: boolean }
  | { kind: 'turn'; ms: number | null; event: 'start' | 'end'; model: string | null }
  | {
      kind: 'message';
      ms: number | null;
      model: string | null;
      sub: boolean;
      calls: [string | null, string][];
      hasText: boolean;
    }
  | { kind: 'call'; ms: number | null; id: string | null; name: string }
  | { kind: 'done'; ms: number | null; id: string | null; failed: boolean; model: string | null }
  | {
      kind: 'usage';
      ms: number | null;
      key: string | null;
      sub: boolean;
      /** The request was the conversation's own turn, so its prompt is the context now. */
      context: boolean;
      tokens: CopilotTokens;
      /** The tools the response called (`[]`: none), or null where the record does not say. */
      tools: string[] | null;
    }
  | {
      kind: 'shutdown';
      ms: number | null;
      key: string | null;
      tokens: CopilotTokens[];
      /**
       * The figures are the whole session's so far, not this process's: 1.0.102 writes an
       * `accountingSnapshot`, and a resumed session's second shutdown repeats the first's totals.
       */
      cumulative: boolean;
      current: number | null;
      added: number | null;
      removed: number | null;
    }
  | { kind: 'error'; ms: number | null; message: string | null }
  | { kind: 'abort'; ms: number | null }
  | { kind: 'compaction'; ms: number | null }
  | { kind: 'window'; ms: number | null; limit: number }
  | { kind: 'idle'; ms: number | null }
  | { kind: 'other'; ms: number | null };

const model = (v: unknown): string | null => {
  const m = text(v);
  return m === null || m === AUTO ? null : m;
};

function words(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v.slice(0, MAX_PROMPT_CHARS) : null;
}

/** Tokens from figures whose input is the whole prompt. */
function splitPrompt(
  name: string | null,
  f: { prompt: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number | null },
): CopilotTokens {
  return {
    model: name,
    input: Math.max(0, f.prompt - f.cacheRead - f.cacheWrite),
    output: f.output,
    cacheRead: f.cacheRead,
    cacheWrite: f.cacheWrite,
    reasoning: f.reasoning,
  };
}

/** A usage block as Copilot writes it (`inputTokens` the whole prompt), per request or per model. */
function wholePrompt(u: JsonObject, name: string | null): CopilotTokens {
  return splitPrompt(name, {
    prompt: count(u.inputTokens) ?? 0,
    output: count(u.outputTokens) ?? 0,
    cacheRead: count(u.cacheReadTokens) ?? 0,
    cacheWrite: count(u.cacheWriteTokens) ?? 0,
    reasoning: count(u.reasoningTokens),
  });
}

/** Requests that are not the conversation's own turn: their prompt is not its context. */
const SIDE_INTERACTIONS = new Set([
  'conversation-subagent',
  'conversation-sampling',
  'conversation-background',
  'conversation-compaction',
]);

/**
 * Whether a finished call failed. A shell that ran and exited non-zero has failed, though Copilot
 * CLI 1.0.102 writes `success: true` for it (the harness ran the tool; the command failed): its
 * `shellExecution.exitCode` says so.
 */
export function executionFailed(d: JsonObject): boolean {
  if (d.success === false) return true;
  const exit = num(obj(d.shellExecution)?.exitCode);
  return exit !== null && exit !== 0;
}

/**
 * The tools a usage record's response called: 1.0.102 writes `toolCounts` (`{"bash": 2}`) beside
 * `numToolCalls`; a record with neither does not say.
 */
function toolsCalled(u: JsonObject): string[] | null {
  const counts = obj(u.toolCounts);
  if (counts !== null) return Object.keys(counts).filter((name) => (count(counts[name]) ?? 0) > 0);
  return count(u.numToolCalls) === 0 ? [] : null;
}

/** Per-model usage of a shutdown, or the session's totals under its current model. */
function shutdownTokens(d: JsonObject): CopilotTokens[] {
  const out: CopilotTokens[] = [];
  const metrics = obj(d.modelMetrics);
  for (const [name, entry] of Object.entries(metrics ?? {})) {
    const usage = obj(obj(entry)?.usage);
    if (!usage) continue;
    const t = wholePrompt(usage, model(name));
    // An empty or all-zero breakdown is not one: it must not hide the totals below.
    if (t.input + t.output + t.cacheRead + t.cacheWrite > 0) out.push(t);
  }
  if (out.length > 0) return out;
  const details = obj(d.tokenDetails);
  if (!details) return out;
  const n = (k: string) => count(obj(details[k])?.tokenCount);
  const t = splitPrompt(model(d.currentModel), {
    prompt: n('input') ?? 0,
    output: n('output') ?? 0,
    cacheRead: n('cache_read') ?? 0,
    cacheWrite: n('cache_write') ?? 0,
    reasoning: null,
  });
  if (t.input + t.output + t.cacheRead + t.cacheWrite > 0) out.push(t);
  return out;
}

/** One line of `events.jsonl` as a typed record: a table, one case per event type Copilot writes. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a dispatch table over record kinds
export function lineFromJson(o: JsonObject): CopilotLine {
  const ms = isoMs(o.timestamp);
  const d = obj(o.data) ?? {};
  // `agentId` beside `type` names a subagent in 1.0.102; `parentToolCallId` is the older mark.
  const sub = text(d.parentToolCallId) !== null || text(o.agentId) !== null;
  switch (str(o.type)) {
    case 'session.start':
    case 'session.resume': {
      const c = obj(d.context);
      return {
        kind: 'start',
        ms,
        sessionId: text(d.sessionId),
        cwd: text(c?.cwd),
        branch: text(c?.branch),
        model: model(d.selectedModel),
      };
    }
    case 'session.model_change':
      return { kind: 'model', ms, model: model(d.newModel), effort: text(d.reasoningEffort) };
    case 'user.message':
      return { kind: 'prompt', ms, text: words(d.content), sub };
    case 'assistant.turn_start':
      return { kind: 'turn', ms, event: 'start', model: model(d.model) };
    case 'assistant.turn_end':
      return { kind: 'turn', ms, event: 'end', model: model(d.model) };
    case 'assistant.message': {
      const calls: [string | null, string][] = [];
      for (const r of arr(d.toolRequests) ?? []) {
        const req = obj(r);
        const name = req ? text(req.name) : null;
        if (req && name) calls.push([text(req.toolCallId), name]);
      }
      const content = str(d.content);
      return {
        kind: 'message',
        ms,
        model: model(d.model),
        sub,
        calls,
        hasText: content !== null && content.trim().length > 0,
      };
    }
    case 'tool.execution_start': {
      const name = text(d.toolName);
      return name ? { kind: 'call', ms, id: text(d.toolCallId), name } : { kind: 'other', ms };
    }
    case 'tool.execution_complete':
      return { kind: 'done', ms, id: text(d.toolCallId), failed: executionFailed(d), model: model(d.model) };
    case 'session.usage_record': {
      const u = obj(d.usage) ?? {};
      const side = sub || text(u.parentToolCallId) !== null || text(u.initiator) === 'sub-agent';
      const kind = text(u.interactionType);
      return {
        kind: 'usage',
        ms,
        key: text(u.apiCallId) ?? text(obj(u.accounting)?.usageId) ?? text(u.providerCallId) ?? text(o.id),
        sub: side,
        context: !side && (kind === null || !SIDE_INTERACTIONS.has(kind)),
        tokens: wholePrompt(u, model(u.model)),
        tools: toolsCalled(u),
      };
    }
    case 'assistant.usage':
      // known limit: read as uncached input, as the builds that wrote it to disk were taken to mean; no
      // real line of one is at hand (1.0.102 keeps it off disk and writes `session.usage_record`).
      return {
        kind: 'usage',
        ms,
        key: text(d.apiCallId) ?? text(d.providerCallId) ?? text(o.id),
        sub,
        context: !sub,
        tokens: {
          model: model(d.model),
          input: count(d.inputTokens) ?? 0,
          output: count(d.outputTokens) ?? 0,
          cacheRead: count(d.cacheReadTokens) ?? 0,
          cacheWrite: count(d.cacheWriteTokens) ?? 0,
          reasoning: count(d.reasoningTokens),
        },
        tools: null,
      };
    case 'session.shutdown': {
      const changes = obj(d.codeChanges);
      const current = count(d.currentTokens);
      return {
        kind: 'shutdown',
        ms,
        key: text(o.id) ?? text(o.timestamp),
        tokens: shutdownTokens(d),
        cumulative: obj(d.accountingSnapshot) !== null,
        current: current !== null && current > 0 ? current : null,
        added: changes ? count(changes.linesAdded) : null,
        removed: changes ? count(changes.linesRemoved) : null,
      };
    }
    case 'session.error':
      return { kind: 'error', ms, message: text(d.message) ?? text(d.errorType) };
    case 'abort':
      return { kind: 'abort', ms };
    case 'session.compaction_complete':
      return d.success === false ? { kind: 'other', ms } : { kind: 'compaction', ms };
    case 'session.truncation': {
      const limit = num(d.tokenLimit);
      return limit !== null && limit > 0 ? { kind: 'window', ms, limit } : { kind: 'other', ms };
    }
    case 'session.idle':
      return { kind: 'idle', ms };
    default:
      return { kind: 'other', ms };
  }
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Copilot CLI). */
export function lineFromBytes(b: Buffer, s: number, e: number): CopilotLine {
  return lineFromJson(objectLine(b, s, e));
}
