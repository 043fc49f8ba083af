/**
 * One Codex run through `codex app-server` (JSON-RPC over stdio), as a conversation the runner
 * drives (`conversation.ts`): the handshake (`initialize`, `initialized`), a thread started or
 * resumed with the plan's sandbox and approval policy, one `turn/start`, the turn's notifications
 * read into events (`codex-app-server-items.ts`), Codex's approval requests turned into
 * `approval_request` events (`codex-app-server-approvals.ts`), `send` as `turn/steer`, and
 * `turn/interrupt` when the run is stopped. Once the turn completes, stdin is ended and the server
 * exits (codex-cli 0.169.0 does so within a fraction of a second).
 *
 * Why a second transport for Codex: `codex exec` has no channel back, so it can neither ask before a
 * command nor take input mid-run. Runs that want neither keep using it (`codex.ts`).
 *
 * Recorded from codex-cli 0.169.0 in the lab (`lab/fixtures/drive/codex-app-server/`): requests,
 * replies and notifications carry no `"jsonrpc":"2.0"` member, though Codex accepts it on what it
 * reads. Steering a turn whose model call is still streaming abandons that call and asks again with
 * the new message (the abandoned call is counted by neither Codex nor this run).
 *
 * What it does not do: answer any other request of Codex's (user input, MCP elicitations, dynamic
 * tools, permission grants: each gets a JSON-RPC error at once), or keep the server for a second turn.
 */
import type { Writable } from 'node:stream';
import { type JsonObject, obj, str } from '../../model/json.js';
import { headBytes, usableId } from '../bounds.js';
import type { Breakdown, Conversation, ConversationHost } from '../conversation.js';
import { DriveError } from '../errors.js';
import type { Decision, Event } from '../events.js';
import { emptyTerminal, enforceBounds, PendingTools, type Terminal } from '../parser.js';
import type { Permission, Plan } from '../request.js';
import { withSystem } from '../request.js';
import { MAX_PENDING_REQUESTS, type Reply, RPC_ERROR, type RpcId, RpcPeer, readLine } from '../rpc/peer.js';
import { CodexApprovals, isApproval } from './codex-app-server-approvals.js';
import { readNotification, type TurnState } from './codex-app-server-items.js';

/**
 * How long `codex app-server` has, from its start, to answer `initialize` and open the thread.
 * 0.169.0 answers in one to three seconds in the lab on two busy cores; an executable that is not
 * a Codex with an app server (an old release, a wrong `bin`) would otherwise hold the run until its
 * own timeout, or for ever.
 */
export const CODEX_HANDSHAKE_MS = 60_000;

/** Who drive says it is in `initialize` (Codex records it as the thread's originator). */
const CLIENT_INFO = { name: 'cctop', title: 'cctop drive', version: '1' };

/**
 * The sandbox each permission asks for, as `codex exec --sandbox` and the app server both name it.
 * `default` passes nothing, so Codex's own config decides.
 */
export const SANDBOX_MODE: Readonly<Record<Permission, string | null>> = {
  'read-only': 'read-only',
  plan: 'read-only',
  default: null,
  edit: 'workspace-write',
  auto: 'workspace-write',
  bypass: 'danger-full-access',
};

/**
 * When Codex asks, on a run with `approvals`. `untrusted` asks before every command not known to be
 * harmless (0.169.0 asks even for `echo`, which it runs through `bash -lc`), which is what a caller
 * who wants to be asked means. `auto` is Codex's own automatic mode (`on-request`: asks only when the
 * model wants out of the sandbox); `default` passes nothing, so Codex's config decides (with none,
 * 0.169.0 is `on-request` in a read-only sandbox); `bypass` never asks. Without `approvals`, Codex
 * never asks, as under `codex exec`.
 */
const ASKING: Readonly<Record<Permission, string | null>> = {
  'read-only': 'untrusted',
  plan: 'untrusted',
  default: null,
  edit: 'untrusted',
  auto: 'on-request',
  bypass: 'never',
};

/** A thread's settings for a plan: where it works, how it is sandboxed, when it asks. */
export function threadParams(plan: Plan): JsonObject {
  const params: JsonObject = { cwd: plan.cwd };
  const sandbox = SANDBOX_MODE[plan.permission];
  if (sandbox !== null) params.sandbox = sandbox;
  const policy = plan.approvals ? ASKING[plan.permission] : 'never';
  if (policy !== null) params.approvalPolicy = policy;
  if (plan.model !== null) params.model = plan.model;
  // `codex exec --add-dir` in the app server's words.
  if (plan.addDirs.length > 0) params.config = { sandbox_workspace_write: { writable_roots: plan.addDirs } };
  return params;
}

