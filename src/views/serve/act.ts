/**
 * The one route of `cctop serve` that acts: answering the approval a driven run waits on
 * (`POST /api/runs/<run>/answer`). Everything else the server does is reading.
 *
 * An answer runs, or stops, a command on this machine, so the route asks more than any read:
 * - the full token (a read-only link is told it is read-only);
 * - a POST from the page's own origin: the `Origin` header names this server as the browser reached
 *   it, and the browser's `Sec-Fetch-Site`, when sent, says same-origin. A page on another site, a
 *   form, or a link cannot make one (the session cookie is also `SameSite=Strict`);
 * - a JSON body of at most `MAX_ANSWER_BYTES`, naming the request and allow or deny.
 * Whether the answer is then taken is the driving program's decision (`live/driven.ts`): only runs
 * started with `approvals: 'remote'`, and only the first answer.
 *
 * Not here: the guards every request passes (`app.ts`), following runs (`live/driven.ts`).
 */
import type { Context, Hono } from 'hono';
import type { DrivenRuns } from '../../live/driven.js';
import type { ErrorAnswer } from './api.js';
import type { ServeEnv } from './app.js';

/** An answer's body is a request id and a word; a few hundred bytes. */
export const MAX_ANSWER_BYTES = 4 * 1024;

/** The paths that take a POST. */
const ACTING = /^\/api\/runs\/[^/]{1,200}\/answer$/;

export const isActingPath = (path: string): boolean => ACTING.test(path);

/** Who answered, as the other watchers are told. */
const BY_DASHBOARD = 'the dashboard (cctop serve)';

export interface AnswerBody {
  request: string;
  behavior: 'allow' | 'deny';
}

/** What `POST /api/runs/<run>/answer` says back when the answer went to the run. */
export interface AnswerSent {
  sent: true;
}

type AnyContext = Context<ServeEnv>;

const refuse = (c: AnyContext, status: 400 | 403 | 409 | 413 | 415 | 503, error: string) => {
  c.header('Cache-Control', 'no-store');
  return c.json({ error } satisfies ErrorAnswer, status);
};

/** Whether the request comes from a page this server served, as the browser says. */
export function sameOrigin(c: AnyContext): boolean {
  const origin = c.req.header('origin');
  const host = c.req.header('host');
  if (origin === undefined || host === undefined) return false;
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  return origin === `http://${host}`;
}

async function readBody(c: AnyContext): Promise<AnswerBody | string> {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return 'the body must be JSON';
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) return `an answer is at most ${MAX_ANSWER_BYTES} bytes`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  if (typeof o.request !== 'string' || o.request.length === 0 || o.request.length > 200)
    return '"request" must name the approval request';
  if (o.behavior !== 'allow' && o.behavior !== 'deny') return '"behavior" must be "allow" or "deny"';
  return { request: o.request, behavior: o.behavior };
}

/** The acting route, for a server whose live picture hears of driven runs (`driven` null: none). */
export function actRoutes(app: Hono<ServeEnv>, driven: DrivenRuns | null): void {
  app.post('/api/runs/:run/answer', async (c) => {
    if (!sameOrigin(c)) return refuse(c, 403, 'answers are taken only from the page cctop serve served');
    if (c.get('level') !== 'full')
      return refuse(c, 403, 'this link is read-only: it cannot answer approvals');
    if (driven === null) return refuse(c, 503, 'this server does not follow driven runs');
    const body = await readBody(c);
    if (typeof body === 'string') return refuse(c, 400, body);
    const r = driven.answer(c.req.param('run'), body.request, body.behavior, BY_DASHBOARD);
    if (r.kind === 'refused') return refuse(c, 409, r.why);
    c.header('Cache-Control', 'no-store');
    return c.json({ sent: true } satisfies AnswerSent, 202);
  });
}
