/**
 * How the runner talks to an agent over its stdio, as one interface with two kinds behind it.
 *
 * Most agents are line-based: stdout is JSON lines read by their dialect, stdin carries the prompt
 * or Claude's control channel ({@link LineConversation}). Others speak JSON-RPC over both pipes
 * (ACP agents, `src/drive/acp/`; codex app-server) or commands of their own (`pi --mode rpc`): a
 * request is answered on stdin, a reply read from stdout settles the turn. One is a server spoken to
 * over HTTP (`opencode serve`): its stdout only says where it listens, and its events arrive over
 * its own stream, handed to the runner through {@link RunnerHost}. The runner (`run.ts`) keeps everything else the same for both:
 * spawning the process group, pacing stdout against the event queue, the timeout, cancel, killing
 * and reaping, and telling how the run ended.
 *
 * What a conversation does not do: spawn, kill, time the run, or decide the outcome's error. It
 * reads lines into events, writes what the protocol needs, and reports what it knows.
 */
import type { Writable } from 'node:stream';
import type { StdinPlan } from './agents/spec.js';
import { ControlChannel } from './channel.js';
import type { Decision, Event } from './events.js';
import { type Dialect, type Format, StreamParser, type Terminal } from './parser.js';

/** What a run has read of the turn: the facts so far and whether the turn settled. */
export interface TurnRecord {
  /** Everything known so far. Safe to call more than once (a timeout reports a partial). */
  terminal(): Terminal;
  /** The turn settled: the agent's terminal record (or the reply that ends a prompt) arrived. */
  readonly sawTerminal: boolean;
}

/**
 * Why a conversation could not go on by itself, before or without a turn: the runner turns it into
 * the run's error (`verdict.ts`).
 */
export type Breakdown =
  /** The agent broke the protocol or never answered it (a handshake past its deadline). */
  | { kind: 'protocol'; message: string }
  /** The agent said it needs a login before it can open a session. */
  | { kind: 'not_authenticated'; message: string }
  /** The request needs something this agent said, once running, that it cannot do. */
  | { kind: 'unsupported'; what: string };

/** What a conversation may ask of the runner. */
export interface ConversationHost {
  /** The conversation cannot go on (its `breakdown` says why): stop the agent. */
  broke(): void;
  /**
   * The turn settled and stdin was ended, so the agent should exit now: the runner stops it if it
   * lingers (an RPC agent is a server; nothing else tells it the run is over).
   */
  settled(): void;
  /**
   * Events the conversation made later than the line that carried them (an ACP agent's, read by the
   * SDK on a later tick), or read from a stream of its own (OpenCode's server events), in order,
   * bounds applied: the runner queues them as it queues `read`'s, and drops them once the run stops.
   */
  emit(events: Event[]): void;
  /** The lines read so far have made their events (`Conversation.inFlight` went to 0): read on. */
  ready(): void;
}

export interface Conversation extends TurnRecord {
  /** The agent is spawned: write what goes first (the prompt, a handshake). */
  begin(stdin: Writable): void;
  /** One line of the agent's stdout: the events it makes for the caller, in order, bounds applied. */
  read(line: string): Event[];
  /**
   * Answer a waiting `approval_request`; false when none by that id waits. Throws a `DriveError` for
   * a decision the protocol cannot carry.
   */
  answer(id: string, decision: Decision): boolean;
  /**
   * Resolves once every line already read has made its events (those that arrive through
   * `ConversationHost.emit`); the runner waits for it before it tells the outcome. Absent: `read`
   * returns everything at once.
   */
  quiet?(): Promise<void>;
  /**
   * Lines read that have not yet made their events: the runner counts each as an event already in
   * the queue, and hands over no more once the two reach its depth, until `ready`, so events that
   * arrive later still count against the queue's bound.
   */
  readonly inFlight?: number;
  /** Another user message mid-run. */
  send(text: string): void;
  /** Whether stdin is still open for answers and messages. */
  readonly open: boolean;
  /** The run is being stopped: tell the agent where the protocol has a word for it, then end stdin. */
  close(): void;
  /** The run is over: write nothing more, and clear any timer of its own. */
  abandon(): void;
  /** Why the conversation broke off by itself; null while it has not. */
  readonly breakdown: Breakdown | null;
}

/**
 * What the runner also offers a conversation whose events do not come from the agent's stdout
 * (OpenCode's HTTP server: stdout only says where it listens, the events arrive over its `/event`
 * stream). Back-pressure holds for them as for stdout: the reader waits for {@link room} before it
 * reads more, so a slow consumer slows the agent's stream instead of growing memory.
 */
export interface RunnerHost extends ConversationHost {
  /** Resolves once the caller's queue has room (at once when it has); also once the run is over. */
  room(): Promise<void>;
  /**
   * The turn settled and the agent is a server that never exits by itself: stop it now, the way a
   * settled run ends, rather than after {@link ConversationHost.settled}'s grace.
   */
  done(): void;
}

/** Builds a conversation for a spawned run; `host` is the runner. */
export type ConversationFactory = (host: RunnerHost) => Conversation;

/**
 * A line-based agent: stdout through the agent's dialect, stdin as the invocation planned it
 * (closed, the prompt, or Claude's control channel). This is the conversation every agent had
 * before JSON-RPC ones existed, unchanged.
 */
export class LineConversation implements Conversation {
  readonly parser: StreamParser;
  private channel: ControlChannel | null = null;
  readonly breakdown = null;

  constructor(
    dialect: Dialect,
    format: Format,
    private readonly approvals: boolean,
    private readonly stdinPlan: StdinPlan,
  ) {
    this.parser = new StreamParser(dialect, format);
  }

  begin(stdin: Writable): void {
    this.channel = new ControlChannel(stdin, this.approvals);
    this.channel.begin(this.stdinPlan);
  }

  read(line: string): Event[] {
    const events = this.parser.push(line);
    // Control notes first: an approval answered on the caller's behalf must not reach the caller.
    const answered = this.channel?.take(this.parser.takeControl()) ?? new Set<string>();
    this.channel?.settled(this.parser.turns);
    return events.filter((e) => !(e.kind === 'approval_request' && answered.has(e.id)));
  }

  answer(id: string, decision: Decision): boolean {
    return this.channel?.answer(id, decision) ?? false;
  }

  send(text: string): void {
    this.channel?.send(text);
  }

  get open(): boolean {
    return this.channel?.open ?? false;
  }

  close(): void {
    this.channel?.close();
  }

  abandon(): void {
    this.channel?.abandon();
  }

  terminal(): Terminal {
    return this.parser.terminal();
  }

  get sawTerminal(): boolean {
    return this.parser.sawTerminal;
  }
}