type Tag = 'initialize' | 'thread' | 'turn' | 'steer' | 'interrupt';

/** Where the run stands; the handshake deadline covers everything before `running`. */
type Phase = 'starting' | 'opening' | 'turning' | 'running' | 'settled' | 'over';

/** How much of a method name a refusal quotes back: it came from the agent. */
const SHOWN_METHOD_BYTES = 200;

const textInput = (text: string) => ({ type: 'text', text, text_elements: [] });

export class CodexAppServer implements Conversation {
  // Codex leaves out JSON-RPC's `"jsonrpc":"2.0"` member (0.169.0 never writes it).
  private readonly peer = new RpcPeer<Tag>({ versionMember: 'optional' });
  private readonly turn: TurnState = {
    terminal: emptyTerminal(),
    tools: new PendingTools(),
    turnId: null,
    calls: 0,
  };
  private readonly approvals: CodexApprovals;
  private phase: Phase = 'starting';
  private thread: string | null = null;
  /** Messages sent before the turn has an id to steer: they go with the prompt, or once it has one. */
  private held: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The turn completed, whatever happens to the run after (`abandon` ends every phase). */
  private settled = false;
  breakdown: Breakdown | null = null;

  constructor(
    private readonly plan: Plan,
    private readonly host: ConversationHost,
    private readonly handshakeMs = CODEX_HANDSHAKE_MS,
  ) {
    this.approvals = new CodexApprovals(
      { respond: (id, result) => this.peer.respond(id, result), tell: (text) => this.steer([text]) },
      plan.approvals,
    );
  }

  begin(stdin: Writable): void {
    this.peer.attach(stdin);
    this.timer = setTimeout(() => this.overdue(), this.handshakeMs);
    this.ask('initialize', 'initialize', { clientInfo: CLIENT_INFO, capabilities: null });
  }

  read(line: string): Event[] {
    return readLine(this.peer, line, this.turn.terminal, {
      notified: (method, params) => this.notified(method, params),
      asked: (id, method, params) => this.asked(id, method, params),
      replied: (tag, reply) => this.replied(tag, reply),
    });
  }

  answer(id: string, decision: Decision): boolean {
    return this.approvals.answer(id, decision);
  }

  send(text: string): void {
    if (this.phase === 'running') {
      this.steer([text]);
      return;
    }
    if (this.held.length >= MAX_PENDING_REQUESTS) {
      throw new DriveError({
        kind: 'invalid_request',
        what: `more than ${MAX_PENDING_REQUESTS} messages sent before Codex started the turn`,
      });
    }
    this.held.push(text);
  }

  get open(): boolean {
    return this.peer.open && this.phase !== 'settled' && this.phase !== 'over';
  }

  close(): void {
    if (this.phase === 'running' && this.thread !== null && this.turn.turnId !== null) {
      this.peer.request('turn/interrupt', { threadId: this.thread, turnId: this.turn.turnId }, 'interrupt');
    }
    this.approvals.clear();
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
    return { ...t, usage: { ...t.usage }, threadUsage: t.threadUsage === null ? null : { ...t.threadUsage } };
  }

  get sawTerminal(): boolean {
    return this.settled;
  }

  private ask(method: string, tag: Tag, params: unknown): void {
    const unsent = this.peer.request(method, params, tag);
    if (unsent === 'too-many-pending') {
      this.fail({ kind: 'protocol', message: `codex app-server left ${unsent} requests unanswered` });
    }
  }

  /** Messages into the running turn (`send`, a denial's reason). */
  private steer(texts: string[]): void {
    if (this.thread === null || this.turn.turnId === null || texts.length === 0) return;
    this.ask('turn/steer', 'steer', {
      threadId: this.thread,
      expectedTurnId: this.turn.turnId,
      input: texts.map(textInput),
    });
  }

  private fail(breakdown: Breakdown): void {
    if (this.breakdown !== null || this.phase === 'over') return;
    this.breakdown = breakdown;
    this.stopTimer();
    this.host.broke();
  }

