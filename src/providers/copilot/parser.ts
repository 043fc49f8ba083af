/**
 * Copilot CLI session events → session facts and ledger records, one line at a time, resumable.
 *
 * Tokens: Copilot CLI 1.0.102 writes a `session.usage_record` as each request ends (older builds
 * that wrote per request wrote `assistant.usage`): one ledger record each, so a running session shows
 * its tokens, and the newest main-thread request's prompt is its context. Builds that write no
 * per-request usage leave only `session.shutdown`, the tokens per model as the process exits; a
 * resumed session appends another. Once a session has per-request usage its shutdowns add nothing
 * and are not its context: 1.0.102's shutdown carries the whole session's totals so far (every
 * earlier process included) and Copilot's own estimate of the context, so either would count twice
 * or disagree with the requests. Without per-request usage a running session's tokens are absent,
 * not zero, until its process exits.
 *
 * A tool call is named twice (the message's `toolRequests`, then `tool.execution_start`): it is
 * counted once, by its id.
 */
import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { added, booleanOf, carriedCalls, listOf, nullableString, stringOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import type { CopilotLine, CopilotTokens } from './record.js';

/** Call ids already counted, remembered so the second naming of a call is not counted again. */
export const RECENT_CALL_IDS = 256;

export interface CopilotCarry {
  pending: CarriedCall<string>[];
  counted: string[];
  model: string | null;
  /** The session has per-request usage: shutdowns add no tokens and are not the context. */
  perRequest: boolean;
}

export const emptyCopilotCarry = (): CopilotCarry => ({
  pending: [],
  counted: [],
  model: null,
  perRequest: false,
});

/** A `CopilotCarry` as the index hands it back, checked (`providers/carry.ts`). */
export const readCopilotCarry: CarryReader<CopilotCarry> = (stored) => {
  const o = obj(stored);
  if (o === null) return undefined;
  const pending = carriedCalls(o.pending, stringOf);
  const counted = listOf(o.counted, stringOf);
  const model = nullableString(o.model);
  const perRequest = added(o.perRequest, booleanOf, false);
  if (pending === undefined || counted === undefined || model === undefined || perRequest === undefined)
    return undefined;
  return { pending, counted, model, perRequest };
};

export class CopilotParser {
  private pending: PendingCalls<string>;
  private counted: string[];
  private countedSet: Set<string>;
  private model: string | null;
  private perRequest: boolean;

  constructor(
    readonly facts: FileFacts,
    carry: CopilotCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.counted = [...carry.counted];
    this.countedSet = new Set(carry.counted);
    this.model = carry.model;
    // A carry cached before `perRequest` existed has none: false, as it was then.
    this.perRequest = carry.perRequest === true;
  }

  carry(): CopilotCarry {
    return {
      pending: this.pending.carry(),
      counted: [...this.counted],
      model: this.model,
      perRequest: this.perRequest,
    };
  }

  line(l: CopilotLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'start':
        f.sessionId ??= l.sessionId;
        f.cwd ??= l.cwd;
        if (l.branch !== null) f.gitBranch = l.branch;
        if (l.model !== null) this.useModel(l.model);
        f.live = { state: 'idle', atMs: l.ms, detail: 'started' };
        return;
      case 'model':
        if (l.model !== null) this.useModel(l.model);
        if (l.effort !== null) f.reasoningEffort = l.effort;
        return;
      case 'prompt': {
        if (l.sub) return;
        noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'turn':
        if (l.model !== null) this.useModel(l.model);
        f.live =
          l.event === 'start'
            ? { state: 'working', atMs: l.ms, detail: null }
            : { state: 'idle', atMs: l.ms, detail: 'turn_end' };
        return;
      case 'message':
        this.message(l);
        return;
      case 'call':
        this.call(l.id, l.name);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'done': {
        const name = l.id === null ? undefined : this.pending.settle(l.id);
        if (name !== undefined) {
          if (l.failed) tallyFailure(f, name);
        } else if (l.id === null && l.failed) tallyFailure(f, '(unknown)');
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'usage':
        this.perRequest = true;
        this.request(l.tokens, l.key, l.ms, l.sub, l.tools);
        if (l.context) {
          const t = l.tokens;
          f.context = {
            prompt: t.input + t.cacheRead + t.cacheWrite,
            model: t.model ?? this.model,
            atMs: l.ms,
          };
        }
        return;
      case 'shutdown':
        if (!this.perRequest) {
          // A shutdown's totals are many requests: which tools each called is not in them.
          for (const t of l.tokens)
            this.request(t, l.key === null ? null : `${l.key}\u0000${t.model}`, l.ms, false, null);
          if (l.current !== null) f.context = { prompt: l.current, model: this.model, atMs: l.ms };
        }
        if (l.added !== null) f.linesAdded = (l.cumulative ? 0 : (f.linesAdded ?? 0)) + l.added;
        if (l.removed !== null) f.linesRemoved = (l.cumulative ? 0 : (f.linesRemoved ?? 0)) + l.removed;
        f.live = { state: 'idle', atMs: l.ms, detail: 'shutdown' };
        return;
      case 'error':
        f.live = { state: 'error', atMs: l.ms, detail: oneLine(l.message ?? 'error') };
        return;
      case 'abort':
        f.aborts++;
        f.live = { state: 'idle', atMs: l.ms, detail: 'abort' };
        return;
      case 'compaction':
        f.compactions++;
        return;
      case 'window':
        f.reportedWindow = l.limit;
        return;
      case 'idle':
        f.live = { state: 'idle', atMs: l.ms, detail: 'idle' };
        return;
      case 'other':
        return;
    }
  }

  private useModel(model: string): void {
    this.model = model;
    this.facts.mainModel = model;
    noteModel(this.facts, model);
  }

  private message(l: Extract<CopilotLine, { kind: 'message' }>): void {
    const f = this.facts;
    if (l.model !== null) {
      if (l.sub) noteModel(f, l.model);
      else this.useModel(l.model);
    }
    for (const [id, name] of l.calls) this.call(id, name);
    if (l.sub) return;
    const ask = l.calls.find(([, name]) => isAskUserTool(name));
    if (ask) f.live = { state: 'waiting', atMs: l.ms, detail: ask[1] };
    else if (l.calls.length > 0) f.live = { state: 'working', atMs: l.ms, detail: null };
    else if (l.hasText) f.live = { state: 'idle', atMs: l.ms, detail: 'reply' };
  }

  /** Count a call the first time its id is named. */
  private call(id: string | null, name: string): void {
    if (id !== null) {
      if (this.countedSet.has(id)) return;
      this.counted.push(id);
      this.countedSet.add(id);
      if (this.counted.length > RECENT_CALL_IDS) this.countedSet.delete(this.counted.shift()!);
      this.pending.open(id, name);
    }
    tallyTool(this.facts, name);
  }

  private request(
    t: CopilotTokens,
    key: string | null,
    ms: number | null,
    sub: boolean,
    tools: readonly string[] | null,
  ): void {
    const f = this.facts;
    const name = t.model ?? this.model ?? 'unknown';
    noteModel(f, name);
    this.ledger.push({
      key: key === null ? null : hashString(`copilot\u0000${f.sessionId ?? ''}\u0000${key}`),
      request: 0,
      tsMs: ms ?? f.lastMs ?? 0,
      model: name,
      sidechain: sub,
      tokens: {
        input: t.input,
        output: t.output,
        cacheRead: t.cacheRead,
        cacheWrite5m: t.cacheWrite,
        cacheWrite1h: null,
        reasoning: t.reasoning,
      },
      tools,
    });
  }
}
