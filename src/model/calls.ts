/**
 * The tool activity of one session in words no harness owns: every call with its argument, when it
 * started and ended, whether it failed, what came back, the files it touched, and how much the
 * context grew after it; and the prompt size of every request. The report's tool, file and context
 * sections are built from this; each provider fills a `CallCollector` from its own records
 * (`Provider.calls`), so nothing here knows what any harness writes.
 *
 * What the collector does own is the one rule every harness shares: a call's growth is the prompt
 * of the first request after the call's result, less the prompt of the request that made the call.
 * Calls made by one response share that growth (`shared` when there are several). A request is one
 * point however many records repeat it (a key names it). Growth across a new user turn or a
 * compaction is not a call's doing: such a call keeps a growth of null.
 *
 * Harnesses disagree on where a request's size is written relative to the calls it made: with or
 * before them (one record holds both), after them (a step's closing record), or either way across
 * versions of one harness. `MeasureOrder` says which; `either` is settled per turn by what comes
 * first after the person speaks (a measure, or something the model said).
 *
 * Not the scan: it keeps what a reviewer wants from one session and nothing else, within bounds.
 */

import { noteChange, pathOf } from './call-files.js';
import { prettyToolName, toolDetail } from './tools.js';

/** Calls kept per session; a longer session keeps its newest and counts the rest. */
export const MAX_CALLS = 20_000;

/**
 * Calls waiting for a later request to learn their growth. A response makes a handful; the bound
 * only matters for calls whose result never comes, which are forgotten oldest first (growth null).
 */
export const MAX_AWAITING = 1024;

/**
 * Call ids remembered for their results. A result comes within a few records of its call; past this
 * the oldest unanswered call stops waiting (it keeps a null result, as a call still running does).
 */
export const MAX_OPEN_CALLS = 4096;

/**
 * Answered call ids remembered, so a call written again (a streamed response's later copy, a turn
 * Codex retried) is the same call, not another. Copies come within a few records of each other.
 */
export const RECENT_ANSWERED_IDS = 256;

/**
 * Request keys remembered, so a response written as several records (one per content block, each
 * repeating the usage) is one request. The copies of one response sit next to each other; 64 covers
 * a response of many blocks with room to spare.
 */
export const RECENT_REQUEST_KEYS = 64;

/**
 * Requests kept in the series. The report draws at most `MAX_SERIES_POINTS` (2,000) of them; past
 * this bound every other point is dropped, so a session of any length holds at most 200,000 small
 * objects (a few megabytes) and its chart keeps its shape.
 */
export const MAX_REQUESTS = 200_000;

/** How a file was touched by a call: read, or written (and what the write changed). */
export type FileAccess = 'read' | 'write';

export interface Call {
  /** `main`, or the agent id of the subagent that made it. */
  origin: string;
  name: string;
  detail: string;
  /** The argument in full, the key failures are grouped by. */
  argument: string;
  startMs: number | null;
  /** Null while running, and where the harness does not record when a call ended. */
  endMs: number | null;
  /** Null while running (or when the harness records no result). */
  result: string | null;
  failed: boolean;
  added: number;
  removed: number;
  /** Files read or written, with what each write changed. */
  files: { path: string; write: boolean; added: number; removed: number }[];
  /** Context growth from the request that made the call to the next one; shared by parallel calls. */
  growth: number | null;
  shared: boolean;
}

/** One point of the context series. */
export interface RequestPoint {
  ms: number | null;
  /** The whole prompt: uncached input, cache reads and cache writes. */
  prompt: number;
}

export interface CallLog {
  calls: Call[];
  dropped: number;
  /** Prompt size of every main-thread request, in order (thinned past `MAX_REQUESTS`). */
  requests: RequestPoint[];
  compactions: (number | null)[];
  /** What the context holds now, where the harness lets it be told (Claude Code). */
  breakdown: Breakdown | null;
}

