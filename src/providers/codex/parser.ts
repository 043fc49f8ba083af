/**
 * Codex rollout lines → session facts and ledger records, one line at a time, resumable.
 *
 * Tokens come from `token_count` events: the per-request `last_token_usage` when present, else the
 * difference of the cumulative `total_token_usage` (a total that falls is a reset, so the new total
 * is the delta). A repeated event with an unchanged total adds nothing. Codex's `input_tokens`
 * includes the cached part; the ledger stores the uncached part so `input` means the same everywhere.
 *
 * A request's tools are the calls its response made, and nothing in a `token_count` names them. Where
 * they are depends on the version (the report's reader says how, `calls.ts`): Codex 0.40 wrote the
 * usage first and the response's items after it, later builds write the items as they stream and
 * the usage when the response ends. Each turn shows which by what comes first after the person
 * speaks: a token count (usage first: the calls that follow join the request just counted), or
 * something the model wrote (usage last: the calls so far are the next request's).
 */
import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteToolName } from '../../model/tool-sets.js';
import { added, booleanOf, carriedCalls, listOf, nullableString, numberOf, stringOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import { type CodexLine, type CodexTokenUsage, sameUsage } from './record.js';

export interface CodexCarry {
  pending: CarriedCall<string>[];
  model: string | null;
  previousTotal: CodexTokenUsage | null;
  boundaryOpen: boolean;
  /** This turn's order of a request's usage and its calls, once seen (absent in an older carry). */
  order?: 'before' | 'after' | null;
  /** Usage last: the tools called since the last request, for the next one. */
  calls?: string[];
  /** Usage first: the ledger index of the request whose calls are arriving. */
  open?: number | null;
  /**
   * A spawned subagent's rollout whose replay of its parent may still be running: when the subagent
   * was created (its `session_meta`'s stamp). Null once its own records have begun, or in any other
   * rollout; absent in an older carry.
   */
  replayFrom?: number | null;
  /**
   * The newest prompt seen in that window, cut to a title (`oneLine`): the parent's replayed prompts
   * come first, the subagent's own task last, so it is the subagent's title once the replay is over.
   */
  replayPrompt?: string | null;
}

export const emptyCodexCarry = (): CodexCarry => ({
  pending: [],
  model: null,
  previousTotal: null,
  boundaryOpen: false,
  order: null,
  calls: [],
  open: null,
  replayFrom: null,
  replayPrompt: null,
});

const usageOf = (v: unknown): CodexTokenUsage | undefined => {
  const o = obj(v);
  if (o === null) return undefined;
  const [input, cached, output, reasoning, total] = [o.input, o.cached, o.output, o.reasoning, o.total].map(
    numberOf,
  );
  if (input === undefined || cached === undefined || output === undefined) return undefined;
  if (reasoning === undefined || total === undefined) return undefined;
  return { input, cached, output, reasoning, total };
};

const orderOf = (v: unknown): 'before' | 'after' | null | undefined =>
  v === null || v === 'before' || v === 'after' ? v : undefined;

const nullableNumber = (v: unknown): number | null | undefined => (v === null ? null : numberOf(v));

/** A `CodexCarry` as the index hands it back, checked (`providers/carry.ts`). */
export const readCodexCarry: CarryReader<CodexCarry> = (stored) => {
  const o = obj(stored);
  if (o === null) return undefined;
  const c = {
    pending: carriedCalls(o.pending, stringOf),
    model: nullableString(o.model),
    previousTotal: o.previousTotal === null ? null : usageOf(o.previousTotal),
    boundaryOpen: booleanOf(o.boundaryOpen),
    order: added(o.order, orderOf, null),
    calls: added(o.calls, (v) => listOf(v, stringOf), []),
    open: added(o.open, nullableNumber, null),
    replayFrom: added(o.replayFrom, nullableNumber, null),
    replayPrompt: added(o.replayPrompt, nullableString, null),
  };
  const { pending, model, previousTotal, boundaryOpen, order, calls, open, replayFrom, replayPrompt } = c;
  if (pending === undefined || model === undefined || previousTotal === undefined) return undefined;
  if (boundaryOpen === undefined || order === undefined || calls === undefined) return undefined;
  if (open === undefined || replayFrom === undefined || replayPrompt === undefined) return undefined;
  return { pending, model, previousTotal, boundaryOpen, order, calls, open, replayFrom, replayPrompt };
};

/**
 * How long after a subagent's creation a record may be stamped and still be its parent's, replayed.
 * Codex writes the parent's history into the new rollout as one batch at creation, every line stamped
 * then (within milliseconds); a subagent's own first token count follows a model request, which takes
 * seconds. A second tells them apart with room on both sides.
 */
export const REPLAY_MS = 1000;

const minus = (a: CodexTokenUsage, b: CodexTokenUsage): CodexTokenUsage => ({
  input: a.input - b.input,
  cached: a.cached - b.cached,
  output: a.output - b.output,
  reasoning: a.reasoning - b.reasoning,
  total: a.total - b.total,
});

const usageKey = (u: CodexTokenUsage): string =>
  `${u.input},${u.cached},${u.output},${u.reasoning},${u.total}`;

/** Nodes (objects, arrays, values) a kept rate-limit snapshot may have: it is a handful in practice. */
export const MAX_RATE_LIMIT_NODES = 128;

/** Keep a snapshot only if it is small; counted rather than serialised, as it arrives on every turn. */
function bounded(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  let nodes = 0;
  const visit = (x: unknown): boolean => {
    if (++nodes > MAX_RATE_LIMIT_NODES) return false;
    if (typeof x === 'string') return x.length <= 256;
    if (x !== null && typeof x === 'object') {
      for (const y of Object.values(x as Record<string, unknown>)) if (!visit(y)) return false;
    }
    return true;
  };
  return visit(v) ? v : null;
}

export class CodexParser {
  private pending: PendingCalls<string>;
  private model: string | null;
  private previousTotal: CodexTokenUsage | null;
  private boundaryOpen: boolean;
  private order: 'before' | 'after' | null;
  private calls: string[];
  private open: number | null;
  private replayFrom: number | null;
  private replayPrompt: string | null;

  constructor(
    readonly facts: FileFacts,
    carry: CodexCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.model = carry.model;
    this.previousTotal = carry.previousTotal;
    this.boundaryOpen = carry.boundaryOpen;
    this.order = carry.order ?? null;
    this.calls = [...(carry.calls ?? [])];
    this.open = carry.open ?? null;
    this.replayFrom = carry.replayFrom ?? null;
    this.replayPrompt = carry.replayPrompt ?? null;
  }

  carry(): CodexCarry {
    return {
      pending: this.pending.carry(),
      model: this.model,
      previousTotal: this.previousTotal,
      boundaryOpen: this.boundaryOpen,
      order: this.order,
      calls: [...this.calls],
      open: this.open,
      replayFrom: this.replayFrom,
      replayPrompt: this.replayPrompt,
    };
  }

  /** The first `session_meta` is the rollout's own; a subagent's replay opens with its parent's. */
  private spawned(l: Extract<CodexLine, { kind: 'meta' }>): void {
    const f = this.facts;
    if (f.sessionId !== null || f.parentSession != null || l.parent === null) return;
    f.parentSession = l.parent;
    this.replayFrom = l.ms;
  }

  /**
   * Whether a line is the parent's history replayed into a subagent's rollout: stamped within
   * `REPLAY_MS` of the subagent's creation. The first line stamped later ends the replay for good.
   */
  private replayed(ms: number | null): boolean {
    if (this.replayFrom === null) return false;
    if (ms !== null && ms >= this.replayFrom + REPLAY_MS) {
      this.replayFrom = null;
      noteFirstPrompt(this.facts, this.replayPrompt);
      this.replayPrompt = null;
      return false;
    }
    return true;
  }

  private call(l: Extract<CodexLine, { kind: 'call' }>): void {
    if (l.id !== null) this.pending.open(l.id, l.name);
    tallyTool(this.facts, l.name);
    // The call is its response's, whichever side of that response's usage it is written on.
    this.order ??= 'after';
    if (this.order === 'after') noteToolName(this.calls, l.name);
    else if (this.open !== null) this.ledger.addTools(this.open, [l.name]);
    this.facts.live = isAskUserTool(l.name)
      ? { state: 'waiting', atMs: l.ms, detail: l.name }
      : { state: 'working', atMs: l.ms, detail: null, pendingTool: l.name };
  }

  line(l: CodexLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'meta':
        this.spawned(l);
        f.sessionId ??= l.id;
        f.cwd ??= l.cwd;
        if (l.branch !== null) f.gitBranch = l.branch;
        return;
      case 'context':
        if (l.model !== null) {
          this.model = l.model;
          f.mainModel = l.model;
          noteModel(f, l.model);
        }
        if (l.effort !== null) f.reasoningEffort = l.effort;
        f.cwd ??= l.cwd;
        if (l.policy !== null) {
          f.permissionMode = l.policy.mode;
          f.permission = l.policy.permission;
        }
        return;
      case 'tokens':
        if (this.replayed(l.ms)) {
          // The parent's running total: the baseline the subagent's own first total is measured from.
          if (l.total !== null) this.previousTotal = l.total;
        } else this.tokens(l);
        return;
      case 'window':
        f.reportedWindow = l.window;
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'rate_limits':
        f.rateLimits = bounded(l.rateLimits) ?? f.rateLimits;
        return;
      case 'call':
        // The parent's calls, replayed, are the parent's: counted there.
        if (!this.replayed(l.ms)) this.call(l);
        return;
      case 'output': {
        // A replayed call was never opened here: its replayed output settles nothing.
        const name = l.id === null ? undefined : this.pending.settle(l.id);
        if (name !== undefined && l.failed) tallyFailure(f, name);
        f.live = { state: 'working', atMs: l.ms, detail: null, pendingTool: this.pending.newest() };
        return;
      }
      case 'prompt': {
        // The person spoke: the next response shows this turn's order afresh.
        this.order = null;
        this.calls = [];
        this.open = null;
        if (this.replayed(l.ms)) this.replayPrompt = oneLine(l.text);
        else noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'title':
        f.titles.custom = oneLine(l.text);
        return;
      case 'turn':
        switch (l.event) {
          case 'started':
            f.live = { state: 'working', atMs: l.ms, detail: null };
            return;
          case 'complete':
            f.live = { state: 'idle', atMs: l.ms, detail: 'task_complete' };
            return;
          case 'aborted':
            f.aborts++;
            f.live = { state: 'idle', atMs: l.ms, detail: l.detail ?? 'turn_aborted' };
            return;
          case 'error':
            f.live = { state: 'error', atMs: l.ms, detail: l.detail ? oneLine(l.detail) : 'error' };
            return;
        }
        return;
      case 'compaction':
        if (l.marker === 'compacted') {
          f.compactions++;
          this.boundaryOpen = true;
        } else if (this.boundaryOpen) this.boundaryOpen = false;
        else f.compactions++;
        return;
      case 'said':
      case 'activity':
        if (l.kind === 'said') this.order ??= 'after';
        if (f.live?.state !== 'waiting' || this.pending.size === 0) {
          f.live = { state: 'working', atMs: l.ms, detail: null, pendingTool: this.pending.newest() };
        }
        return;
      case 'other':
        return;
    }
  }

  private tokens(l: Extract<CodexLine, { kind: 'tokens' }>): void {
    const f = this.facts;
    if (l.rateLimits !== null) f.rateLimits = bounded(l.rateLimits) ?? f.rateLimits;
    if (l.window !== null) f.reportedWindow = l.window;
    const prev = this.previousTotal;
    if (l.total !== null) {
      if (prev !== null && sameUsage(l.total, prev)) return; // the same event again: nothing new
      this.previousTotal = l.total;
    }
    let delta = l.last;
    if (delta === null && l.total !== null) {
      delta = prev !== null && l.total.total >= prev.total ? minus(l.total, prev) : l.total;
    }
    if (delta === null) return;
    if (delta.input === 0 && delta.cached === 0 && delta.output === 0 && delta.reasoning === 0) return;
    let cached = delta.cached;
    if (cached > delta.input || delta.input < 0 || delta.output < 0 || cached < 0) {
      f.inconsistentUsage++;
      cached = Math.max(0, Math.min(cached, delta.input));
    }
    const model = this.model ?? 'unknown';
    noteModel(f, model);
    this.order ??= 'before';
    const tools = this.order === 'after' ? this.calls : [];
    this.calls = [];
    const at = this.ledger.push({
      key: hashString(`${l.stamp}|${usageKey(l.total ?? delta)}`),
      request: 0,
      tsMs: l.ms ?? f.lastMs ?? 0,
      model,
      // A spawned subagent's own request: counted with its parent's session, as a subagent's.
      sidechain: f.parentSession != null,
      tokens: {
        input: Math.max(0, delta.input - cached),
        output: Math.max(0, delta.output),
        cacheRead: cached,
        cacheWrite5m: null,
        cacheWrite1h: null,
        reasoning: Math.max(0, delta.reasoning),
      },
      tools,
    });
    this.open = this.order === 'before' ? at : null;
    if (l.last !== null) f.context = { prompt: l.last.input, model, atMs: l.ms };
  }
}
