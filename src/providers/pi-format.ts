/**
 * Pi's session format: the pieces every harness that writes it writes alike. Pi writes it, and so
 * does OpenClaw, which runs its agents on Pi's agent core: a `user` message's words, an `assistant`
 * message's `toolCall` blocks, `stopReason` and `usage`, a `toolResult`, and the entries both read to
 * the same facts (the session header, a model named, a compaction). Here too is what a parser of the
 * format carries between passes and what those pieces do to the session facts. Reading them once
 * keeps the two harnesses from drifting apart on the same bytes, and keeps each parser's version
 * computed from its own harness's code plus this module, never from another harness's folder
 * (`index/version.ts`).
 *
 * Not here: which entry types a harness writes and how it reads what they name (Pi's
 * `model_change`, titles and thinking levels; OpenClaw's `custom` snapshots and its message times),
 * where its files live, how it identifies and bills a response: those stay in `providers/pi/` and
 * `providers/openclaw/`.
 */
import { type FileFacts, oneLine, tallyFailure, tallyTool } from '../model/facts.js';
import { arr, count, type JsonObject, obj, str, text } from '../model/json.js';
import { isAskUserTool } from '../model/state.js';
import { carriedCalls, nullableString, stringOf } from './carry.js';
import { type CarriedCall, PendingCalls } from './pending.js';
import { noteFirstPrompt } from './title.js';
import type { CarryReader } from './types.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** A call an assistant message made: its id (when it gives one) and its tool. */
export type PiCall = [id: string | null, tool: string];

/** The token counts of one response, and the harness's own price for it. */
export interface PiFormatUsage {
  /** Uncached input (pi-ai reports the cached parts apart). */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** What the harness priced the response at (`cost.total`), in dollars. */
  costUsd: number | null;
}

/** A `toolResult` message: the call it answers, the tool it names, and whether it failed. */
export interface PiResult {
  kind: 'result';
  ms: number | null;
  callId: string | null;
  name: string | null;
  failed: boolean;
}

/**
 * The entries every harness writing the format reads to the same facts; a harness's own line type
 * adds its assistant message and any entries of its own.
 */
export type PiEntry =
  | { kind: 'session'; ms: number | null; id: string | null; cwd: string | null }
  | { kind: 'model'; ms: number | null; model: string }
  | { kind: 'compaction'; ms: number | null }
  | { kind: 'user'; ms: number | null; text: string | null }
  | PiResult
  | { kind: 'other'; ms: number | null };

/** What the session facts take from a response, besides its bill. */
export interface PiResponse {
  ms: number | null;
  calls: PiCall[];
  stop: string | null;
  /** Why it failed, where the harness says. */
  error: string | null;
}

/** What a parser of this format carries from one pass to the next. */
export interface PiFormatCarry {
  /** Calls still waiting for their result. */
  pending: CarriedCall<string>[];
  /** The model the newest entry that names one named. */
  model: string | null;
}

/** The words of a user message's content (a string, or its text blocks), cut to name the session. */
export function promptWords(content: unknown): string | null {
  if (typeof content === 'string') return content.slice(0, MAX_PROMPT_CHARS) || null;
  let out = '';
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'text' && typeof block.text === 'string') out += block.text;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out.length > 0 ? out.slice(0, MAX_PROMPT_CHARS) : null;
}

/** The calls an assistant message made: its `toolCall` blocks that name a tool. */
export function callsOf(content: unknown): PiCall[] {
  const calls: PiCall[] = [];
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    const name = block?.type === 'toolCall' ? text(block.name) : null;
    if (block && name) calls.push([text(block.id), name]);
  }
  return calls;
}

/**
 * A message's `usage`: null when it counts neither input nor output. A count that is absent or not a
 * count reads as none of it; the price is only the one the harness gives as `cost.total`.
 */
export function usageOf(v: unknown): PiFormatUsage | null {
  const u = obj(v);
  if (u === null) return null;
  const input = count(u.input);
  const output = count(u.output);
  if (input === null && output === null) return null;
  const cost = obj(u.cost);
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: count(u.cacheRead) ?? 0,
    cacheWrite: count(u.cacheWrite) ?? 0,
    costUsd: cost === null ? null : count(cost.total),
  };
}

