/**
 * Turns one agent's stdout, a line at a time, into events and the facts known at the end.
 *
 * The agent-specific reading lives in `agents/*.ts` as a {@link Dialect}; this file holds what all
 * of them share: JSON framing, counting lines that are not JSON, firing `started` once, the pending
 * tool map, and the bounds every event passes through on its way out. It does no I/O.
 *
 * Lines that do not parse never fail a run (agents interleave banners and warnings with their
 * JSON); they are counted and the first is sampled, so that a vendor changing its format shows up
 * as a diagnosis rather than an empty answer.
 */
import type { JsonObject } from '../model/json.js';
import { obj, str } from '../model/json.js';
import { emptyUsage, type TokenCounts, type Usage } from '../model/usage.js';
import {
  acceptId,
  boundLabel,
  boundText,
  boundValue,
  Capture,
  headBytes,
  MAX_EVENT_BYTES,
  MAX_PENDING_TOOL_BYTES,
  MAX_PENDING_TOOLS,
  MAX_UNPARSED_SAMPLE,
  usableId,
} from './bounds.js';
import type { CredentialSource } from './credentials.js';
import type { AcpIdentity, Event, RateLimit, Stop } from './events.js';

/** `stream`: the agent's JSON lines. `text`: plain output, where every line is answer. */
export type Format = 'stream' | 'text';

/** What is only known once the stream ends. */
export interface Terminal {
  session: string | null;
  /** The model as the agent named it first: for Claude, the resolved name that keys `modelUsage`. */
  model: string | null;
  /** The authoritative answer. */
  text: string;
  /** This run's usage. A figure the agent gives only as a running total is settled by the agent's spec. */
  usage: Usage;
  /** The conversation's running token total, as the agent last reported it. */
  threadUsage: TokenCounts | null;
  /** The conversation's running cost, as the agent last priced it. */
  threadCostUsd: number | null;
  stop: Stop;
  rateLimit: RateLimit | null;
  unparsed: number;
  firstUnparsed: string | null;
  structured: unknown;
  errorStatus: number | null;
  errorMessage: string | null;
  /** The credential the agent itself said it runs under (Claude's `apiKeySource`); null when it said none. */
  credential: CredentialSource | null;
  /** On an ACP run, which agent it was (`Outcome.acp`). */
  acp?: AcpIdentity;
}

/**
 * Something the runner has to act on that is not an event for the consumer: Claude's control
 * channel asks questions that need an answer on stdin.
 */
export type ControlNote =
  /** An approval was emitted; `input` is the tool's original arguments, to echo back on approval. */
  | { kind: 'approval'; id: string; input: unknown }
  /** A control request drive does not handle; it must still be answered or the agent waits forever. */
  | { kind: 'unanswerable'; id: string; subtype: string }
  /** The agent withdrew an approval request it had asked. */
  | { kind: 'withdrawn'; id: string };

/**
 * Tool names by call id, so a result can be attributed to its call. Bounded by count and by bytes:
 * an agent announcing calls it never finishes cannot grow it.
 */
export class PendingTools {
  private readonly names = new Map<string, string>();
  private held = 0;

  /** Track a call. False when the id is unusable or a budget is spent (the call is simply not tracked). */
  remember(id: string, name: string): boolean {
    if (!usableId(id)) return false;
    const label = boundLabel(name);
    const cost = Buffer.byteLength(id) + Buffer.byteLength(label);
    const previous = this.names.get(id);
    const freed = previous === undefined ? 0 : Buffer.byteLength(id) + Buffer.byteLength(previous);
    if (previous === undefined && this.names.size >= MAX_PENDING_TOOLS) return false;
    if (this.held - freed + cost > MAX_PENDING_TOOL_BYTES) return false;
    this.names.set(id, label);
    this.held += cost - freed;
    return true;
  }

  has(id: string): boolean {
    return this.names.has(id);
  }

  /** The tool a pending call named (shortened as a label), if it is tracked. */
  nameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** Stop tracking an answered call, releasing its budget. */
  forget(id: string): void {
    const name = this.names.get(id);
    if (name === undefined) return;
    this.names.delete(id);
    this.held -= Buffer.byteLength(id) + Buffer.byteLength(name);
  }

  get size(): number {
    return this.names.size;
  }

  get bytes(): number {
    return this.held;
  }
}

/** Milestones of a stream that later records are read differently after. */
export interface Seen {
  started: boolean;
  /** A record of this agent's own shape arrived: the output really is what was asked for. */
  structured: boolean;
  /** Terminal records so far: each settles one turn (a run with mid-run input has several). */
  turns: number;
  /** The command catalogue was reported (a compaction re-initialises and lists it again). */
  catalogue: boolean;
  /** The message id whose usage was last reported: one model call arrives as several records. */
  usageOf: string | null;
  /** Token deltas arrived, so the completed message that follows would repeat them. */
  deltas: boolean;
}

/** The mutable state a dialect reads a record against. */
export interface ParseState {
  readonly terminal: Terminal;
  readonly tools: PendingTools;
  readonly seen: Seen;
  /**
   * The prompt size of the newest request in the turn: the honest context figure. Terminal usage
   * sums every request of a turn, so a tool-heavy turn counts the conversation once per round trip.
   */
  latestContext: number | null;
  /** Notes for the runner, taken after every line. */
  readonly control: ControlNote[];
}

/** One agent's reading of its own records. */
export interface Dialect {
  /** Whether a record `type` is one this agent writes. */
  recognizes(type: string): boolean;
  /** The events one record produced; may update `state`. Bounds are applied after. */
  read(record: JsonObject, state: ParseState): Event[];
  /** The model a record names, where this agent puts it. */
  modelOf(record: JsonObject): string | null;
}

