/**
 * Claude Code transcript lines → session facts and ledger records, one line at a time.
 *
 * The parser is resumable: everything it needs to continue from a byte offset is in `facts` and
 * `carry`, both plain JSON, so the index can tail a growing transcript instead of re-reading it.
 *
 * Deduplication happens in two places. Here, the partial copies of one response that Claude Code
 * writes as a stream (same `message.id` and `requestId`, usage growing) collapse to their most
 * complete copy when they are close together. Across files (a resumed session replays its parent, a
 * `/btw` side question replays the main thread) the ledger is deduplicated on read; see
 * `model/dedupe.ts`.
 */
import {
  type FileFacts,
  MAX_SUMMARIES,
  noteModel,
  noteTime,
  oneLine,
  TAIL_UUIDS,
  tallyFailure,
  tallyTool,
} from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { type IdHash, idNumber, type LedgerBuilder, type RequestRecord } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { added, booleanOf, carriedCalls, listOf, numberOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt, promptTitleSettled } from '../title.js';
import type { CarryReader } from '../types.js';
import { claudePermission } from './permission.js';
import type { ClaudeLine, ClaudeUsage } from './record.js';

/** Completed call ids remembered, so a repeated copy of a tool_use block is not counted twice. */
export const RECENT_TOOL_IDS = 256;

/** Responses remembered for collapsing streamed partial copies within one pass. */
const RECENT_RESPONSES = 32;

/**
 * Of those, the newest carried to the next pass over a growing file: only a response still being
 * written when the pass ended gets more copies, and the few newest are kept in case a subagent's
 * lines came between. Every transcript's row keeps its carry, so it stays a few numbers.
 */
const CARRIED_RESPONSES = 4;

export interface ClaudeCarry {
  /** `[toolUseId, toolName]` of calls without a result yet, oldest first (ids as `idNumber`s). */
  pending: CarriedCall<number>[];
  /** Ids of calls already counted whose result arrived, newest last. */
  done: number[];
  /** A `compact_boundary` was seen and its summary record has not arrived yet. */
  boundaryOpen: boolean;
  /**
   * The newest responses' `[message id, request id, ledger index]`, oldest first: a response streamed
   * across two passes over a growing file still collapses into one record, whose tools are every
   * copy's (absent in a carry written before they were kept).
   */
  recent?: [number, number, number][];
}

export const emptyClaudeCarry = (): ClaudeCarry => ({ pending: [], done: [], boundaryOpen: false });

const responseIds = (v: unknown): [number, number, number] | undefined => {
  const n = listOf(v, numberOf);
  return n !== undefined && n.length === 3 ? [n[0]!, n[1]!, n[2]!] : undefined;
};

/** A `ClaudeCarry` as the index hands it back, checked (`providers/carry.ts`). */
export const readClaudeCarry: CarryReader<ClaudeCarry> = (stored) => {
  const o = obj(stored);
  if (o === null) return undefined;
  const pending = carriedCalls(o.pending, numberOf);
  const done = listOf(o.done, numberOf);
  const boundaryOpen = booleanOf(o.boundaryOpen);
  const recent = added(o.recent, (v) => listOf(v, responseIds), []);
  if (pending === undefined || done === undefined || boundaryOpen === undefined || recent === undefined)
    return undefined;
  return { pending, done, boundaryOpen, recent };
};

const INTERRUPTED = '[Request interrupted by user';

/** Harness bookkeeping that arrives as a user record but is not something the user typed. */
function isHarnessText(s: string): boolean {
  const t = s.trimStart();
  return (
    t.startsWith('<local-command-') ||
    t.startsWith('<system-reminder>') ||
    t.startsWith('Caveat: ') ||
    t.startsWith('<bash-') ||
    t.startsWith('<user-prompt-submit-hook>') ||
    t.startsWith('<task-notification>') ||
    t.startsWith(INTERRUPTED)
  );
}

