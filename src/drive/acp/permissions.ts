/**
 * An ACP agent's permission requests (`session/request_permission`): kept for the caller to answer
 * through `respond`, at most `MAX_PENDING_APPROVALS` at once, and answered with one of the options
 * the agent itself offered. A request nobody will answer (the run has no `approvals`, the turn is not
 * running, the bound is reached) is rejected at once, so the agent never waits on it.
 *
 * Each request is the SDK's (`client.ts` registers the handler): its answer is the promise `ask`
 * returns, which the SDK sends as the reply once it settles.
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

/** One option of a permission request, as the agent offered it. */
interface PermissionOption {
  optionId: string;
  kind: string;
}

/** ACP's answer to a permission request. */
export type PermissionAnswer =
  | { outcome: { outcome: 'selected'; optionId: string } }
  | { outcome: { outcome: 'cancelled' } };

/** A permission request the caller may still answer. */
interface Asked {
  options: PermissionOption[];
  reply: (answer: PermissionAnswer) => void;
}

const CANCELLED: PermissionAnswer = { outcome: { outcome: 'cancelled' } };

function readOptions(v: unknown): PermissionOption[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((o) => {
    const option = obj(o);
    const optionId = str(option?.optionId);
    const kind = str(option?.kind);
    return optionId !== null && kind !== null ? [{ optionId, kind }] : [];
  });
}

/** What became of one request: the event for the caller (null when answered here) and its answer. */
export interface Asking {
  event: Event | null;
  answer: Promise<PermissionAnswer>;
}

export class Permissions {
  private readonly waiting = new Map<string, Asked>();

  constructor(
    /** Whether the run asked for approvals: without, nobody would answer one. */
    private readonly wanted: boolean,
  ) {}

  /**
   * A request from the agent, by its JSON-RPC id (the id the caller answers by: the agent echoes it
   * in no other message). `inTurn`: a prompt of this session is running. `withdrawn` aborts when the
   * agent takes its request back (`$/cancel_request`).
   */
  ask(key: string, p: JsonObject | null, inTurn: boolean, withdrawn: AbortSignal): Asking {
    const options = readOptions(p?.options);
    if (
      !this.wanted ||
      !inTurn ||
      this.waiting.size >= MAX_PENDING_APPROVALS ||
      this.waiting.has(key) ||
      !usableId(key)
    ) {
      return { event: null, answer: Promise.resolve(choose(options, 'reject')) };
    }
    const answer = new Promise<PermissionAnswer>((reply) => this.waiting.set(key, { options, reply }));
    withdrawn.addEventListener('abort', () => this.settle(key, CANCELLED), { once: true });
    const call = obj(p?.toolCall);
    const tool = str(call?.title) ?? str(call?.kind) ?? 'tool';
    const input = call !== null && 'rawInput' in call ? call.rawInput : null;
    return { event: enforceBounds({ kind: 'approval_request', id: key, tool, input }), answer };
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
    this.settle(id, choose(asked.options, decision.behavior === 'allow' ? 'allow' : 'reject'));
    return true;
  }

  /** The turn is being cancelled: the protocol wants every waiting request answered as cancelled first. */
  cancelAll(): void {
    for (const key of [...this.waiting.keys()]) this.settle(key, CANCELLED);
  }

  /** The turn is over: nothing is left to answer, and what waited is answered as cancelled. */
  clear(): void {
    this.cancelAll();
  }

  private settle(key: string, answer: PermissionAnswer): void {
    const asked = this.waiting.get(key);
    if (asked === undefined) return;
    this.waiting.delete(key);
    asked.reply(answer);
  }
}

/**
 * Answer with the agent's own option: allow once (else always), reject once (else always), or
 * `cancelled` when it offered none of that kind. known limit: an agent offering only "always" gets
 * always, which outlives this call in its session.
 */
function choose(options: PermissionOption[], behavior: 'allow' | 'reject'): PermissionAnswer {
  const kinds = behavior === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  const option = kinds.map((k) => options.find((o) => o.kind === k)).find((o) => o !== undefined);
  return option !== undefined ? { outcome: { outcome: 'selected', optionId: option.optionId } } : CANCELLED;
}
