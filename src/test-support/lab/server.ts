/**
 * The stand-in model server the conformance lab runs real agent CLIs against: one node:http server
 * on 127.0.0.1 that answers the Anthropic Messages API, the OpenAI Responses and Chat Completions
 * APIs and the Gemini API from the scripts in `scripts.ts`, and writes every response it gave to a
 * ledger. What an agent later wrote in its transcript is checked against that ledger: the server said
 * it, so the numbers are known exactly.
 *
 * It is also the HTTP(S) proxy the agents are given: every tunnel and every proxied request is
 * refused and its host logged, so a test can show that nothing left the machine and name the hosts
 * each CLI tries on its own.
 *
 * Not a model and not a general mock: a request that names no script gets a short fixed answer (side
 * requests such as title generation) and is ledgered as `aux`.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import {
  anthropicReply,
  chatReply,
  geminiReply,
  type Reply,
  responsesReply,
  stepContent,
} from './replies.js';
import { type Api, type Figures, type Parsed, parseRequest, type SentCall, shellCall } from './requests.js';
import { isHeld, position, type ScriptName } from './scripts.js';

/** A request body larger than this is refused: agents send whole conversations, never this much. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** How long a held response waits for `release()` before answering anyway, so no test hangs. */
export const MAX_HOLD_MS = 120_000;

export interface LedgerEntry {
  seq: number;
  api: Api;
  path: string;
  model: string;
  /** Not part of a script: a side request the agent made on its own (titles, probes, checks). */
  aux: boolean;
  script: ScriptName | null;
  step: number | null;
  responseId: string;
  figures: Figures;
  /** The prompt in cctop's terms: input + cache read + cache write. */
  prompt: number;
  calls: SentCall[];
  answer: string | null;
  /** Tool results the agent sent with this request (what the model was told). */
  results: string[];
  atMs: number;
}

export interface Refusal {
  method: string;
  target: string;
  atMs: number;
}

export interface LabServer {
  readonly url: string;
  readonly port: number;
  readonly ledger: LedgerEntry[];
  /** Tunnels and proxied requests refused, and requests to paths the lab does not serve. */
  readonly refused: Refusal[];
  /** Resolves when a held response is waiting for `release()`. */
  whenHeld(): Promise<void>;
  /** Let every held response (and the next ones, until `hold()`) through. */
  release(): void;
  /** Hold held-script responses again after a `release()`. */
  hold(): void;
  close(): Promise<void>;
}

interface Route {
  api: Api;
  kind: 'reply' | 'count';
  model: string | null;
  stream: boolean;
}

function route(method: string, path: string): Route | null {
  if (method !== 'POST') return null;
  if (/\/messages\/count_tokens$/.test(path))
    return { api: 'anthropic', kind: 'count', model: null, stream: false };
  if (/\/messages$/.test(path)) return { api: 'anthropic', kind: 'reply', model: null, stream: false };
  if (/\/responses$/.test(path)) return { api: 'responses', kind: 'reply', model: null, stream: true };
  if (/\/chat\/completions$/.test(path)) return { api: 'chat', kind: 'reply', model: null, stream: false };
  const g = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
  if (g)
    return {
      api: 'gemini',
      kind: g[2] === 'countTokens' ? 'count' : 'reply',
      model: decodeURIComponent(g[1]!),
      stream: g[2] === 'streamGenerateContent',
    };
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
  });
}

/**
 * Distinct figures for every response, growing with the conversation so the context series rises:
 * the prompt is a quarter of the request's bytes plus the sequence number.
 */
function figuresFor(api: Api, seq: number, bodyBytes: number): Figures {
  const prompt = Math.round(bodyBytes / 4) + seq;
  const cacheWrite = api === 'anthropic' ? 7 * seq + 11 : null;
  const cacheRead = Math.floor(prompt / 2);
  const output = 13 + 2 * seq;
  return {
    input: prompt - cacheRead - (cacheWrite ?? 0),
    cacheRead,
    cacheWrite,
    output,
    reasoning: api === 'anthropic' ? null : 3 + seq,
  };
}

