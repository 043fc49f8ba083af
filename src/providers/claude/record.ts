/**
 * The part of a Claude Code transcript line that session facts need, and how to read it from a
 * parsed line.
 *
 * A line is projected onto `ClaudeLine` before anything else looks at it, so the reducer never
 * touches raw JSON and a faster extractor (one that finds these fields in the bytes) can be proved
 * equal to this one, line by line.
 */

import { hashString, type IdHash, idNumber } from '../../model/id-hash.js';
import { arr, bool, count, isoMs, type JsonObject, obj, str, text } from '../../model/json.js';

export interface ClaudeUsage {
  input: number;
  output: number;
  cacheRead: number;
  /** All cache writes, both tiers. */
  cacheWrite: number;
  /** The part of `cacheWrite` written with a one-hour lifetime (when the record splits them). */
  cacheWrite1h: number;
  /** Thinking tokens inside `output`, when the record reports them. */
  reasoning: number | null;
  /**
   * Served in fast mode (`usage.speed: "fast"`, Claude Code 2.1.36 on): billed at a multiple of the
   * standard price, which the pricing code owns (`model/pricing-speed.ts`).
   */
  fast: boolean;
}

export interface ClaudeAdvisor {
  model: string;
  usage: ClaudeUsage;
}

/** Tool call ids are only ever compared, never shown: they are kept as numbers (`idNumber`). */
export interface ClaudeToolUse {
  id: number | null;
  name: string;
}

export interface ClaudeToolResult {
  id: number | null;
  isError: boolean;
}

export interface ClaudeLine {
  type: string | null;
  subtype: string | null;
  ms: number | null;
  /** The record's uuid, as a number: it is only matched against summaries' `leafUuid`. */
  uuid: number | null;
  sessionId: string | null;
  cwd: string | null;
  gitBranch: string | null;
  sidechain: boolean;
  agentId: string | null;
  permissionMode: string | null;
  customTitle: string | null;
  aiTitle: string | null;
  summary: { leaf: number; text: string } | null;
  isMeta: boolean;
  isCompactSummary: boolean;
  isApiErrorMessage: boolean;
  /** `message.id` / `requestId` of an assistant response (or of a subagent's, inside `progress`). */
  messageId: IdHash | null;
  requestId: IdHash | null;
  model: string | null;
  stopReason: string | null;
  usage: ClaudeUsage | null;
  advisors: ClaudeAdvisor[];
  /** Text blocks in an assistant message (whether any). */
  hasText: boolean;
  toolUses: ClaudeToolUse[];
  toolResults: ClaudeToolResult[];
  /** The user's typed prompt, when this is one (not a tool result, not harness bookkeeping). */
  prompt: string | null;
  /** +/- line counts from `toolUseResult.structuredPatch`. */
  patch: { added: number; removed: number } | null;
  /** Usage of a subagent response carried inside a `progress` record (older Claude Code). */
  nested: boolean;
}

export function readUsage(u: JsonObject | null): ClaudeUsage | null {
  if (!u) return null;
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input === null && output === null) return null;
  const cacheRead = count(u.cache_read_input_tokens) ?? 0;
  const cacheWrite = count(u.cache_creation_input_tokens) ?? 0;
  const split = obj(u.cache_creation);
  const oneHour = split ? (count(split.ephemeral_1h_input_tokens) ?? 0) : 0;
  const details = obj(u.output_tokens_details);
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead,
    cacheWrite,
    // Anything not marked one-hour is priced as the 5-minute tier.
    cacheWrite1h: Math.min(oneHour, cacheWrite),
    reasoning: details ? count(details.thinking_tokens) : null,
    fast: u.speed === 'fast',
  };
}

const blocks = (content: unknown): JsonObject[] =>
  (arr(content) ?? []).map(obj).filter((b): b is JsonObject => b !== null);

/**
 * A prompt is kept to its first characters: it names the session and shows whether the user
 * interrupted; a pasted log of a megabyte adds nothing to either.
 */
export const MAX_PROMPT_CHARS = 4096;

/** Prompt text from a user message's content, ignoring tool results and images. */
function promptText(content: unknown): string | null {
  if (typeof content === 'string') return content.slice(0, MAX_PROMPT_CHARS);
  for (const b of blocks(content)) {
    if (b.type === 'text' && typeof b.text === 'string') return b.text.slice(0, MAX_PROMPT_CHARS);
  }
  return null;
}