export function emptyTerminal(): Terminal {
  return {
    session: null,
    model: null,
    text: '',
    usage: emptyUsage(),
    threadUsage: null,
    threadCostUsd: null,
    stop: { kind: 'completed' },
    rateLimit: null,
    unparsed: 0,
    firstUnparsed: null,
    structured: null,
    errorStatus: null,
    errorMessage: null,
    credential: null,
  };
}

/**
 * Apply the payload bounds to an event. Correlating identifiers are never shortened: an unusable
 * tool id is dropped (the event still says what happened); session and approval ids were already
 * refused upstream, since an event without them would be meaningless.
 */
export function enforceBounds(event: Event): Event {
  switch (event.kind) {
    case 'text':
    case 'thinking':
    case 'notice':
      return { ...event, text: boundText(event.text) };
    case 'tool_call':
      return {
        ...event,
        id: acceptId(event.id),
        name: boundLabel(event.name),
        input: boundValue(event.input),
      };
    case 'tool_result':
      return { ...event, id: acceptId(event.id), output: boundText(event.output) };
    case 'started':
      return { ...event, model: event.model === null ? null : boundLabel(event.model) };
    case 'usage':
      return event;
    case 'approval_request':
      return { ...event, tool: boundLabel(event.tool), input: boundValue(event.input) };
    case 'rate_limit': {
      const l = event.limit;
      const label = (v: string | null) => (v === null ? null : boundLabel(v));
      return {
        kind: 'rate_limit',
        limit: {
          ...l,
          status: boundLabel(l.status),
          window: label(l.window),
          overageStatus: label(l.overageStatus),
        },
      };
    }
    case 'compaction': {
      const c = event.compaction;
      if (c.phase === 'started') return event;
      return {
        kind: 'compaction',
        compaction: { ...c, error: c.error === null ? null : boundText(c.error) },
      };
    }
    case 'commands':
      return {
        kind: 'commands',
        commands: { all: boundList(event.commands.all), skills: boundList(event.commands.skills) },
      };
    case 'plan': {
      const contents = boundList(event.entries.map((e) => e.content));
      return {
        kind: 'plan',
        entries: contents.map((content, i) => ({ ...event.entries[i]!, content })),
      };
    }
  }
}

/**
 * Names each shortened like a label, and the list cut once its total reaches one event's payload:
 * the count of names is otherwise bounded only by the line, which would put a 512 KiB event in the
 * queue. A deliberate limit: a catalogue that large is not one a person reads.
 */
function boundList(names: string[]): string[] {
  const out: string[] = [];
  let used = 0;
  for (const name of names) {
    const label = boundLabel(name);
    used += Buffer.byteLength(label) + 3;
    if (used > MAX_EVENT_BYTES) break;
    out.push(label);
  }
  return out;
}

/** Feed it lines; it returns events and, at the end, the {@link Terminal}. */
export class StreamParser {
  private readonly state: ParseState = {
    terminal: emptyTerminal(),
    tools: new PendingTools(),
    seen: {
      started: false,
      structured: false,
      turns: 0,
      catalogue: false,
      usageOf: null,
      deltas: false,
    },
    latestContext: null,
    control: [],
  };
  /** Only a plain-text run accumulates its answer line by line, so only it needs a capped buffer. */
  private readonly plain = new Capture();

  constructor(
    private readonly dialect: Dialect,
    private readonly format: Format = 'stream',
  ) {}

  push(raw: string): Event[] {
    const line = raw.trim();
    if (line === '') return [];
    const t = this.state.terminal;
    if (this.format === 'text') {
      this.plain.appendLine(line);
      return [enforceBounds({ kind: 'text', text: line })];
    }
    let record: JsonObject | null = null;
    try {
      record = obj(JSON.parse(line));
    } catch {
      record = null;
    }
    if (record === null) {
      t.unparsed++;
      // One short sample identifies a changed shape; keeping every stray line would be a new leak.
      t.firstUnparsed ??= headBytes(line, MAX_UNPARSED_SAMPLE);
      return [];
    }
    const type = str(record.type);
    if (type !== null && this.dialect.recognizes(type)) this.state.seen.structured = true;
    const out = this.dialect.read(record, this.state).map(enforceBounds);
    if (!this.state.seen.started && t.session !== null) {
      this.state.seen.started = true;
      const model = this.dialect.modelOf(record);
      t.model ??= model;
      out.unshift(enforceBounds({ kind: 'started', session: t.session, model }));
    } else if (t.model === null) {
      // Copilot names its model only on a later record than the one that revealed the session.
      t.model = this.dialect.modelOf(record);
    }
    return out;
  }

  /** Control-channel notes from the lines pushed since the last call. */
  takeControl(): ControlNote[] {
    return this.state.control.splice(0);
  }

  /** The agent's terminal record arrived, so the turn is over. */
  get sawTerminal(): boolean {
    return this.state.seen.turns > 0;
  }

  /** How many turns settled: an interactive run closes stdin once every message sent has one. */
  get turns(): number {
    return this.state.seen.turns;
  }

  /** Any record of this agent's own shape arrived. */
  get sawStructured(): boolean {
    return this.state.seen.structured;
  }

  /** For tests and diagnostics: the pending-tool map's size. */
  get pendingTools(): PendingTools {
    return this.state.tools;
  }

  /** Everything known so far. Safe to call more than once (a timeout reports a partial). */
  terminal(): Terminal {
    const t = this.state.terminal;
    if (this.format === 'text') return { ...t, text: this.plain.text().trimEnd() };
    return { ...t, usage: { ...t.usage }, threadUsage: t.threadUsage === null ? null : { ...t.threadUsage } };
  }
}
