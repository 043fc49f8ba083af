/**
 * The wire between the runner's bounded stdout lines and the ACP SDK's connection: a `Stream` (the
 * SDK's pair of message streams) whose readable side is fed one line at a time by `take`, and whose
 * writable side writes each message as one JSON line to the agent's stdin.
 *
 * Why not the SDK's own `ndJsonStream`: it reads stdout itself, so the runner's pacing (stdout paused
 * while the event queue is full) would no longer reach the agent, and its size bound
 * (`maxMessageBytes`, 32 MiB by default) ends the whole connection with an error at the first line
 * past it. Here every line has already been cut at `MAX_LINE` by the runner's line reader; a cut line
 * does not parse and is counted, as on every other agent, and the run goes on.
 *
 * It also screens what reaches the SDK, because the SDK writes to the process's stderr
 * (`console.error`) about what it cannot place, and that would land on the user's terminal: a line
 * that is not a JSON-RPC 2.0 object is counted here and never passed on, and a reply to a request
 * drive is not waiting on is dropped here. Two more things are decided here, each measured against
 * SDK 2.4.0:
 *
 * - `session/update` is handed over under `UPDATE_METHOD`, a name of drive's own. The SDK checks every
 *   `session/update` against its schema of the stable protocol before any handler sees it, and drops
 *   (with a `console.error`) one it refuses: an update kind of a newer protocol, or a known kind with
 *   one field the schema does not expect. `updates.ts` reads what it knows of any update and leaves
 *   the rest, as it always did.
 * - A request whose id cannot be echoed back (not an integer, or a string past
 *   `MAX_IDENTIFIER_BYTES`) is not passed on: it could not be answered either.
 *
 * What it does not do: read any method's meaning (the conversation's), or buffer: a message is
 * handed to the SDK as its line is taken, and the SDK reads it on the next microtask.
 */
import type { Writable } from 'node:stream';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { type JsonObject, parseObject, str } from '../../model/json.js';
import { headBytes, MAX_IDENTIFIER_BYTES, MAX_UNPARSED_SAMPLE } from '../bounds.js';

/** The name `session/update` is handed to the SDK under (see the module's comment). */
export const UPDATE_METHOD = '_cctop/session_update';

/** What `take` did with a line: passed to the SDK, dropped, or counted as not JSON-RPC. */
export type Taken = 'passed' | 'blank' | 'stray' | { unparsed: string };

/** A parsed object that says it is JSON-RPC 2.0; the SDK checks the rest of its shape itself. */
const isMessage = (m: JsonObject): m is JsonObject & AnyMessage => m.jsonrpc === '2.0';

const usableRpcId = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isSafeInteger(v)) ||
  (typeof v === 'string' && Buffer.byteLength(v) <= MAX_IDENTIFIER_BYTES);

export class Wire {
  readonly stream: Stream;
  private inbox: ReadableStreamDefaultController<AnyMessage> | null = null;
  private stdin: Writable | null = null;
  private writable = false;
  /** Ids of the requests drive sent that have no reply yet (the SDK numbers them from 0). */
  private readonly waiting = new Set<number>();

  constructor() {
    const readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.inbox = controller;
      },
    });
    const writable = new WritableStream<AnyMessage>({
      // Never rejects: a write the pipe cannot take is the agent's end, which its exit reports; a
      // rejected write would make the SDK close the connection in the middle of a reply.
      write: (message) => this.write(message),
    });
    this.stream = { readable, writable };
  }

  /** Start writing to the agent's stdin. A broken pipe closes it; the agent's exit says why. */
  attach(stdin: Writable): void {
    this.stdin = stdin;
    this.writable = true;
    stdin.on('error', () => {
      this.writable = false;
    });
  }

  /** Whether anything more can be written. */
  get open(): boolean {
    return this.writable;
  }

  /** One stdout line: handed to the SDK, or why not. */
  take(raw: string): Taken {
    const line = raw.trim();
    if (line === '') return 'blank';
    const message = parseObject(line);
    if (message === null || message.jsonrpc !== '2.0' || this.inbox === null) {
      return { unparsed: headBytes(line, MAX_UNPARSED_SAMPLE) };
    }
    const method = str(message.method);
    if (method !== null) {
      const isRequest = 'id' in message && message.id !== null;
      if (isRequest && !usableRpcId(message.id)) return { unparsed: headBytes(line, MAX_UNPARSED_SAMPLE) };
      this.pass(method === 'session/update' && !isRequest ? { ...message, method: UPDATE_METHOD } : message);
      return 'passed';
    }
    if (!('result' in message || 'error' in message))
      return { unparsed: headBytes(line, MAX_UNPARSED_SAMPLE) };
    const id = message.id;
    if (typeof id !== 'number' || !this.waiting.has(id)) return 'stray';
    this.waiting.delete(id);
    this.pass(message);
    return 'passed';
  }

  /** End stdin: nothing more is sent; replies still to come are strays. */
  end(): void {
    if (!this.writable) return;
    this.writable = false;
    this.waiting.clear();
    this.stdin?.end();
  }

  /** The run is over: write nothing more, hand the SDK nothing more, and leave the pipe to the process. */
  abandon(): void {
    this.writable = false;
    this.waiting.clear();
    try {
      this.inbox?.close();
    } catch {
      // Already closed (the SDK cancelled its reader when the connection closed): nothing to end.
    }
    this.inbox = null;
  }

  private pass(message: JsonObject): void {
    if (isMessage(message)) this.inbox?.enqueue(message);
  }

  private write(message: AnyMessage): void {
    if (!this.writable || this.stdin === null) return;
    if ('method' in message && 'id' in message && typeof message.id === 'number')
      this.waiting.add(message.id);
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }
}
