/**
 * One ACP run, as a conversation the runner drives (`conversation.ts`): the handshake
 * (`initialize`, a session opened, loaded or resumed, its mode), one `session/prompt`, the updates
 * of that turn read into events, the agent's permission requests turned into `approval_request`
 * events and answered through `respond`, and `session/cancel` when the run is stopped.
 *
 * Nothing the agent sends is left waiting: a permission request nobody asked for (no `approvals`),
 * or past `MAX_PENDING_APPROVALS`, is rejected at once; every other request (files, terminals, a
 * method drive never heard of) gets a JSON-RPC error, since drive offers no capability. A handshake
 * not finished within its deadline ends the run with a `protocol` error instead of a hang.
 *
 * What it does not do: spawn, pace or kill (the runner's), send more than one prompt (`send` is
 * refused: ACP takes a prompt at a time), carry a deny reason or changed arguments (ACP's answer is
 * an option id, nothing else), or offer files, terminals or MCP servers to the agent.
 */
import type { Writable } from 'node:stream';
import { type JsonObject, num, obj, str } from '../../model/json.js';
import { headBytes, usableId } from '../bounds.js';
import type { Breakdown, Conversation, ConversationHost } from '../conversation.js';
import { DriveError } from '../errors.js';
import type { AcpIdentity, Decision, Event } from '../events.js';
import { emptyTerminal, enforceBounds, PendingTools, type Terminal } from '../parser.js';
import { type Plan, withSystem } from '../request.js';
import { MAX_PENDING_REQUESTS, type Reply, RPC_ERROR, type RpcId, RpcPeer, readLine } from '../rpc/peer.js';
import { chooseMode } from './modes.js';
import { Permissions } from './permissions.js';
import { ACP_HANDSHAKE_MS, type AcpAgent } from './request.js';
import { readToolCall, readUpdate, settlePrompt, type TurnState } from './updates.js';

/** The ACP version drive speaks. */
export const ACP_PROTOCOL_VERSION = 1;

/** ACP's error code for "authenticate first" (Gemini CLI 0.61.0: "Gemini API key is missing"). */
const AUTH_REQUIRED = -32000;

/** How much of a method name a refusal quotes back: it came from the agent. */
const SHOWN_METHOD_BYTES = 200;

/** How much of an error's `data` a message quotes: enough to say what went wrong, one line. */
const SHOWN_DATA_BYTES = 300;

type Tag = 'initialize' | 'session' | 'mode' | 'prompt';

/** Where the run stands; the handshake deadline covers everything before `prompting`. */
type Phase = 'starting' | 'opening' | 'configuring' | 'prompting' | 'settled' | 'over';

/** What a waiting phase is waiting for, in a sentence. */
const WAITING: Record<'starting' | 'opening' | 'configuring', string> = {
  starting: 'answer `initialize`',
  opening: 'open its session',
  configuring: 'set its session mode',
};

export class AcpConversation implements Conversation {
  private readonly peer = new RpcPeer<Tag>();
  private readonly turn: TurnState = {
    terminal: emptyTerminal(),
    tools: new PendingTools(),
    commandsShown: false,
  };
  private readonly identity: AcpIdentity;
  private phase: Phase = 'starting';
  private session: string | null = null;
  private offers = { load: false, resume: false, dirs: false };
  private opening: 'session/new' | 'session/load' | 'session/resume' = 'session/new';
  private readonly permissions: Permissions;
  private timer: NodeJS.Timeout | null = null;
  /** The prompt's reply arrived: the turn settled, whatever happens to the run after. */
  private settled = false;
  breakdown: Breakdown | null = null;

  constructor(
    private readonly plan: Plan,
    private readonly acp: AcpAgent,
    private readonly host: ConversationHost,
  ) {
    this.permissions = new Permissions(this.peer, plan.approvals);
    this.identity = {
      name: acp.name,
      command: [...acp.command],
      agentName: null,
      agentVersion: null,
      protocolVersion: null,
    };
  }