  private overdue(): void {
    this.timer = null;
    if (this.phase !== 'starting' && this.phase !== 'opening' && this.phase !== 'turning') return;
    this.fail({
      kind: 'protocol',
      message: `codex app-server did not open its thread within ${Math.round(this.handshakeMs / 1000)} s: is this a Codex with an app server (codex-cli 0.169 or later)?`,
    });
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private refused(method: string, reply: Extract<Reply, { kind: 'error' }>): Event[] {
    const said = reply.message || `error ${reply.code ?? 'without a code'}`;
    this.fail({ kind: 'protocol', message: `codex app-server refused ${method}: ${said}` });
    return [];
  }

  private replied(tag: Tag, reply: Reply): Event[] {
    if (this.phase === 'over' || this.phase === 'settled') return [];
    switch (tag) {
      case 'initialize':
        if (reply.kind === 'error') return this.refused('initialize', reply);
        this.peer.notify('initialized', undefined);
        this.openThread();
        return [];
      case 'thread':
        return reply.kind === 'error'
          ? this.refused(this.plan.session.kind === 'resume' ? 'thread/resume' : 'thread/start', reply)
          : this.opened(obj(reply.value));
      case 'turn':
        if (reply.kind === 'error') return this.refused('turn/start', reply);
        this.running(str(obj(obj(reply.value)?.turn)?.id));
        return [];
      // known limit: a message that reached a turn already ending is lost; Codex says only "no active turn".
      case 'steer':
      case 'interrupt':
        return [];
    }
  }

  private openThread(): void {
    this.phase = 'opening';
    const s = this.plan.session;
    const params = threadParams(this.plan);
    if (s.kind === 'resume') {
      // Without `excludeTurns` the reply would carry the whole history, which this run does not read.
      this.ask('thread/resume', 'thread', { ...params, threadId: s.id, excludeTurns: true });
    } else this.ask('thread/start', 'thread', params);
  }

  private opened(r: JsonObject | null): Event[] {
    const id = str(obj(r?.thread)?.id);
    if (id === null || !usableId(id)) {
      this.fail({ kind: 'protocol', message: 'codex app-server opened a thread without a usable id' });
      return [];
    }
    this.thread = id;
    const t = this.turn.terminal;
    t.session = id;
    t.model = str(r?.model);
    this.phase = 'turning';
    const p = this.plan;
    const held = this.held;
    this.held = [];
    this.ask('turn/start', 'turn', {
      threadId: id,
      input: [withSystem(p), ...held].map(textInput),
      ...(p.effort !== null && { effort: p.effort }),
      ...(p.schema !== null && { outputSchema: p.schema }),
    });
    return [enforceBounds({ kind: 'started', session: id, model: t.model })];
  }

  private running(turnId: string | null): void {
    if (turnId === null || !usableId(turnId)) {
      this.fail({ kind: 'protocol', message: 'codex app-server started a turn without a usable id' });
      return;
    }
    this.stopTimer();
    this.turn.turnId = turnId;
    this.phase = 'running';
    const held = this.held;
    this.held = [];
    this.steer(held);
  }

  private notified(method: string, params: unknown): Event[] {
    const p = obj(params);
    if (method === 'serverRequest/resolved') {
      this.approvals.withdraw(p?.requestId);
      return [];
    }
    const item = obj(p?.item);
    if (method === 'item/started' && str(item?.type) === 'fileChange' && item !== null) {
      this.approvals.noteChange(item);
    }
    const read = readNotification(method, params, this.turn);
    const events = read.events.map(enforceBounds);
    if (read.ended) this.settle();
    return events;
  }

  /** The turn is over: nothing waits for an answer any more, and the server is told to go. */
  private settle(): void {
    this.approvals.clear();
    this.held = [];
    this.settled = true;
    this.phase = 'settled';
    this.peer.end();
    this.host.settled();
  }

  private asked(id: RpcId, method: string, params: unknown): Event[] {
    const p = obj(params);
    if (isApproval(method)) {
      const inTurn = this.phase === 'running' && str(p?.turnId) === this.turn.turnId;
      const event = this.approvals.ask(id, method, p, inTurn);
      return event === null ? [] : [event];
    }
    // Unanswered, Codex would wait on this until the run's timeout.
    this.peer.refuse(
      id,
      RPC_ERROR.methodNotFound,
      `cctop offers no ${headBytes(method, SHOWN_METHOD_BYTES)}`,
    );
    return [];
  }
}