export function patchCounts(result: unknown): { added: number; removed: number } | null {
  const r = obj(result);
  const hunks = r ? arr(r.structuredPatch) : null;
  if (!hunks) return null;
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of arr(obj(h)?.lines) ?? []) {
      if (typeof l !== 'string') continue;
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

/**
 * Whether a record is a call the harness ran on the model's behalf, not the model's own: Claude Code
 * 2.1.332 writes the calls a script or REPL tool makes as `host-row` records, and marks such rows
 * `isVirtual` with the id of the model's tool call that ran them (`ranByToolUseId`). The model made
 * one call (the script); counting what the script did as the model's tools, calls and failures would
 * show a session making calls its model never asked for.
 */
export function isVirtualRow(o: JsonObject): boolean {
  return o.type === 'host-row' || o.isVirtual === true || typeof o.ranByToolUseId === 'string';
}

const hashOf = (s: string | null): IdHash | null => (s === null ? null : hashString(s));
const idOf = (s: string | null): number | null => (s === null ? null : idNumber(hashString(s)));

export function emptyLine(): ClaudeLine {
  return {
    type: null,
    subtype: null,
    ms: null,
    uuid: null,
    sessionId: null,
    cwd: null,
    gitBranch: null,
    sidechain: false,
    agentId: null,
    permissionMode: null,
    customTitle: null,
    aiTitle: null,
    summary: null,
    isMeta: false,
    isCompactSummary: false,
    isApiErrorMessage: false,
    messageId: null,
    requestId: null,
    model: null,
    stopReason: null,
    usage: null,
    advisors: [],
    hasText: false,
    toolUses: [],
    toolResults: [],
    prompt: null,
    patch: null,
    nested: false,
  };
}

/** Project a parsed transcript line. */
export function lineFromJson(o: JsonObject): ClaudeLine {
  const line = emptyLine();
  line.type = str(o.type);
  line.subtype = str(o.subtype);
  line.ms = isoMs(o.timestamp);
  line.uuid = idOf(text(o.uuid));
  line.sessionId = text(o.sessionId);
  line.cwd = text(o.cwd);
  line.gitBranch = text(o.gitBranch);
  line.sidechain = bool(o.isSidechain);
  line.agentId = text(o.agentId);
  line.permissionMode = text(o.permissionMode);
  line.customTitle = text(o.customTitle);
  line.aiTitle = text(o.aiTitle);
  line.isMeta = bool(o.isMeta);
  line.isCompactSummary = bool(o.isCompactSummary);
  line.isApiErrorMessage = bool(o.isApiErrorMessage);
  if (line.type === 'summary') {
    const leaf = text(o.leafUuid);
    const s = text(o.summary);
    if (leaf && s) line.summary = { leaf: idNumber(hashString(leaf)), text: s };
  }

  // A virtual row's message is the harness's call, not a model response: nothing in it is counted.
  const virtual = isVirtualRow(o);
  let message = virtual ? null : obj(o.message);
  let requestId = hashOf(text(o.requestId));
  if (line.type === 'progress' && !virtual) {
    // Older Claude Code logged a subagent's responses inside the parent's `progress` records.
    const wrapped = obj(obj(o.data)?.message);
    const inner = wrapped ? obj(wrapped.message) : null;
    if (wrapped && inner && obj(inner.usage)) {
      message = inner;
      requestId = hashOf(text(wrapped.requestId));
      line.sidechain = true;
      line.nested = true;
      const ms = isoMs(wrapped.timestamp);
      if (ms !== null) line.ms = ms;
    } else {
      message = null;
    }
  }
  if (message) {
    const role = str(message.role);
    if (line.type === 'assistant' || line.nested || role === 'assistant') {
      line.messageId = hashOf(text(message.id));
      line.requestId = requestId;
      line.model = text(message.model);
      line.stopReason = str(message.stop_reason);
      const usage = obj(message.usage);
      line.usage = readUsage(usage);
      for (const it of arr(usage?.iterations) ?? []) {
        const i = obj(it);
        const model = i ? text(i.model) : null;
        const u = i && i.type === 'advisor_message' ? readUsage(i) : null;
        if (model && u) line.advisors.push({ model, usage: u });
      }
      for (const b of blocks(message.content)) {
        if (b.type === 'text') line.hasText = true;
        else if (b.type === 'tool_use') {
          const name = text(b.name);
          if (name) line.toolUses.push({ id: idOf(text(b.id)), name });
        }
      }
    } else if (line.type === 'user') {
      for (const b of blocks(message.content)) {
        if (b.type === 'tool_result')
          line.toolResults.push({ id: idOf(text(b.tool_use_id)), isError: b.is_error === true });
      }
      if (line.toolResults.length === 0 && !line.isMeta && !line.isCompactSummary) {
        line.prompt = promptText(message.content);
      }
      line.patch = patchCounts(o.toolUseResult);
    }
  }
  return line;
}