  begin(stdin: Writable): void {
    this.peer.attach(stdin);
    const ms = this.acp.handshakeMs ?? ACP_HANDSHAKE_MS;
    this.timer = setTimeout(() => this.overdue(ms), ms);
    // No filesystem and no terminal: the agent works on its own files with its own tools.
    this.ask('initialize', 'initialize', {
      protocolVersion: ACP_PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  }

  read(line: string): Event[] {
    return readLine(this.peer, line, this.turn.terminal, {
      notified: (method, params) => this.notified(method, params),
      asked: (id, method, params) => this.asked(id, method, params),
      replied: (tag, reply) => this.replied(tag, reply),
    });
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
    return this.peer.open && this.phase !== 'over';
  }

  close(): void {
    if (this.phase === 'prompting' && this.session !== null) {
      // The protocol's order: what waits is answered as cancelled, then the turn is cancelled.
      this.permissions.cancelAll();
      this.peer.notify('session/cancel', { sessionId: this.session });
    }
    this.permissions.clear();
    this.stopTimer();
    this.phase = 'over';
    this.peer.end();
  }

  abandon(): void {
    this.stopTimer();
    this.phase = 'over';
    this.peer.abandon();
  }

  terminal(): Terminal {
    const t = this.turn.terminal;
    return { ...t, usage: { ...t.usage }, acp: { ...this.identity, command: [...this.identity.command] } };
  }

  get sawTerminal(): boolean {
    return this.settled;
  }

  private ask(method: string, tag: Tag, params: unknown): void {
    const unsent = this.peer.request(method, params, tag);
    // Closed: the run is ending anyway. Too many waiting: the agent stopped answering.
    if (unsent === 'too-many-pending') {
      this.fail({
        kind: 'protocol',
        message: `${this.acp.name} left ${MAX_PENDING_REQUESTS} requests unanswered`,
      });
    }
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
    const command = this.acp.command.join(' ');
    this.fail({
      kind: 'protocol',
      message: `${this.acp.name} did not ${WAITING[this.phase]} within ${Math.round(ms / 1000)} s: is \`${command}\` an ACP agent, started in its ACP mode?`,
    });
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** An error reply during the handshake: a login the agent wants, or a refusal. */
  private refused(method: string, reply: Extract<Reply, { kind: 'error' }>): Event[] {
    const said = reply.message || `error ${reply.code ?? 'without a code'}`;
    // Gemini CLI 0.61.0 says only "Internal error" and puts what went wrong in `data`.
    const data = reply.data === null || reply.data === undefined ? '' : JSON.stringify(reply.data);
    const detail = data === '' ? '' : ` (${headBytes(data, SHOWN_DATA_BYTES)})`;
    this.fail(
      reply.code === AUTH_REQUIRED
        ? { kind: 'not_authenticated', message: said }
        : { kind: 'protocol', message: `${this.acp.name} refused ${method}: ${said}${detail}` },
    );
    return [];
  }

  private replied(tag: Tag, reply: Reply): Event[] {
    if (this.phase === 'over') return [];
    switch (tag) {
      case 'initialize':
        return reply.kind === 'error'
          ? this.refused('initialize', reply)
          : this.initialized(obj(reply.value));
      case 'session':
        return reply.kind === 'error' ? this.refused(this.opening, reply) : this.opened(obj(reply.value));
      case 'mode':
        if (reply.kind === 'error') return this.refused('its own session mode', reply);
        this.prompt();
        return [];
      case 'prompt':
        settlePrompt(reply, this.turn.terminal);
        // A turn that is over has no approval left to answer; the agent gets no more input and exits.
        this.permissions.clear();
        this.settled = true;
        this.phase = 'settled';
        this.peer.end();
        this.host.settled();
        return [];
    }
  }

  private initialized(r: JsonObject | null): Event[] {
    const version = num(r?.protocolVersion);
    const info = obj(r?.agentInfo);
    this.identity.protocolVersion = version;
    this.identity.agentName = str(info?.name);
    this.identity.agentVersion = str(info?.version);
    if (version !== ACP_PROTOCOL_VERSION) {
      this.fail({
        kind: 'protocol',
        message: `${this.acp.name} speaks ACP version ${version ?? 'unknown'}; cctop speaks ${ACP_PROTOCOL_VERSION}`,
      });
      return [];
    }
    const caps = obj(r?.agentCapabilities);
    const session = obj(caps?.sessionCapabilities);
    this.offers = {
      load: caps?.loadSession === true,
      resume: obj(session?.resume) !== null,
      dirs: obj(session?.additionalDirectories) !== null || session?.additionalDirectories === true,
    };
    this.openSession();
    return [];
  }

  private openSession(): void {
    const p = this.plan;
    if (p.addDirs.length > 0 && !this.offers.dirs) {
      this.fail({ kind: 'unsupported', what: 'more directories (it offers no additionalDirectories)' });
      return;
    }
    const base = {
      cwd: p.cwd,
      mcpServers: [],
      ...(p.addDirs.length > 0 && { additionalDirectories: p.addDirs }),
    };
    this.phase = 'opening';
    const s = p.session;
    if (s.kind !== 'resume') {
      // A chosen id (`mint`) is refused before spawning: ACP lets the agent choose it.
      this.ask('session/new', 'session', base);
      return;
    }
    if (!this.offers.resume && !this.offers.load) {
      this.fail({
        kind: 'unsupported',
        what: 'resuming a session (it offers neither session/resume nor session/load)',
      });
      return;
    }
    // Resuming replays nothing; loading replays the whole history as updates, which `inTurn` drops.
    this.opening = this.offers.resume ? 'session/resume' : 'session/load';
    this.session = s.id;
    this.ask(this.opening, 'session', { ...base, sessionId: s.id });
  }

  private opened(r: JsonObject | null): Event[] {
    if (this.opening === 'session/new') {
      const id = str(r?.sessionId);
      if (id === null || !usableId(id)) {
        this.fail({
          kind: 'protocol',
          message: `${this.acp.name} opened a session without a usable sessionId`,
        });
        return [];
      }
      this.session = id;
    }
    const t = this.turn.terminal;
    t.session = this.session;
    t.model = str(obj(r?.models)?.currentModelId);
    const started = enforceBounds({ kind: 'started', session: this.session!, model: t.model });
    const choice = chooseMode(r, this.plan.permission, this.acp.mode);
    switch (choice.kind) {
      case 'keep':
        this.prompt();
        break;
      case 'set_mode':
        this.phase = 'configuring';
        this.ask('session/set_mode', 'mode', { sessionId: this.session, modeId: choice.modeId });
        break;
      case 'config':
        this.phase = 'configuring';
        this.ask('session/set_config_option', 'mode', {
          sessionId: this.session,
          configId: choice.configId,
          value: choice.value,
        });
        break;
      case 'missing': {
        const offered =
          choice.offered.length > 0 ? `its modes: ${choice.offered.join(', ')}` : 'it offers no modes';
        const what =
          this.acp.mode !== undefined ? `the mode "${this.acp.mode}"` : `permission ${this.plan.permission}`;
        this.fail({
          kind: 'unsupported',
          what: `${what} (${offered}); name one as acp.mode, or use permission default`,
        });
        break;
      }
    }
    return [started];
  }

  private prompt(): void {
    this.stopTimer();
    this.phase = 'prompting';
    this.ask('session/prompt', 'prompt', {
      sessionId: this.session,
      prompt: [{ type: 'text', text: withSystem(this.plan) }],
    });
  }

  private notified(method: string, params: unknown): Event[] {
    const p = obj(params);
    if (method === 'session/update') {
      if (this.session === null || str(p?.sessionId) !== this.session) return [];
      return readUpdate(p?.update, this.turn, this.phase === 'prompting');
    }
    // The agent withdrew a request of its own (the turn was cancelled): what waits on it is gone.
    if (method === '$/cancel_request') this.permissions.withdraw(p?.requestId);
    return [];
  }

  private asked(id: RpcId, method: string, params: unknown): Event[] {
    if (method === 'session/request_permission') return this.permission(id, obj(params));
    // Unanswered, the agent would wait on this until the run's timeout.
    this.peer.refuse(
      id,
      RPC_ERROR.methodNotFound,
      `cctop offers no ${headBytes(method, SHOWN_METHOD_BYTES)}`,
    );
    return [];
  }

  private permission(id: RpcId, p: JsonObject | null): Event[] {
    const call = obj(p?.toolCall);
    const inTurn = this.phase === 'prompting' && str(p?.sessionId) === this.session;
    // The call is often first seen here (Gemini CLI 0.61.0 announces it no other way before asking).
    const events = call !== null && inTurn ? readToolCall(call, this.turn) : [];
    const approval = this.permissions.ask(id, p, inTurn);
    if (approval !== null) events.push(approval);
    return events;
  }
}