/**
 * What fills the context window, over the live segment (since the last compaction). The window and
 * the startup (the first request of the segment: system prompt, tools, memory files, the summary)
 * are measured; the rest are estimates from the text the transcript keeps. `unaccounted` is what is
 * left, signed and never clamped: thinking is stored without its text and system reminders are not
 * stored at all, so it can be large, or negative when an estimate ran high.
 */
export interface Breakdown {
  window: number;
  startup: number;
  toolOutput: number;
  toolInput: number;
  attachments: number;
  user: number;
  assistant: number;
  unaccounted: number;
}

export const emptyCallLog = (): CallLog => ({
  calls: [],
  dropped: 0,
  requests: [],
  compactions: [],
  breakdown: null,
});

/** Where a harness writes a request's prompt size relative to the calls that request made. */
export type MeasureOrder =
  /** With or before its calls: the record that holds the usage holds the calls. */
  | 'before'
  /** After its calls: a closing record per step. */
  | 'after'
  /** Either, depending on the harness's version: each turn shows which by what comes first. */
  | 'either';

/** What a new call is, as the harness recorded it. */
export interface CallStart {
  /** The harness's id for the call, which its result names; null when it records none. */
  id: string | null;
  /** `main`, or the subagent that made it: only the main thread's calls grow the context measured. */
  origin: string;
  /** The tool's name as the harness wrote it. */
  name: string;
  input: unknown;
  ms: number | null;
  /** How the call touches the file its input names, when it is a file tool. */
  access: FileAccess | null;
}

interface Request {
  /** Order of arrival: a call is charged only by a request after the one that made it. */
  seq: number;
  point: RequestPoint;
}

interface Awaiting {
  call: Call;
  made: Request;
}

export class CallCollector {
  readonly log: CallLog = emptyCallLog();
  /** Calls waiting for their result, by id. */
  private readonly byId = new Map<string, Call>();
  /** Calls answered lately, by id: a copy of one is not a new call. */
  private readonly answeredIds = new Map<string, Call>();
  private readonly keys = new Map<string, Request>();
  private awaiting: Awaiting[] = [];
  private seq = 0;
  /** This turn's order, once known (always known unless the harness's order is `either`). */
  private order: 'before' | 'after' | null;
  /** `before`: the request whose calls are arriving now. */
  private open: Request | null = null;
  /** `after`: the calls of the response in progress, until its measure arrives. */
  private unmeasured: Call[] = [];

  constructor(private readonly policy: MeasureOrder) {
    this.order = policy === 'either' ? null : policy;
  }

  /**
   * A main-thread request, with its whole prompt. Records with the same `key` are one request; a
   * null key is always a new one.
   */
  measure(ms: number | null, prompt: number, key: string | null): void {
    const seen = key === null ? undefined : this.keys.get(key);
    if (seen !== undefined) {
      // Another copy of a response already counted: the fullest copy's prompt stands.
      seen.point.prompt = Math.max(seen.point.prompt, prompt);
      this.attach(seen);
      return;
    }
    const request: Request = { seq: this.seq++, point: { ms, prompt } };
    this.addPoint(request.point);
    if (key !== null) {
      this.keys.set(key, request);
      if (this.keys.size > RECENT_REQUEST_KEYS) this.keys.delete(this.keys.keys().next().value!);
    }
    this.charge(request);
    this.order ??= 'before';
    this.attach(request);
  }

  /** Something the model said that is not a call (words, thinking): it tells `either` the order. */
  said(): void {
    this.order ??= 'after';
  }