/** A readable title from a prompt: a slash command reads as `/name args`. */
export function promptTitle(s: string): string | null {
  const name = /<command-name>([^<]*)<\/command-name>/.exec(s);
  if (name) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(s);
    const title = `${name[1]!.trim()} ${args?.[1]?.trim() ?? ''}`.trim();
    return title.length > 0 ? oneLine(title) : null;
  }
  if (isHarnessText(s)) return null;
  const t = oneLine(s);
  return t.length > 0 ? t : null;
}

/**
 * The tools of a response that called none. Made from a one-element array of strings so that it has
 * the same elements kind as the lists `toolNames` builds (an empty literal starts as an array of small
 * integers): the ledger's `write` and `request` below then see one kind of array, not two, and V8's
 * optimised code for them is not thrown away the first time the other kind turns up.
 */
const NO_TOOLS: readonly string[] = (() => {
  const none = [''];
  none.pop();
  return none;
})();

/** The tools a response's line called (its `tool_use` blocks), without an array for the many that call none. */
function toolNames(l: ClaudeLine): readonly string[] {
  if (l.toolUses.length === 0) return NO_TOOLS;
  // Pushed, not `map`ped: `map` makes a holey array, another kind again (see `NO_TOOLS`).
  const names: string[] = [];
  for (const t of l.toolUses) names.push(t.name);
  return names;
}

/**
 * Give the two lists of the facts that every response and prompt adds to the kind of elements they
 * will hold: a new file's facts start them empty, which V8 takes for lists of small integers, and the
 * first uuid (a large number) or model name then throws away the optimised `line` or `request` of a
 * one-shot run that reads many files. An element added and removed leaves a list as it was, but
 * of the kind it will end up.
 */
function settleKinds(facts: FileFacts): void {
  if (facts.tailUuids.length === 0) {
    facts.tailUuids.push(0.5);
    facts.tailUuids.pop();
  }
  if (facts.models.length === 0) {
    facts.models.push('');
    facts.models.pop();
  }
}

export class ClaudeParser {
  private pending: PendingCalls<number>;
  private done: number[];
  private doneSet: Set<number>;
  private boundaryOpen: boolean;
  /**
   * Message id, request id and ledger index of the newest responses, for collapsing streamed copies:
   * a ring (a pair is never in it twice, so the order it is searched in does not matter), in flat
   * arrays because it is searched for every response.
   */
  private recentIds: number[] = [];
  private recentRequests: number[] = [];
  private recentAt: number[] = [];
  private recentNext = 0;

  /**
   * @param subagent the file is a subagent's own transcript: its sidechain records are its main
   * thread (its first prompt names it, its last record says what it is doing).
   */
  constructor(
    readonly facts: FileFacts,
    carry: ClaudeCarry,
    private readonly ledger: LedgerBuilder,
    private readonly subagent = false,
  ) {
    settleKinds(facts);
    this.pending = new PendingCalls(carry.pending);
    this.done = [...carry.done];
    this.doneSet = new Set(carry.done);
    this.boundaryOpen = carry.boundaryOpen;
    for (const [id, request, at] of (carry.recent ?? []).slice(-CARRIED_RESPONSES)) {
      this.recentIds.push(id);
      this.recentRequests.push(request);
      this.recentAt.push(at);
    }
    this.recentNext = this.recentIds.length % RECENT_RESPONSES;
  }

  carry(): ClaudeCarry {
    return {
      pending: this.pending.carry(),
      done: [...this.done],
      boundaryOpen: this.boundaryOpen,
      recent: this.newestResponses(),
    };
  }

  /** The newest `CARRIED_RESPONSES` of the ring, oldest first. */
  private newestResponses(): [number, number, number][] {
    const n = this.recentIds.length;
    const out: [number, number, number][] = [];
    for (let back = Math.min(n, CARRIED_RESPONSES); back > 0; back--) {
      const k = (this.recentNext - back + n) % n;
      out.push([this.recentIds[k]!, this.recentRequests[k]!, this.recentAt[k]!]);
    }
    return out;
  }

