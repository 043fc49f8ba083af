/**
 * One side of a JSON-RPC 2.0 conversation over an agent's stdio, one message per line: it frames
 * what drive sends, tells apart what the agent sends (a reply to one of our requests, a request of
 * its own, a notification), and matches each reply to the request it answers.
 *
 * It is synchronous on purpose. `read` is handed one stdout line at a time by the runner's paced
 * pump and returns what the line was, the reply already matched to its request's tag, so whatever
 * events the reply makes go into the queue in stdout order and under its back-pressure; a promise
 * per request would resolve on a later tick, outside the pump, past the queue's bound.
 *
 * Codex's app server speaks through it; ACP runs go through the official ACP SDK (`src/drive/acp/`).
 *
 * What it does not do: know any method (codex app-server's live in its own module),
 * answer the agent's requests (the caller must, with `respond` or `refuse`, or the agent waits), or
 * read batches (neither protocol sends them; a batch is an unparsed line). Ids drive sends are its
 * own counter; ids the agent sends are echoed back exactly as they came.
 */
import type { Writable } from 'node:stream';
import { type JsonObject, obj, parseObject, str } from '../../model/json.js';
import { headBytes, MAX_IDENTIFIER_BYTES, MAX_UNPARSED_SAMPLE } from '../bounds.js';

/**
 * Requests drive may have waiting for a reply at once. A protocol that sends one request per
 * message (codex app-server's turns) asks a few. An agent that never replies while the caller keeps asking would otherwise
 * grow the map for the length of the run; past the bound a request is not sent at all.
 */
export const MAX_PENDING_REQUESTS = 32;

/** The error codes JSON-RPC 2.0 defines, for replies drive writes. */
export const RPC_ERROR = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

/** A request id: what the agent sent, echoed back unchanged in the reply. */
export type RpcId = number | string;

/** The answer to one request. */
export type Reply =
  | { kind: 'result'; value: unknown }
  /** `code` is null when the agent gave none that is a number; `message` is '' when it gave none. */
  | { kind: 'error'; code: number | null; message: string; data: unknown };

