/**
 * The approvals `codex app-server` asks for (`item/commandExecution/requestApproval`,
 * `item/fileChange/requestApproval`), kept for the caller to answer through `respond`, at most
 * `MAX_PENDING_APPROVALS` at once. A question nobody will answer (the run has no `approvals`, the
 * turn is not this run's, the bound is reached) is declined at once, so Codex never waits on it.
 *
 * Codex's answer is a word (`accept`, `decline`), with no room for a reason: declined, the model is
 * told only that the user rejected the call (0.169.0: `Rejected("rejected by user")`). A deny with a
 * reason therefore also sends the reason as a user message into the running turn (`turn/steer`),
 * written before the decline so that it reaches the model in the very request that reports the
 * refused call (recorded: `lab/fixtures/drive/codex-app-server/approve-denied-with-reason.jsonl`).
 *
 * What it does not do: carry changed arguments on an allow (Codex has no field for them), or answer
 * for the session or amend Codex's exec policy (every answer is for this one call).
 */
import { type JsonObject, str } from '../../model/json.js';
import { MAX_PENDING_APPROVALS, usableId } from '../bounds.js';
import { DriveError } from '../errors.js';
import type { Decision, Event } from '../events.js';
import { enforceBounds } from '../parser.js';
import type { RpcId } from '../rpc/peer.js';

/** The approval requests this module answers, by method, with the tool each is about. */
const ASKS: Readonly<Record<string, string>> = {
  'item/commandExecution/requestApproval': 'exec_command',
  'item/fileChange/requestApproval': 'file_change',
};

export const isApproval = (method: string): boolean => method in ASKS;

/** What the approvals need of the conversation. */
export interface Answering {
  /** Reply to Codex's request `id`. */
  respond(id: RpcId, result: unknown): void;
  /** Tell the model something in the running turn. */
  tell(text: string): void;
}

/** Words the model gets with a denial that came with a reason. */
export const denialWords = (reason: string): string => `The tool call was denied: ${reason}`;

export class CodexApprovals {
  private readonly waiting = new Map<string, RpcId>();
  /**
   * The newest file change announced, so its approval can show what it changes: the request itself
   * names only the item. One slot, not a map: Codex asks about a change as soon as it announces it.
   */
  private change: { id: string; changes: unknown } | null = null;

  constructor(
    private readonly answering: Answering,
    /** Whether the run asked for approvals: without, nobody would answer one. */
    private readonly wanted: boolean,
  ) {}

  /** A file change was announced (`item/started`); its approval may follow. */
  noteChange(item: JsonObject): void {
    const id = str(item.id);
    this.change = id === null ? null : { id, changes: item.changes ?? null };
  }

  /**
   * Codex asks. Returns the `approval_request` for the caller, or null when it was answered here.
   * `inTurn`: the request is about this run's running turn.
   */
  ask(id: RpcId, method: string, p: JsonObject | null, inTurn: boolean): Event | null {
    const tool = ASKS[method] ?? method;
    // The id the caller answers by: Codex's own request id, unique for the server's life.
    const key = String(id);
    if (
      !this.wanted ||
      !inTurn ||
      this.waiting.size >= MAX_PENDING_APPROVALS ||
      this.waiting.has(key) ||
      !usableId(key)
    ) {
      this.answering.respond(id, { decision: 'decline' });
      return null;
    }
    this.waiting.set(key, id);
    return enforceBounds({ kind: 'approval_request', id: key, tool, input: this.inputOf(tool, p) });
  }

  /** The caller's answer; false when no request by that id waits. */
  answer(id: string, decision: Decision): boolean {
    const rpcId = this.waiting.get(id);
    if (rpcId === undefined) return false;
    if (decision.behavior === 'allow' && decision.updatedInput !== undefined) {
      throw new DriveError({
        kind: 'unsupported',
        agent: 'codex',
        what: "changing a tool's input when allowing it (codex app-server's answer is a word, nothing more)",
      });
    }
    this.waiting.delete(id);
    if (decision.behavior === 'allow') {
      this.answering.respond(rpcId, { decision: 'accept' });
      return true;
    }
    if (decision.reason !== undefined && decision.reason !== '')
      this.answering.tell(denialWords(decision.reason));
    this.answering.respond(rpcId, { decision: 'decline' });
    return true;
  }

  /** Codex settled a request itself (`serverRequest/resolved`: the turn was interrupted): nothing to answer. */
  withdraw(requestId: unknown): void {
    if (typeof requestId === 'number' || typeof requestId === 'string')
      this.waiting.delete(String(requestId));
  }

  /** The turn is over: nothing is left to answer. */
  clear(): void {
    this.waiting.clear();
    this.change = null;
  }

  /** What the call would do: the command, or the changes a file change makes. */
  private inputOf(tool: string, p: JsonObject | null): unknown {
    if (tool === 'exec_command') return { command: p?.command ?? null };
    const item = str(p?.itemId);
    if (this.change !== null && this.change.id === item) return { changes: this.change.changes };
    // known limit: a change never announced shows only why Codex asks; the lab's model never patches.
    return { reason: p?.reason ?? null, grantRoot: p?.grantRoot ?? null };
  }
}
