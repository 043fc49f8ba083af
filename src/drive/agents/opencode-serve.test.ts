/**
 * The `opencode serve` conversation against servers that misbehave as the real OpenCode 1.18.33 does
 * not on request (the real one is in test/lab/drive-opencode-serve.test.ts): one that never says
 * where it listens, one that refuses to open the session, one whose event stream ends mid-turn, one
 * that asks a question for a session that is not the run's, one that answers without the password.
 * Each is a real HTTP server on loopback, speaking only what the test needs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunnerHost } from '../conversation.js';
import type { Event } from '../events.js';
import { type Plan, planRequest } from '../request.js';
import { opencode, opencodeDialect } from './opencode.js';
import { OpenCodeServe } from './opencode-serve.js';

const SID = 'ses_db066655cffexR01KvPPm5GaJX';
const PASSWORD = 'lab-password';
const plan = (): Plan =>
  planRequest({ agent: 'opencode', prompt: 'hi', permission: 'edit', approvals: true }, opencode.caps);

/** A host that records what the conversation asked of the runner; `broken` resolves on `broke()`. */
function host() {
  const events: Event[] = [];
  let onBroke: () => void = () => {};
  let onDone: () => void = () => {};
  const broken = new Promise<void>((r) => {
    onBroke = r;
  });
  const done = new Promise<void>((r) => {
    onDone = r;
  });
  const h: RunnerHost = {
    broke: () => onBroke(),
    settled: () => {},
    emit: (e) => events.push(...e),
    ready: () => {},
    room: () => Promise.resolve(),
    done: () => onDone(),
  };
  return { h, events, broken, done };
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A loopback server answering each request with `handler`; resolves with its base address. */
async function serve(handler: Handler): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const sse = (res: ServerResponse, type: string, properties: unknown = {}) =>
  res.write(`data: ${JSON.stringify({ type, properties })}\n\n`);

/** Start a conversation and tell it where the server listens, as OpenCode's stdout would. */
function begin(base: string, h: RunnerHost, startMs?: number): OpenCodeServe {
  const c = new OpenCodeServe(plan(), h, opencodeDialect, PASSWORD, startMs);
  c.begin(new PassThrough());
  c.read(`opencode server listening on ${base}`);
  return c;
}

describe('opencode serve, misbehaving', () => {
  it('a server that never says where it listens is given up on, with the fix', async () => {
    const { h, broken } = host();
    const c = new OpenCodeServe(plan(), h, opencodeDialect, PASSWORD, 50);
    c.begin(new PassThrough());
    c.read('Warning: something else entirely');
    await broken;
    expect(c.breakdown).toEqual({
      kind: 'protocol',
      message:
        'opencode serve did not say where it listens within 0 s: is this an OpenCode with a server (opencode-ai 1.18 or later)?',
    });
  });

  it('a refused session breaks the run off with what the server said', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/event') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, 'server.connected');
        return;
      }
      res.writeHead(500).end('{"name":"UnknownError","data":{"message":"database is locked"}}');
    });
    const { h, broken } = host();
    const c = begin(base, h);
    await broken;
    expect(c.breakdown).toEqual({
      kind: 'protocol',
      message:
        'opencode serve: POST /session: 500 {"name":"UnknownError","data":{"message":"database is locked"}}',
    });
  });

  it('sends the run’s password with every request, and a server that wants another is a refusal', async () => {
    const seen: string[] = [];
    const base = await serve((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.writeHead(401).end('Unauthorized');
    });
    const { h, broken } = host();
    const c = begin(base, h);
    await broken;
    expect(seen).toEqual([`Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`]);
    expect(c.breakdown).toEqual({ kind: 'protocol', message: 'opencode serve: GET /event: 401' });
  });

  it('an event stream that ends mid-turn is a broken run, not a settled one', async () => {
    let stream: ServerResponse | null = null;
    let prompt: unknown = null;
    const base = await serve((req, res, body) => {
      if (req.url === '/event') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        stream = res;
        sse(res, 'server.connected');
        return;
      }
      if (req.url === '/session') return void res.writeHead(200).end(JSON.stringify({ id: SID }));
      prompt = JSON.parse(body);
      res.writeHead(204).end();
      // The prompt is taken, and the stream ends before the session ever goes idle.
      stream!.end();
    });
    const { h, broken } = host();
    const c = begin(base, h);
    await broken;
    expect(c.breakdown).toEqual({
      kind: 'protocol',
      message: 'opencode serve: the event stream ended before the turn did',
    });
    expect(c.sawTerminal).toBe(false);
    expect(prompt).toEqual({ parts: [{ type: 'text', text: 'hi' }] });
  });

  it('a question for another session is not the run’s to ask; idle after busy settles the turn', async () => {
    let events: ServerResponse | null = null;
    const base = await serve((req, res) => {
      if (req.url === '/event') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        events = res;
        sse(res, 'server.connected');
        return;
      }
      if (req.url === '/session') return void res.writeHead(200).end(JSON.stringify({ id: SID }));
      res.writeHead(204).end();
      const e = events!;
      sse(e, 'session.status', { sessionID: SID, status: { type: 'busy' } });
      sse(e, 'permission.asked', { id: 'per_other', sessionID: 'ses_someoneelse', permission: 'bash' });
      sse(e, 'message.part.updated', {
        part: { id: 'prt_1', sessionID: SID, type: 'step-finish', reason: 'stop', tokens: { input: 3 } },
      });
      sse(e, 'session.idle', { sessionID: SID });
    });
    const { h, events: delivered, done } = host();
    const c = begin(base, h);
    await done;
    expect(delivered.filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect(c.sawTerminal).toBe(true);
    expect(c.terminal().stop).toEqual({ kind: 'completed' });
    expect(c.breakdown).toBeNull();
  });

  it('reads the event stream only while the caller has room for more', async () => {
    const asked: string[] = [];
    const base = await serve((req, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/event') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, 'server.connected');
        return;
      }
      res.writeHead(500).end('stop here');
    });
    const { h, broken } = host();
    let makeRoom: () => void = () => {};
    const full = new Promise<void>((r) => {
      makeRoom = r;
    });
    let waited = 0;
    const c = begin(base, {
      ...h,
      room: () => {
        waited++;
        return full;
      },
    });
    // The stream is open, but nothing on it is read while the caller's queue is full: after round
    // trips of our own to the same server, the session was still not asked for.
    while (!asked.includes('/event')) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 3; i++) await (await fetch(`${base}/ping`)).text();
    expect(asked.filter((u) => u !== '/ping')).toEqual(['/event']);
    expect(waited).toBe(1);
    makeRoom();
    await broken;
    expect(asked.filter((u) => u !== '/ping')).toEqual(['/event', '/session']);
    expect(c.breakdown?.kind).toBe('protocol');
  });
});
