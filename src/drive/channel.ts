/**
 * The agent's stdin: the prompt for a one-shot run, or Claude's stream-json control channel for an
 * interactive one (the handshake, each message sent, and the answers to its control requests).
 *
 * It keeps the approvals waiting for the caller, bounded, and answers on the caller's behalf the
 * questions nobody will: an approval not asked for or past the bound is denied, a request drive
 * does not handle is refused, so the agent never waits on a reply until the timeout. Checking that
 * the caller may answer at all (the run's options, whether it is still going) is the runner's job.
 */
import type { Writable } from 'node:stream';
import type { StdinPlan } from './agents/index.js';
import { MAX_PENDING_APPROVALS } from './bounds.js';
import type { Decision } from './events.js';
import type { ControlNote } from './parser.js';

const DEFAULT_DENIAL = 'The user denied this tool call.';
const NOBODY_TO_APPROVE = 'No one is available to approve this tool call.';

export class ControlChannel {
  /** Whether more may be written: false once stdin is ended, broken, or the run is over. */
  private writable = false;
  private messagesSent = 0;
  /** Approvals the caller may still answer, with the tool's original arguments to echo back. */
  private readonly approvals = new Map<string, unknown>();

  constructor(
    private readonly stdin: Writable,
    /** Whether the run asked for approvals: without, nobody would answer one. */
    private readonly approvalsWanted: boolean,
  ) {
    // A child that exits before reading its input makes the write fail with EPIPE; its exit says why.
    stdin.on('error', () => {
      this.writable = false;
    });
  }

  get open(): boolean {
    return this.writable;
  }

  /** Give the agent its input as the invocation planned it. */
  begin(plan: StdinPlan): void {
    switch (plan.kind) {
      case 'none':
        this.stdin.end();
        return;
      case 'prompt':
        this.stdin.end(plan.text);
        return;
      case 'channel':
        this.writable = true;
        this.writeLine({
          type: 'control_request',
          request_id: 'cctop-init',
          request: { subtype: 'initialize' },
        });
        this.send(plan.prompt);
        return;
    }
  }

  /**
   * Act on one line's control notes. Returns the approvals answered here, whose requests must not
   * reach the caller.
   */
  take(notes: readonly ControlNote[]): Set<string> {
    const answered = new Set<string>();
    for (const note of notes) {
      switch (note.kind) {
        case 'approval':
          if (!this.approvalsWanted || this.approvals.size >= MAX_PENDING_APPROVALS) {
            // Not asked for (nobody would answer), or past the bound: denied, so the agent moves on.
            this.reply(note.id, { behavior: 'deny', reason: NOBODY_TO_APPROVE }, note.input);
            answered.add(note.id);
          } else this.approvals.set(note.id, note.input);
          break;
        case 'withdrawn':
          this.approvals.delete(note.id);
          break;
        case 'unanswerable':
          // Unanswered, the agent would wait for this reply until the timeout.
          this.writeLine({
            type: 'control_response',
            response: {
              subtype: 'error',
              request_id: note.id,
              error: `cctop does not handle ${note.subtype} requests`,
            },
          });
          break;
      }
    }
    return answered;
  }

  /**
   * Under stream-json input Claude waits for another message after each turn; once every message
   * sent has its turn, closing stdin lets it exit instead of idling until the timeout.
   */
  settled(turns: number): void {
    if (this.writable && turns >= this.messagesSent) this.close();
  }

  /** Answer a waiting approval; false when none by that id is waiting. */
  answer(id: string, decision: Decision): boolean {
    if (!this.approvals.has(id)) return false;
    const input = this.approvals.get(id);
    this.approvals.delete(id);
    this.reply(id, decision, input);
    return true;
  }

  /** Another user message, taken at the agent's next step. */
  send(text: string): void {
    this.messagesSent++;
    this.writeLine({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } });
  }

  /** End stdin; what was waiting can no longer be answered. */
  close(): void {
    if (!this.writable) return;
    this.writable = false;
    this.approvals.clear();
    this.stdin.end();
  }

  /** The run is over: write nothing more, and leave the pipe to the process's own end. */
  abandon(): void {
    this.writable = false;
  }

  private reply(id: string, decision: Decision, input: unknown): void {
    const original = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
    const response =
      decision.behavior === 'allow'
        ? { behavior: 'allow', updatedInput: decision.updatedInput ?? original }
        : { behavior: 'deny', message: decision.reason ?? DEFAULT_DENIAL };
    this.writeLine({ type: 'control_response', response: { subtype: 'success', request_id: id, response } });
  }

  private writeLine(message: unknown): void {
    if (!this.writable) return;
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }
}
