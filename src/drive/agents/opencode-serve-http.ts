/**
 * Speaking to one `opencode serve` over HTTP, for the conversation that drives it
 * (`opencode-serve.ts`): the line the server prints once it listens, the password made for the run
 * and the basic auth that carries it, a POST whose reply is read whole but bounded, and the opening
 * of the `/event` stream.
 *
 * The server listens on 127.0.0.1 only, and behind a password only this run knows (OpenCode's
 * `OPENCODE_SERVER_PASSWORD`), so no other local program can answer its questions.
 *
 * What it does not do: decide what to send or when, read the events off the stream (the
 * conversation paces that by the runner's queue), or retry: a request that fails ends the run.
 */
import { randomBytes } from 'node:crypto';
import { headBytes, MAX_LINE } from '../bounds.js';

/** How much of a reply drive reads: OpenCode's replies to these routes are a session or nothing (a few KiB). */
const MAX_REPLY_BYTES = MAX_LINE;

/** How much of a refusal's body an error quotes: it came from the agent. */
const SHOWN_REFUSAL_BYTES = 300;

/** The user name OpenCode's basic auth expects unless told another (`OPENCODE_SERVER_USERNAME`). */
export const SERVER_USER = 'opencode';

/** A password for one server: only this run can talk to it. */
export const serverPassword = (): string => randomBytes(24).toString('base64url');

/** The line 1.18.33 prints once it listens, on the loopback address it was given. */
const LISTENING = /^opencode server listening on (http:\/\/127\.0\.0\.1:\d{1,5})\s*$/;

/** The address `opencode serve` says it listens on, when `line` says so. */
export function listeningOn(line: string): string | null {
  return LISTENING.exec(line.trim())?.[1] ?? null;
}

/** A reply that was not a success, with what OpenCode said. */
export class Refused extends Error {}

/** One run's server: where it listens, its password, and the signal that ends every request to it. */
export interface Server {
  base: string;
  password: string;
  signal: AbortSignal;
}

function headers(server: Server, json: boolean): Record<string, string> {
  const auth = Buffer.from(`${SERVER_USER}:${server.password}`).toString('base64');
  return { authorization: `Basic ${auth}`, ...(json && { 'content-type': 'application/json' }) };
}

/** A request to the server; its reply read whole (bounded), or `Refused` with what it said. */
export async function post(server: Server, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: headers(server, true),
    body: JSON.stringify(body),
    signal: server.signal,
  });
  const text = await boundedText(res, MAX_REPLY_BYTES);
  if (!res.ok) {
    throw new Refused(`POST ${path}: ${res.status} ${headBytes(text.trim(), SHOWN_REFUSAL_BYTES)}`.trim());
  }
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Refused(`POST ${path}: a reply that is not JSON`);
  }
}

/** The server's event stream, opened: its reader, or `Refused` when the server would not open it. */
export async function events(server: Server): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await fetch(`${server.base}/event`, {
    headers: { ...headers(server, false), accept: 'text/event-stream' },
    signal: server.signal,
  });
  if (!res.ok || res.body === null) throw new Refused(`GET /event: ${res.status}`);
  return res.body.getReader();
}

/** A reply's body as text, at most `limit` bytes of it (the rest is not read). */
async function boundedText(res: Response, limit: number): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value));
    size += value.byteLength;
    if (size >= limit) {
      await reader.cancel();
      break;
    }
  }
  return headBytes(Buffer.concat(chunks).toString('utf8'), limit);
}
