/**
 * One ACP run, as a conversation the runner drives (`conversation.ts`), spoken through the official
 * ACP SDK (`@agentclientprotocol/sdk`): the handshake (`initialize`, a session opened, loaded or
 * resumed, its mode), one `session/prompt`, the updates of that turn read into events, the agent's
 * permission requests turned into `approval_request` events and answered through `respond`, and
 * `session/cancel` when the run is stopped.
 *
 * What each request of the handshake says, and how its reply is read, is `handshake.ts`'s; this
 * module sends them in order, waits, and keeps where the run stands.
 *
 * The SDK frames, numbers and matches the JSON-RPC; its bytes come and go through `wire.ts`, which
 * keeps the runner's line bound and pacing and screens what the SDK would complain about on stderr.
 * The SDK settles everything on a later tick, so the events an update makes reach the runner through
 * `ConversationHost.emit` rather than `read`'s return, and the runner waits for `quiet` before it
 * finishes, so the last update is read before the outcome is told.
 *
 * Nothing the agent sends is left waiting: a permission request nobody asked for (no `approvals`),
 * or past `MAX_PENDING_APPROVALS`, is rejected at once; every other request (files, terminals, a
 * method drive never heard of) gets the SDK's "method not found", since drive offers no capability.
 * A handshake not finished within its deadline ends the run with a `protocol` error instead of a hang.
 *
 * What it does not do: spawn, pace or kill (the runner's), send more than one prompt (`send` is
 * refused: ACP takes a prompt at a time), carry a deny reason or changed arguments (ACP's answer is
 * an option id, nothing else), or offer files, terminals or MCP servers to the agent.
 */
import type { Writable } from 'node:stream';
import type { ClientConnection, ClientContext, RequestError } from '@agentclientprotocol/sdk';
import { type JsonObject, obj, str } from '../../model/json.js';
import type { Breakdown, Conversation, ConversationHost } from '../conversation.js';
import { DriveError } from '../errors.js';
import type { AcpIdentity, Decision, Event } from '../events.js';
import { emptyTerminal, enforceBounds, PendingTools, type Terminal } from '../parser.js';
import { type Plan, withSystem } from '../request.js';
import type { Reply } from '../rpc/peer.js';
import {
  INITIALIZE_PARAMS,
  modeRequest,
  type Next,
  NO_OFFERS,
  newSessionId,
  type Opening,
  openRequest,
  overdue,
  readInitialize,
  refusal,
} from './handshake.js';
import { type PermissionAnswer, Permissions } from './permissions.js';
import { ACP_HANDSHAKE_MS, type AcpAgent } from './request.js';
import { readToolCall, readUpdate, settlePrompt, type TurnState } from './updates.js';
import { UPDATE_METHOD, Wire } from './wire.js';

/** Where the run stands; the handshake deadline covers everything before `prompting`. */
type Phase = 'starting' | 'opening' | 'configuring' | 'prompting' | 'settled' | 'over';

/**
 * Updates of a new session that may arrive before its id is known: the SDK hands the `session/new`
 * reply and the notification after it to their handlers on separate promise chains, so the
 * notification can win (Gemini CLI 0.61.0 sends its commands right after the reply). A handful is
 * all an agent sends before its first prompt; past the bound they are dropped.
 */
const MAX_EARLY_UPDATES = 16;

/** Params as they came: `updates.ts` and `permissions.ts` narrow them with their own readers. */
const raw = (params: unknown): unknown => params;

/** The run ended while a request waited: nothing more is to be done with its reply. */
class Ended extends Error {}

/**
 * The SDK, loaded by the first ACP run rather than with drive: it and the schemas it builds take a
 * few hundred milliseconds to import (`bench/acp.mjs`), which every `cctop exec` of another agent
 * would otherwise pay.
 */
let sdk: Promise<typeof import('@agentclientprotocol/sdk')> | null = null;
const loadSdk = () => {
  sdk ??= import('@agentclientprotocol/sdk');
  return sdk;
};