/**
 * An answer to a request that wants JSON back (Gemini's next-speaker and routing checks): the
 * required fields of its schema, filled so the agent carries on as the script says.
 */
function structuredAnswer(body: Record<string, unknown>): string | null {
  const config = body.generationConfig as Record<string, unknown> | undefined;
  if (config?.responseMimeType !== 'application/json') return null;
  const schema = (config.responseJsonSchema ?? config.responseSchema) as Record<string, unknown> | undefined;
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) {
    if (name === 'next_speaker') out[name] = 'user';
    else if (Array.isArray(p.enum)) out[name] = p.enum[0];
    else if (p.type === 'boolean') out[name] = false;
    else if (p.type === 'number' || p.type === 'integer') out[name] = 0;
    else if (p.type === 'array') out[name] = [];
    else out[name] = 'lab';
  }
  return JSON.stringify(out);
}

/**
 * The quota a subscription's server reports on every response, which the stand-in sends when asked
 * so the real CLIs write it where they keep it: used percent of the five-hour and the weekly window,
 * and when each resets (epoch seconds).
 */
export interface LabQuota {
  fiveHourPercent: number;
  fiveHourResetS: number;
  weekPercent: number;
  weekResetS: number;
}

/**
 * The rate-limit headers each API's CLI reads, with their names as the pinned CLIs read them:
 * Anthropic's unified headers (Claude Code 2.1.328 reads `anthropic-ratelimit-unified-{5h,7d}-
 * {utilization,reset,status}` with utilization as a fraction) and Codex's (`x-codex-{primary,
 * secondary}-{used-percent,window-minutes,reset-at}`, in codex 0.169.0's binary). Other APIs get none.
 */
export function quotaHeaders(api: Api, q: LabQuota): Record<string, string> {
  switch (api) {
    case 'anthropic':
      return {
        'anthropic-ratelimit-unified-status': 'allowed',
        'anthropic-ratelimit-unified-reset': String(q.fiveHourResetS),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        'anthropic-ratelimit-unified-5h-status': 'allowed',
        'anthropic-ratelimit-unified-5h-utilization': String(q.fiveHourPercent / 100),
        'anthropic-ratelimit-unified-5h-reset': String(q.fiveHourResetS),
        'anthropic-ratelimit-unified-7d-status': 'allowed',
        'anthropic-ratelimit-unified-7d-utilization': String(q.weekPercent / 100),
        'anthropic-ratelimit-unified-7d-reset': String(q.weekResetS),
      };
    case 'responses':
      return {
        'x-codex-primary-used-percent': String(q.fiveHourPercent),
        'x-codex-primary-window-minutes': '300',
        'x-codex-primary-reset-at': String(q.fiveHourResetS),
        'x-codex-secondary-used-percent': String(q.weekPercent),
        'x-codex-secondary-window-minutes': '10080',
        'x-codex-secondary-reset-at': String(q.weekResetS),
      };
    case 'chat':
    case 'gemini':
      return {};
  }
}

