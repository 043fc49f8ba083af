/**
 * An ACP agent's permission requests (`session/request_permission`): kept for the caller to answer
 * through `respond`, at most `MAX_PENDING_APPROVALS` at once, and answered with one of the options
 * the agent itself offered. A request nobody will answer (the run has no `approvals`, the turn is not
 * running, the bound is reached) is rejected at once, so the agent never waits on it.
 *
 * What it does not do: carry a reason for a denial or changed arguments for an allowance (an ACP
 * answer is an option id and nothing more), or announce the tool call the request is about (that is
 * `updates.ts`, which the connection calls first).
 */
import { type JsonObject, obj, str } from '../../model/json.js';
import { MAX_PENDING_APPROVALS, usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Decision, Event } from '../events.js';
import { enforceBounds } from '../parser.js';
import type { RpcId, RpcPeer } from '../rpc/peer.js';

/** One option of a permission request, as the agent offered it. */
interface PermissionOption {
  optionId: string;
  kind: string;
}

/** A permission request the caller may still answer. */
interface Asked {
  id: RpcId;
  options: PermissionOption[];
}

const CANCELLED = { outcome: { outcome: 'cancelled' } };

function readOptions(v: unknown): PermissionOption[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((o) => {
    const option = obj(o);
    const optionId = str(option?.optionId);
    const kind = str(option?.kind);
    return optionId !== null && kind !== null ? [{ optionId, kind }] : [];
  });
}

export class Permissions {
  private readonly waiting = new Map<string, Asked>();

  constructor(
    private readonly peer: Pick<RpcPeer<unknown>, 'respond'>,
    /** Whether the run asked for approvals: without, nobody would answer one. */
    private readonly wanted: boolean,
  ) {}

  /**
   * A request from the agent. Returns the `approval_request` for the caller, or null when it was
   * answered here. `inTurn`: a prompt of this session is running.
   */
  ask(id: RpcId, p: JsonObject | null, inTurn: boolean): Event | null {
    const asked: Asked = { id, options: readOptions(p?.options) };
    // The id the caller answers by: the agent's own, which it echoes in no other message.
    const key = String(id);
    if (
      !this.wanted ||
      !inTurn ||
      this.waiting.size >= MAX_PENDING_APPROVALS ||
      this.waiting.has(key) ||
      !usableId(key)
    ) {
      this.choose(asked, 'reject');
      return null;
    }
    this.waiting.set(key, asked);
    const call = obj(p?.toolCall);
    const tool = str(call?.title) ?? str(call?.kind) ?? 'tool';
    const input = call !== null && 'rawInput' in call ? call.rawInput : null;
    return enforceBounds({ kind: 'approval_request', id: key, tool, input });
  }

  /** The caller's answer; false when no request by that id waits. */
  answer(id: string, decision: Decision): boolean {
    const asked = this.waiting.get(id);
    if (asked === undefined) return false;
    if (decision.behavior === 'allow' && decision.updatedInput !== undefined) {
      throw new DriveError({
        kind: 'unsupported',
        agent: 'acp',
        what: "changing a tool's input when allowing it (an ACP answer is an option, nothing more)",
      });
    }
    this.waiting.delete(id);
    this.choose(asked, decision.behavior === 'allow' ? 'allow' : 'reject');
    return true;
  }

  /** The agent withdrew its request (`$/cancel_request`): it is answered as cancelled and forgotten. */
  withdraw(requestId: unknown): void {
    if (typeof requestId !== 'number' && typeof requestId !== 'string') return;
    const asked = this.waiting.get(String(requestId));
    if (asked === undefined) return;
    this.waiting.delete(String(requestId));
    this.peer.respond(asked.id, CANCELLED);
  }

  /** The turn is being cancelled: the protocol wants every waiting request answered as cancelled first. */
  cancelAll(): void {
    for (const asked of this.waiting.values()) this.peer.respond(asked.id, CANCELLED);
    this.waiting.clear();
  }

  /** The turn is over: nothing is left to answer. */
  clear(): void {
    this.waiting.clear();
  }

  /**
   * Answer with the agent's own option: allow once (else always), reject once (else always), or
   * `cancelled` when it offered none of that kind. known limit: an agent offering only "always" gets
   * always, which outlives this call in its session.
   */
  private choose(asked: Asked, behavior: 'allow' | 'reject'): void {
    const kinds = behavior === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = kinds.map((k) => asked.options.find((o) => o.kind === k)).find((o) => o !== undefined);
    this.peer.respond(
      asked.id,
      option !== undefined ? { outcome: { outcome: 'selected', optionId: option.optionId } } : CANCELLED,
    );
  }
}
