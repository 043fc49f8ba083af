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
import { request } from 'node:http';
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

/**
 * A connection of its own for every request, closed after it (`agent: false`), not `fetch`'s shared
 * pool: `opencode serve` takes port 4096 whenever it is free, so a second run in one process (a
 * library caller's) gets a server at the address of the first, and the pool handed it the first
 * server's dead connection (ECONNRESET).
 */
const OWN_CONNECTION = { agent: false } as const;

/** A request to the server; its reply read whole (bounded), or `Refused` with what it said. */
export function post(server: Server, path: string, body: unknown): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    const req = request(
      `${server.base}${path}`,
      {
        ...OWN_CONNECTION,
        method: 'POST',
        headers: { ...headers(server, true), 'content-length': String(payload.length) },
        signal: server.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size >= MAX_REPLY_BYTES) return;
          chunks.push(c);
          size += c.length;
          // The rest is not read: the connection is this request's own, so it is simply closed.
          if (size >= MAX_REPLY_BYTES) res.destroy();
        });
        res.on('error', fail);
        res.on('close', () => {
          if (settled) return;
          settled = true;
          if (!res.complete && size < MAX_REPLY_BYTES) {
            reject(new Refused(`POST ${path}: the reply was cut off`));
            return;
          }
          const text = headBytes(Buffer.concat(chunks).toString('utf8'), MAX_REPLY_BYTES);
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(
              new Refused(`POST ${path}: ${status} ${headBytes(text.trim(), SHOWN_REFUSAL_BYTES)}`.trim()),
            );
            return;
          }
          if (text.trim() === '') {
            resolve(null);
            return;
          }
          try {
            resolve(JSON.parse(text) as unknown);
          } catch {
            reject(new Refused(`POST ${path}: a reply that is not JSON`));
          }
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

/** The server's event stream, opened: its chunks one read at a time, or `Refused` when the server would not open it. */
export function events(server: Server): Promise<AsyncIterator<Buffer>> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.base}/event`,
      {
        ...OWN_CONNECTION,
        headers: { ...headers(server, false), accept: 'text/event-stream' },
        signal: server.signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          res.destroy();
          reject(new Refused(`GET /event: ${status}`));
          return;
        }
        // Read a chunk at a time: the stream is paused between two reads (back-pressure).
        resolve(res[Symbol.asyncIterator]());
      },
    );
    req.on('error', reject);
    req.end();
  });
}