export async function startLabServer(o: { dumpDir?: string; quota?: LabQuota } = {}): Promise<LabServer> {
  const ledger: LedgerEntry[] = [];
  const refused: Refusal[] = [];
  let seq = 0;
  let callSeq = 0;
  let released = false;
  let releaseAll: () => void = () => {};
  let gate = new Promise<void>((r) => {
    releaseAll = r;
  });
  const heldWaiters: (() => void)[] = [];
  let heldCount = 0;
  const sockets = new Set<Socket>();

  const refuse = (method: string, target: string, res: ServerResponse | null) => {
    refused.push({ method, target, atMs: Date.now() });
    if (res) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('the cctop lab refuses every request that would leave this machine\n');
    }
  };

  async function answer(req: IncomingMessage, res: ServerResponse, r: Route, path: string): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) {
      res.writeHead(413).end();
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not json"}');
      return;
    }
    if (o.dumpDir) writeFileSync(join(o.dumpDir, `${String(seq + 1).padStart(3, '0')}-${r.api}.json`), raw);
    const parsed: Parsed = parseRequest(r.api, body, r.model, r.stream);
    if (r.kind === 'count') {
      const tokens = Math.round(raw.length / 4);
      const reply = r.api === 'gemini' ? { totalTokens: tokens } : { input_tokens: tokens };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      return;
    }
    const n = ++seq;
    const at = position(parsed.turns);
    const structured = r.api === 'gemini' ? structuredAnswer(body) : null;
    const offersShell = shellCall(parsed.tools, 'true') !== null;
    const aux = at === null || structured !== null || !offersShell;
    const content =
      structured !== null
        ? { answer: structured, calls: [] }
        : at && !aux
          ? stepContent(at.step, parsed.tools, () => `call_lab_${++callSeq}`)
          : { answer: 'Lab session', calls: [] };
    const figures = figuresFor(r.api, n, raw.length);
    const responseId = `lab_${r.api}_${n}`;
    ledger.push({
      seq: n,
      api: r.api,
      path,
      model: parsed.model,
      aux,
      script: at?.script ?? null,
      step: at?.index ?? null,
      responseId,
      figures,
      prompt: figures.input + figures.cacheRead + (figures.cacheWrite ?? 0),
      calls: content.calls,
      answer: content.answer,
      results: at?.results ?? [],
      atMs: Date.now(),
    });
    const reply: Reply =
      r.api === 'anthropic'
        ? anthropicReply(parsed, responseId, content.answer, content.calls, figures)
        : r.api === 'responses'
          ? responsesReply(parsed, responseId, content.answer, content.calls, figures)
          : r.api === 'chat'
            ? chatReply(parsed, responseId, content.answer, content.calls, figures)
            : geminiReply(parsed, content.answer, content.calls, figures);
    res.writeHead(reply.status, {
      'content-type': reply.contentType,
      'cache-control': 'no-cache',
      ...(o.quota === undefined ? {} : quotaHeaders(r.api, o.quota)),
    });
    const [first, ...rest] = reply.chunks;
    if (!aux && at && isHeld(at.step) && !released) {
      // The first event goes out, so the agent sees a live response it must wait on.
      if (reply.contentType === 'text/event-stream' && first !== undefined) res.write(first);
      heldCount++;
      for (const w of heldWaiters.splice(0)) w();
      await Promise.race([gate, new Promise((r) => setTimeout(r, MAX_HOLD_MS))]);
      if (reply.contentType !== 'text/event-stream' && first !== undefined) res.write(first);
    } else if (first !== undefined) res.write(first);
    for (const c of rest) res.write(c);
    res.end();
  }

  const server: Server = createServer((req, res) => {
    const target = req.url ?? '/';
    if (/^[a-z]+:\/\//i.test(target)) {
      refuse(req.method ?? 'GET', target, res);
      return;
    }
    const path = target.split('?')[0]!;
    if (req.method === 'GET' && /\/models$/.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return;
    }
    const r = route(req.method ?? 'GET', path);
    if (!r) {
      refuse(req.method ?? 'GET', target, null);
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not served by the cctop lab"}');
      return;
    }
    answer(req, res, r, path).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err.message));
    });
  });
  server.on('connection', (s) => {
    // An agent that gives up on a refused tunnel resets its socket; that is not the lab's error.
    s.on('error', () => {});
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    refuse('CONNECT', req.url ?? '', null);
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ledger,
    refused,
    whenHeld: () =>
      new Promise<void>((resolve) => {
        if (heldCount > 0) resolve();
        else heldWaiters.push(resolve);
      }),
    release: () => {
      released = true;
      releaseAll();
    },
    hold: () => {
      released = false;
      heldCount = 0;
      gate = new Promise<void>((r) => {
        releaseAll = r;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        releaseAll();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