  line(l: ClaudeLine): void {
    const f = this.facts;
    noteTime(f, l.ms);
    if (f.sessionId === null && l.sessionId !== null) f.sessionId = l.sessionId;
    if (f.cwd === null && l.cwd !== null) f.cwd = l.cwd;
    if (l.gitBranch !== null) f.gitBranch = l.gitBranch;
    if (l.permissionMode !== null && l.permissionMode !== f.permissionMode) {
      f.permissionMode = l.permissionMode;
      f.permission = claudePermission(l.permissionMode);
    }
    if (l.customTitle !== null) f.titles.custom = oneLine(l.customTitle);
    if (l.aiTitle !== null) f.titles.ai = oneLine(l.aiTitle);
    if (l.summary !== null) this.summary(l.summary.leaf, l.summary.text);
    const main = this.subagent || !l.sidechain;
    if (main && l.uuid !== null && (l.type === 'user' || l.type === 'assistant')) {
      f.tailUuids.push(l.uuid);
      if (f.tailUuids.length > TAIL_UUIDS) f.tailUuids.shift();
    }

    if (l.usage !== null || l.advisors.length > 0) this.usage(l);
    for (const t of l.toolUses) this.toolUse(t.id, t.name);
    for (const r of l.toolResults) this.toolResult(r.id, r.isError);
    if (l.patch !== null) {
      f.linesAdded = (f.linesAdded ?? 0) + l.patch.added;
      f.linesRemoved = (f.linesRemoved ?? 0) + l.patch.removed;
    }

    if (main) {
      this.compaction(l);
      this.liveState(l);
      // The title rule is shared; what reads as a title here (a slash command's tags) is Claude's.
      if (l.prompt !== null && l.type === 'user' && !promptTitleSettled(f))
        noteFirstPrompt(f, promptTitle(l.prompt));
    }
  }

  private summary(leafUuid: number, summary: string): void {
    const list = this.facts.titles.summaries;
    const at = list.findIndex(([leaf]) => leaf === leafUuid);
    if (at !== -1) list.splice(at, 1);
    list.push([leafUuid, oneLine(summary)]);
    if (list.length > MAX_SUMMARIES) list.shift();
  }