/** The next turn of the event loop: every message handed to the SDK before it has been handled. */
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AcpConversation implements Conversation {
  private readonly wire = new Wire();
  private connection: ClientConnection | null = null;
  /** Whether an error is the SDK's for an error reply; set once the SDK is loaded. */
  private isRequestError: (e: unknown) => e is RequestError = (_e): _e is RequestError => false;
  private readonly turn: TurnState = {
    terminal: emptyTerminal(),
    tools: new PendingTools(),
    commandsShown: false,
  };
  private readonly identity: AcpIdentity;
  private phase: Phase = 'starting';
  private session: string | null = null;
  private offers = NO_OFFERS;
  private opening: Opening = 'session/new';
  private readonly permissions: Permissions;
  private timer: NodeJS.Timeout | null = null;
  /** The prompt's reply arrived: the turn settled, whatever happens to the run after. */
  private settled = false;
  /** Lines handed to the SDK that have not yet made their events (`Conversation.inFlight`). */
  inFlight = 0;
  /** Updates that came before the new session's id was known (`MAX_EARLY_UPDATES`). */
  private early: unknown[] = [];
  breakdown: Breakdown | null = null;

  constructor(
    private readonly plan: Plan,
    private readonly acp: AcpAgent,
    private readonly host: ConversationHost,
  ) {
    this.permissions = new Permissions(plan.approvals);
    this.identity = {
      name: acp.name,
      command: [...acp.command],
      agentName: null,
      agentVersion: null,
      protocolVersion: null,
    };
  }

  begin(stdin: Writable): void {
    this.wire.attach(stdin);
    const ms = this.acp.handshakeMs ?? ACP_HANDSHAKE_MS;
    this.timer = setTimeout(() => this.overdue(ms), ms);
    loadSdk().then(
      (acp) => {
        if (this.ended) return;
        this.isRequestError = (e) => e instanceof acp.RequestError;
        const app = acp
          .client({ name: 'cctop' })
          .onNotification(UPDATE_METHOD, raw, (c) => this.updated(c.params))
          .onRequest('session/request_permission', raw, (c) =>
            this.permission(String(c.requestId), obj(c.params), c.signal),
          );
        this.connection = app.connect(this.wire.stream);
        this.converse(this.connection.agent).catch((e: unknown) => this.lost(e));
      },
      (e: unknown) =>
        this.fail({
          kind: 'protocol',
          message: `cctop could not load its ACP SDK (${e instanceof Error ? e.message : String(e)}): reinstall cctop`,
        }),
    );
  }

  read(line: string): Event[] {
    const taken = this.wire.take(line);
    if (taken === 'passed') {
      this.inFlight++;
      // Every line handed over by now has made its events by the next turn of the event loop.
      if (this.inFlight === 1) {
        setImmediate(() => {
          this.inFlight = 0;
          this.host.ready();
        });
      }
    }
    if (typeof taken === 'object') {
      const t = this.turn.terminal;
      t.unparsed++;
      t.firstUnparsed ??= taken.unparsed;
    }
    // What the line means arrives through `host.emit`, once the SDK has read it.
    return [];
  }

  quiet(): Promise<void> {
    return nextTick();
  }

  answer(id: string, decision: Decision): boolean {
    return this.permissions.answer(id, decision);
  }

  send(_text: string): void {
    throw new DriveError({
      kind: 'unsupported',
      agent: 'acp',
      what: 'mid-run input (ACP takes one prompt at a time; start a run that resumes the session)',
    });
  }

  get open(): boolean {
    return this.wire.open && this.phase !== 'over';
  }

  close(): void {
    const connection = this.connection;
    const session = this.session;
    if (this.phase === 'prompting' && session !== null && connection !== null) {
      // The protocol's order: what waits is answered as cancelled, then the turn is cancelled. The
      // SDK writes each on a later tick, so each step waits for the one before, and stdin ends last.
      this.permissions.cancelAll();
      this.phase = 'over';
      this.stopTimer();
      void nextTick()
        .then(() => connection.agent.notify('session/cancel', { sessionId: session }))
        .catch(() => {
          // The connection closed first: the agent is being stopped anyway.
        })
        .then(nextTick)
        .then(() => this.wire.end());
      return;
    }
    this.permissions.clear();
    this.stopTimer();
    this.phase = 'over';
    this.wire.end();
  }

  abandon(): void {
    this.stopTimer();
    this.phase = 'over';
    this.permissions.clear();
    this.wire.abandon();
    this.connection?.close(new Ended('the run is over'));
  }

  terminal(): Terminal {
    const t = this.turn.terminal;
    return { ...t, usage: { ...t.usage }, acp: { ...this.identity, command: [...this.identity.command] } };
  }

  get sawTerminal(): boolean {
    return this.settled;
  }

  /** The run was stopped or abandoned (read through a getter: it changes across an `await`). */
  private get ended(): boolean {
    return this.phase === 'over';
  }

  /** The handshake and the one prompt, in order; a refusal on the way ends it. */
  private async converse(agent: ClientContext): Promise<void> {
    const init = await this.ask(agent, 'initialize', 'initialize', INITIALIZE_PARAMS);
    if (init === null || !this.initialized(obj(init))) return;
    const opening = this.openSession();
    if (opening === null) return;
    const opened = await this.ask(agent, this.opening, this.opening, opening);
    if (opened === null) return;
    const configure = this.opened(obj(opened));
    if (configure === null) return;
    if (configure !== 'keep') {
      this.phase = 'configuring';
      if ((await this.ask(agent, configure.method, 'its own session mode', configure.params)) === null)
        return;
    }
    this.stopTimer();
    this.phase = 'prompting';
    const reply = await this.prompt(agent);
    // Every update sent before the reply is handled before the turn is settled on it.
    await nextTick();
    if (this.ended) return;
    settlePrompt(reply, this.turn.terminal);
    // A turn that is over has no approval left to answer; the agent gets no more input and exits.
    this.permissions.clear();
    this.settled = true;
    this.phase = 'settled';
    this.stopTimer();
    await nextTick();
    this.wire.end();
    this.host.settled();
  }

  /** A request of the handshake: its result, or null once a refusal or the run's end was dealt with. */
  private async ask(agent: ClientContext, method: string, what: string, params: unknown): Promise<unknown> {
    try {
      const result: unknown = await agent.request(method, params);
      return this.ended ? null : result;
    } catch (e) {
      if (this.ended || e instanceof Ended) return null;
      if (!this.isRequestError(e)) throw e;
      this.refused(what, e);
      return null;
    }
  }

  private async prompt(agent: ClientContext): Promise<Reply> {
    try {
      const value: unknown = await agent.request('session/prompt', {
        sessionId: this.session,
        prompt: [{ type: 'text', text: withSystem(this.plan) }],
      });
      return { kind: 'result', value };
    } catch (e) {
      if (!this.isRequestError(e)) throw e;
      return { kind: 'error', code: e.code, message: e.message, data: e.data ?? null };
    }
  }

  /** The connection ended other than by a reply: the run's end, or the agent's. */
  private lost(e: unknown): void {
    if (this.phase === 'over' || this.phase === 'settled' || e instanceof Ended) return;
    // The SDK closes the connection when stdout ends; the agent's exit tells the run why.
    this.stopTimer();
  }

  private fail(breakdown: Breakdown): void {
    if (this.breakdown !== null || this.phase === 'over') return;
    this.breakdown = breakdown;
    this.stopTimer();
    this.host.broke();
  }

  private overdue(ms: number): void {
    this.timer = null;
    if (this.phase !== 'starting' && this.phase !== 'opening' && this.phase !== 'configuring') return;
    this.fail(overdue(this.acp, this.phase, ms));
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** An error reply during the handshake: a login the agent wants, or a refusal. */
  private refused(method: string, e: RequestError): void {
    this.fail(refusal(this.acp, method, e));
  }

  /** A step of the handshake read (`handshake.ts`): its value, or null once its failure ended the run. */
  private went<T>(next: Next<T>): T | null {
    if (next.kind === 'go') return next.value;
    this.fail(next.breakdown);
    return null;
  }

  /** `initialize` answered: false when the agent cannot be driven (its version). */
  private initialized(r: JsonObject | null): boolean {
    const offers = this.went(readInitialize(r, this.acp, this.identity));
    if (offers === null) return false;
    this.offers = offers;
    return true;
  }

  /** The params of the request that opens the session (`this.opening` names it); null when it cannot be. */
  private openSession(): JsonObject | null {
    const open = this.went(openRequest(this.plan, this.offers));
    if (open === null) return null;
    this.phase = 'opening';
    this.opening = open.method;
    if (open.session !== null) this.session = open.session;
    return open.params;
  }

  /** The session is open: announce it, and say how its mode is set (null: it cannot be). */
  private opened(r: JsonObject | null): 'keep' | { method: string; params: JsonObject } | null {
    if (this.opening === 'session/new') {
      const id = this.went(newSessionId(r, this.acp));
      if (id === null) return null;
      this.session = id;
    }
    const session = this.session!;
    const t = this.turn.terminal;
    t.session = session;
    t.model = str(obj(r?.models)?.currentModelId);
    this.host.emit([enforceBounds({ kind: 'started', session, model: t.model })]);
    for (const params of this.early.splice(0)) this.updated(params);
    return this.went(modeRequest(r, session, this.plan, this.acp));
  }

  private updated(params: unknown): void {
    if (this.phase === 'over') return;
    const p = obj(params);
    if (this.session === null) {
      if (this.phase === 'opening' && this.early.length < MAX_EARLY_UPDATES) this.early.push(params);
      return;
    }
    if (str(p?.sessionId) !== this.session) return;
    this.host.emit(readUpdate(p?.update, this.turn, this.phase === 'prompting'));
  }

  private permission(key: string, p: JsonObject | null, withdrawn: AbortSignal): Promise<PermissionAnswer> {
    const call = obj(p?.toolCall);
    const inTurn = this.phase === 'prompting' && str(p?.sessionId) === this.session;
    // The call is often first seen here (Gemini CLI 0.61.0 announces it no other way before asking).
    const events = call !== null && inTurn ? readToolCall(call, this.turn) : [];
    const asking = this.permissions.ask(key, p, inTurn, withdrawn);
    if (asking.event !== null) events.push(asking.event);
    this.host.emit(events);
    return asking.answer;
  }
}