/**
 * An entry whose type every harness writing the format writes alike: the `session` header (the
 * session's id and working folder) and a `compaction`; a type the harness does not read is `other`.
 */
export function formatEntry(o: JsonObject, ms: number | null): PiEntry {
  switch (str(o.type)) {
    case 'session':
      return { kind: 'session', ms, id: text(o.id), cwd: text(o.cwd) };
    case 'compaction':
      return { kind: 'compaction', ms };
    default:
      return { kind: 'other', ms };
  }
}

/**
 * A message other than the assistant's (whose fields each harness reads itself): a user's words, a
 * tool result, or a role the facts do not use.
 */
export function otherMessage(m: JsonObject, ms: number | null): PiEntry {
  switch (str(m.role)) {
    case 'user':
      return { kind: 'user', ms, text: promptWords(m.content) };
    case 'toolResult':
      return {
        kind: 'result',
        ms,
        callId: text(m.toolCallId),
        name: text(m.toolName),
        failed: m.isError === true,
      };
    default:
      return { kind: 'other', ms };
  }
}

export const emptyPiFormatCarry = (): PiFormatCarry => ({ pending: [], model: null });

/** A carry as the index hands it back, checked (`providers/carry.ts`). */
export const readPiFormatCarry: CarryReader<PiFormatCarry> = (stored) => {
  const o = obj(stored);
  const pending = o === null ? undefined : carriedCalls(o.pending, stringOf);
  const model = o === null ? undefined : nullableString(o.model);
  return pending === undefined || model === undefined ? undefined : { pending, model };
};

/**
 * What every parser of this format shares: the state it carries from one pass over a growing file to
 * the next, and what the shared entries and a response's calls do to the session facts. A harness's
 * parser extends it with its own entries and bills its responses itself (the identity of a response
 * and the counts it bills are the harness's).
 */
export abstract class PiFormatParser {
  protected readonly pending: PendingCalls<string>;
  /** The model the newest entry that names one named: a response that names none used it. */
  protected model: string | null;

  constructor(
    readonly facts: FileFacts,
    carry: PiFormatCarry,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.model = carry.model;
  }

  carry(): PiFormatCarry {
    return { pending: this.pending.carry(), model: this.model };
  }

  /** A shared entry (its time is noted by the harness's `line`, with every other entry's). */
  protected entry(l: PiEntry): void {
    const f = this.facts;
    switch (l.kind) {
      case 'session':
        f.sessionId ??= l.id;
        f.cwd ??= l.cwd;
        return;
      case 'model':
        this.model = l.model;
        return;
      case 'compaction':
        f.compactions++;
        return;
      case 'user':
        noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'result': {
        // Charged to its call's tool, else the name it gives; a failure is counted under it.
        const name = (l.callId !== null ? this.pending.settle(l.callId) : undefined) ?? l.name ?? '(unknown)';
        if (l.failed) tallyFailure(f, name);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'other':
        return;
    }
  }

  /**
   * A response's calls (counted, and waiting for their results) and what it leaves the session
   * doing: waiting on the person when it asked them, failed, stopped, calling tools, or done.
   */
  protected response(r: PiResponse): void {
    const f = this.facts;
    for (const [id, name] of r.calls) {
      tallyTool(f, name);
      if (id !== null) this.pending.open(id, name);
    }
    const ask = r.calls.find(([, name]) => isAskUserTool(name));
    if (ask) f.live = { state: 'waiting', atMs: r.ms, detail: ask[1] };
    else if (r.stop === 'error') f.live = { state: 'error', atMs: r.ms, detail: oneLine(r.error ?? 'error') };
    else if (r.stop === 'aborted') {
      f.aborts++;
      f.live = { state: 'idle', atMs: r.ms, detail: 'aborted' };
    } else if (r.calls.length > 0 || r.stop === 'toolUse')
      f.live = { state: 'working', atMs: r.ms, detail: null };
    else f.live = { state: 'idle', atMs: r.ms, detail: r.stop ?? 'reply' };
  }
}