  private usage(l: ClaudeLine): void {
    const model = l.model ?? 'unknown';
    if (l.usage !== null && model !== '<synthetic>') {
      this.request(l, model, l.usage, l.messageId, l.requestId, toolNames(l));
      if (this.subagent || !l.sidechain) {
        this.facts.mainModel = model;
        const u = l.usage;
        this.facts.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model, atMs: l.ms };
      }
    }
    l.advisors.forEach((a, i) => {
      // An advisor's usage is its own response, identified by the message and its place in it.
      const m = l.messageId;
      const key = m === null ? null : { hi: (m.hi ^ 0xad715e0) >>> 0, lo: (m.lo + i + 1) >>> 0 };
      // What an advisor's turn called is not written down: its tools are unknown.
      this.request(l, a.model, a.usage, key, l.requestId, null);
    });
  }

  private request(
    l: ClaudeLine,
    model: string,
    u: ClaudeUsage,
    key: IdHash | null,
    requestId: IdHash | null,
    tools: readonly string[] | null,
  ): void {
    noteModel(this.facts, model);
    const request = requestId === null ? 0 : requestId.hi;
    const record: RequestRecord = {
      key,
      request,
      tsMs: l.ms ?? this.facts.lastMs ?? 0,
      model,
      sidechain: l.sidechain,
      tokens: {
        input: u.input,
        output: u.output,
        cacheRead: u.cacheRead,
        cacheWrite5m: u.cacheWrite - u.cacheWrite1h,
        cacheWrite1h: u.cacheWrite1h,
        reasoning: u.reasoning,
      },
      tools,
      fast: u.fast,
    };
    if (key === null) {
      this.ledger.push(record);
      return;
    }
    // Streaming writes one response several times with growing usage: keep the most complete copy.
    const id = idNumber(key);
    for (let k = 0; k < this.recentIds.length; k++) {
      if (this.recentIds[k] === id && this.recentRequests[k] === request) {
        const seen = this.recentAt[k]!;
        const total = u.input + u.output + u.cacheRead + u.cacheWrite;
        // Each copy holds some of the response's content blocks: its tools are all the copies' calls.
        if (total > this.ledger.total(seen)) {
          const before = this.ledger.toolsAt(seen);
          this.ledger.replace(seen, record);
          if (before !== null && before.length > 0) this.ledger.addTools(seen, before);
        } else if (tools !== null && tools.length > 0) this.ledger.addTools(seen, tools);
        return;
      }
    }
    // The oldest response is forgotten first.
    const k = this.recentNext;
    this.recentIds[k] = id;
    this.recentRequests[k] = request;
    this.recentAt[k] = this.ledger.push(record);
    this.recentNext = (k + 1) % RECENT_RESPONSES;
  }

  private toolUse(id: number | null, name: string): void {
    if (id !== null) {
      if (this.pending.has(id) || this.doneSet.has(id)) return;
      this.pending.open(id, name);
    }
    tallyTool(this.facts, name);
  }

  private toolResult(id: number | null, isError: boolean): void {
    if (id === null) {
      // A result that names no call still happened; its failure counts, under no tool's name.
      if (isError) tallyFailure(this.facts, '(unknown)');
      return;
    }
    const name = this.pending.settle(id);
    if (name === undefined) return; // a result for a call we never saw (or saw completed)
    this.done.push(id);
    this.doneSet.add(id);
    if (this.done.length > RECENT_TOOL_IDS) this.doneSet.delete(this.done.shift()!);
    if (isError) tallyFailure(this.facts, name);
  }

  private compaction(l: ClaudeLine): void {
    if (l.type === 'system' && l.subtype === 'compact_boundary') {
      this.facts.compactions++;
      this.boundaryOpen = true;
    } else if (l.isCompactSummary) {
      // The summary that follows a boundary is the same compaction, marked a second way.
      if (this.boundaryOpen) this.boundaryOpen = false;
      else this.facts.compactions++;
    }
  }

  private liveState(l: ClaudeLine): void {
    const f = this.facts;
    const at = l.ms;
    switch (l.type) {
      case 'assistant': {
        if (l.isApiErrorMessage) {
          f.live = { state: 'error', atMs: at, detail: 'API error' };
          return;
        }
        const ask = l.toolUses.find((t) => isAskUserTool(t.name));
        if (ask) f.live = { state: 'waiting', atMs: at, detail: ask.name };
        else if (l.stopReason === 'end_turn' && l.toolUses.length === 0) {
          f.live = { state: 'idle', atMs: at, detail: 'end_turn' };
        } else {
          const pending = l.toolUses.at(-1)?.name ?? null;
          f.live = { state: 'working', atMs: at, detail: null, pendingTool: pending };
        }
        return;
      }
      case 'user': {
        if (l.isMeta) return;
        if (l.prompt?.startsWith(INTERRUPTED)) {
          f.aborts++;
          f.live = { state: 'idle', atMs: at, detail: 'interrupted' };
          return;
        }
        if (l.toolResults.length > 0 || l.prompt !== null || l.isCompactSummary) {
          f.live = { state: 'working', atMs: at, detail: null };
        }
        return;
      }
      case 'system': {
        if (l.subtype === 'turn_duration') f.live = { state: 'idle', atMs: at, detail: 'turn_duration' };
        else if (l.subtype === 'api_error') f.live = { state: 'error', atMs: at, detail: 'API error' };
        return;
      }
      default:
        return;
    }
  }
}