  call(c: CallStart): Call {
    const known = c.id === null ? undefined : (this.byId.get(c.id) ?? this.answeredIds.get(c.id));
    if (known !== undefined) return known;
    const { detail, full } = toolDetail(c.name, c.input);
    const path = c.access === null ? null : pathOf(c.input);
    const call: Call = {
      origin: c.origin,
      name: prettyToolName(c.name),
      detail,
      argument: full ?? detail,
      startMs: c.ms,
      endMs: null,
      result: null,
      failed: false,
      added: 0,
      removed: 0,
      files: path === null ? [] : [{ path, write: c.access === 'write', added: 0, removed: 0 }],
      growth: null,
      shared: false,
    };
    if (this.log.calls.length >= MAX_CALLS) {
      this.log.calls.shift();
      this.log.dropped++;
    }
    this.log.calls.push(call);
    if (c.id !== null) {
      this.byId.set(c.id, call);
      if (this.byId.size > MAX_OPEN_CALLS) this.byId.delete(this.byId.keys().next().value!);
    }
    if (c.origin === 'main') {
      this.order ??= 'after';
      if (this.order === 'before') {
        if (this.open !== null) this.wait(call, this.open);
      } else {
        this.unmeasured.push(call);
        if (this.unmeasured.length > MAX_AWAITING) this.unmeasured.shift();
      }
    }
    return call;
  }

  /** A call the harness recorded as asked for earlier has started running now. */
  started(id: string, ms: number | null): void {
    const call = this.byId.get(id);
    if (call !== undefined && ms !== null) call.startMs = ms;
  }

  /** Whether a call with this id was seen and has no result yet. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** How a call ended. `text` is already bounded by the reader. */
  result(
    id: string | null,
    ms: number | null,
    failed: boolean,
    text: string,
    delta: { added: number; removed: number } | null,
  ): void {
    if (id === null) return;
    const call = this.byId.get(id);
    if (call === undefined) return;
    this.byId.delete(id);
    this.answeredIds.set(id, call);
    if (this.answeredIds.size > RECENT_ANSWERED_IDS)
      this.answeredIds.delete(this.answeredIds.keys().next().value!);
    this.answered(call, ms, failed, text, delta);
  }

  /**
   * How a call ended, for harnesses that keep the outcome with the call itself (they start it with
   * a null id: nothing needs to find it later).
   */
  answered(
    call: Call,
    ms: number | null,
    failed: boolean,
    text: string,
    delta: { added: number; removed: number } | null,
  ): void {
    call.endMs = ms;
    call.failed = failed;
    call.result = text;
    if (delta !== null) noteChange(call, delta);
  }

  /** The person spoke: what was waiting for a later request grows nothing measurable. */
  turn(): void {
    this.forget();
    if (this.policy === 'either') this.order = null;
  }

  /** The context was compacted: the next request's size says nothing of the calls before it. */
  compaction(ms: number | null): void {
    this.log.compactions.push(ms);
    this.forget();
  }

  private forget(): void {
    this.awaiting = [];
    this.unmeasured = [];
    this.open = null;
  }

  /** The calls this request made are the ones arriving now (`before`) or just seen (`after`). */
  private attach(request: Request): void {
    if (this.order === 'before') {
      this.open = request;
      return;
    }
    for (const call of this.unmeasured) this.wait(call, request);
    this.unmeasured = [];
    this.open = null;
  }

  private wait(call: Call, made: Request): void {
    this.awaiting.push({ call, made });
    if (this.awaiting.length > MAX_AWAITING) this.awaiting.shift();
  }

  /** A new request: every call answered since its maker was sent learns what it grew. */
  private charge(now: Request): void {
    const due: Awaiting[] = [];
    const still: Awaiting[] = [];
    for (const a of this.awaiting) (a.call.result !== null && a.made.seq < now.seq ? due : still).push(a);
    if (due.length === 0) return;
    this.awaiting = still;
    const perRequest = new Map<Request, number>();
    for (const a of due) perRequest.set(a.made, (perRequest.get(a.made) ?? 0) + 1);
    for (const a of due) {
      a.call.growth = now.point.prompt - a.made.point.prompt;
      a.call.shared = perRequest.get(a.made)! > 1;
    }
  }

  private addPoint(point: RequestPoint): void {
    const list = this.log.requests;
    list.push(point);
    if (list.length > MAX_REQUESTS)
      this.log.requests = list.filter((_, i) => i % 2 === 0 || i === list.length - 1);
  }
}