/** What one line from the agent was. `Tag` is whatever the caller attached to its request. */
export type Incoming<Tag> =
  /** The reply to a request drive sent, with the tag it was sent with. */
  | { kind: 'reply'; tag: Tag; reply: Reply }
  /** The agent asks something. Answer it with `respond` or `refuse`, or the agent waits. */
  | { kind: 'request'; id: RpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  /** A reply to no request drive is waiting on (never sent, already answered, or an unusable id). */
  | { kind: 'stray'; id: RpcId | null }
  /** Not JSON-RPC at all (a banner, a warning, a cut line); `sample` is its head, for a diagnosis. */
  | { kind: 'unparsed'; sample: string };

/** Why a request was not sent. */
export type Unsent = 'closed' | 'too-many-pending';

const usableRpcId = (v: unknown): v is RpcId =>
  (typeof v === 'number' && Number.isSafeInteger(v)) ||
  (typeof v === 'string' && Buffer.byteLength(v) <= MAX_IDENTIFIER_BYTES);

export interface PeerOptions {
  /**
   * `required` (JSON-RPC 2.0, and ACP): a line without `"jsonrpc":"2.0"` is not a message.
   * `optional`: a line may leave it out (Codex's app server does), but may not name another version.
   */
  versionMember?: 'required' | 'optional';
}

export class RpcPeer<Tag> {
  constructor(private readonly options: PeerOptions = {}) {}

  private stdin: Writable | null = null;
  private writable = false;
  private nextId = 0;
  private readonly waiting = new Map<number, Tag>();

  /** Start writing to the agent's stdin. A broken pipe closes the peer; the agent's exit says why. */
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

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Send a request; its reply comes back from `read` with `tag`. Null when sent, else why not. */
  request(method: string, params: unknown, tag: Tag): Unsent | null {
    if (!this.writable) return 'closed';
    if (this.waiting.size >= MAX_PENDING_REQUESTS) return 'too-many-pending';
    const id = this.nextId++;
    this.waiting.set(id, tag);
    this.write({ jsonrpc: '2.0', id, method, params });
    return null;
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** Answer the agent's request `id`. */
  respond(id: RpcId, result: unknown): void {
    this.write({ jsonrpc: '2.0', id, result });
  }

  /** Answer the agent's request `id` with an error, so it does not wait for an answer that never comes. */
  refuse(id: RpcId, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /** End stdin: nothing more is sent, and the replies still waiting will be strays if they come. */
  end(): void {
    if (!this.writable) return;
    this.writable = false;
    this.waiting.clear();
    this.stdin?.end();
  }

  /** The run is over: write nothing more, and leave the pipe to the process's own end. */
  abandon(): void {
    this.writable = false;
    this.waiting.clear();
  }

  /** What one line of the agent's stdout was. */
  read(raw: string): Incoming<Tag> {
    const line = raw.trim();
    const message = parseObject(line);
    const version = message?.jsonrpc;
    const versionOk =
      version === '2.0' || (version === undefined && this.options.versionMember === 'optional');
    if (message === null || !versionOk) {
      return { kind: 'unparsed', sample: headBytes(line, MAX_UNPARSED_SAMPLE) };
    }
    const method = str(message.method);
    if (method !== null) {
      if (!('id' in message) || message.id === null) {
        return { kind: 'notification', method, params: message.params };
      }
      // A request whose id cannot be echoed back cannot be answered either; its sender will see
      // no reply, which is all an unusable id allows.
      if (!usableRpcId(message.id)) return { kind: 'unparsed', sample: headBytes(line, MAX_UNPARSED_SAMPLE) };
      return { kind: 'request', id: message.id, method, params: message.params };
    }
    if ('result' in message || 'error' in message) return this.reply(message);
    return { kind: 'unparsed', sample: headBytes(line, MAX_UNPARSED_SAMPLE) };
  }

  private reply(message: JsonObject): Incoming<Tag> {
    const id = message.id;
    if (typeof id !== 'number' || !this.waiting.has(id)) {
      return { kind: 'stray', id: usableRpcId(id) ? id : null };
    }
    const tag = this.waiting.get(id) as Tag;
    this.waiting.delete(id);
    const error = obj(message.error);
    if (error !== null || !('result' in message)) {
      const code = typeof error?.code === 'number' && Number.isFinite(error.code) ? error.code : null;
      return {
        kind: 'reply',
        tag,
        reply: { kind: 'error', code, message: str(error?.message) ?? '', data: error?.data ?? null },
      };
    }
    return { kind: 'reply', tag, reply: { kind: 'result', value: message.result } };
  }

  private write(message: unknown): void {
    if (!this.writable || this.stdin === null) return;
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }
}

/** What an RPC conversation does with each kind of message it reads. */
export interface RpcHandlers<Tag, R> {
  notified(method: string, params: unknown): R;
  /** The agent asks: answer with `respond` or `refuse`, or it waits. */
  asked(id: RpcId, method: string, params: unknown): R;
  replied(tag: Tag, reply: Reply): R;
}

/**
 * One stdout line through `peer`, to the handler for what it is. A blank line and a reply to
 * nothing waiting are nothing; a line that is not JSON-RPC is counted in `seen` (and the first kept),
 * never failing the run.
 */
export function readLine<Tag, R>(
  peer: RpcPeer<Tag>,
  line: string,
  seen: { unparsed: number; firstUnparsed: string | null },
  on: RpcHandlers<Tag, R[]>,
): R[] {
  if (line.trim() === '') return [];
  const m = peer.read(line);
  switch (m.kind) {
    case 'unparsed':
      seen.unparsed++;
      seen.firstUnparsed ??= m.sample;
      return [];
    case 'stray':
      return [];
    case 'notification':
      return on.notified(m.method, m.params);
    case 'request':
      return on.asked(m.id, m.method, m.params);
    case 'reply':
      return on.replied(m.tag, m.reply);
  }
}
