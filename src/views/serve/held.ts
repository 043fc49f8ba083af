/**
 * The dashboard's side of held requests (docs/act.md): `GET /api/held` lists those open on this
 * machine (the "Needs you" list and a session page's card), and `POST /api/held/<id>/answer` answers
 * one. The answer is the same as `cctop approve`'s, through `approvals/answer.ts`: the first wins, the
 * holding hook settles, and the page is told what happened.
 *
 * The POST asks what the driven runs' answer asks (`act.ts`): the full token, and a POST from the page's
 * own origin (`sameOrigin`), with a small JSON body. The answerer is journaled as "the dashboard's
 * token holder", from the client's address.
 *
 * Not here: the guards every request passes (`app.ts`).
 */
import { hostname } from 'node:os';
import type { Context, Hono } from 'hono';
import { ANSWER_CONFIRM_MS, answerRequest } from '../../approvals/answer.js';
import { approvalsDir, isRequestId, openRequests, readRequestFile } from '../../approvals/store.js';
import { type ApprovalRequest, MAX_ANSWER_CHARS, type Verdict } from '../../approvals/types.js';
import { obj, str } from '../../model/json.js';
import type { Env } from '../../providers/types.js';
import { runtimeDir } from '../../runtime/dir.js';
import { sameOrigin } from './act.js';
import type { ErrorAnswer } from './api.js';
import type { ServeEnv } from './app.js';

/** A held answer's body: a verdict and its words; a reason or text is bounded by `MAX_ANSWER_CHARS`. */
const MAX_HELD_BODY_BYTES = 4 * MAX_ANSWER_CHARS + 1024;

const HELD_ANSWER = /^\/api\/held\/[0-9a-f]{32}\/answer$/;
export const isHeldAnswerPath = (path: string): boolean => HELD_ANSWER.test(path);

/** What `GET /api/held` answers. */
export interface HeldList {
  requests: ApprovalRequest[];
}

/** What `POST /api/held/<id>/answer` answers when it was not refused. */
export interface HeldAnswered {
  outcome: 'delivered' | 'unconfirmed';
}

type AnyContext = Context<ServeEnv>;

const refuse = (c: AnyContext, status: 400 | 403 | 404 | 409 | 413 | 415 | 503, error: string) => {
  c.header('Cache-Control', 'no-store');
  return c.json({ error } satisfies ErrorAnswer, status);
};

async function readVerdict(c: AnyContext): Promise<Verdict | string> {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return 'the body must be JSON';
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_HELD_BODY_BYTES)
    return `an answer is at most ${MAX_HELD_BODY_BYTES} bytes`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  const o = obj(v) ?? {};
  const words = (k: string) => {
    const s = str(o[k])?.trim() ?? '';
    return s.length > MAX_ANSWER_CHARS ? null : s;
  };
  switch (o.verdict) {
    case 'allow':
      return { kind: 'allow' };
    case 'deny': {
      const reason = words('reason');
      if (reason === null) return `a reason is at most ${MAX_ANSWER_CHARS} characters`;
      return { kind: 'deny', reason: reason === '' ? null : reason };
    }
    case 'text': {
      const t = words('text');
      if (t === null || t === '') return `"text" must be 1 to ${MAX_ANSWER_CHARS} characters`;
      return { kind: 'text', text: t };
    }
    default:
      return '"verdict" must be "allow", "deny" or "text"';
  }
}

/** The routes, for a server whose environment says where the runtime directory is (`env` null: none). */
export function heldRoutes(app: Hono<ServeEnv>, env: Env | null): void {
  const dirs = (): { runtime: string; dir: string } | null => {
    if (env === null) return null;
    const rt = runtimeDir(env);
    const dir = rt.kind === 'ok' ? approvalsDir(rt.path) : null;
    return rt.kind === 'ok' && dir !== null ? { runtime: rt.path, dir } : null;
  };

  app.get('/api/held', (c) => {
    const d = dirs();
    c.header('Cache-Control', 'no-store');
    return c.json({ requests: d === null ? [] : openRequests(d.dir, Date.now()) } satisfies HeldList);
  });

  app.post('/api/held/:id/answer', async (c) => {
    if (!sameOrigin(c)) return refuse(c, 403, 'answers are taken only from the page cctop serve served');
    if (c.get('level') !== 'full') return refuse(c, 403, 'this link is read-only: it cannot answer requests');
    const d = dirs();
    if (d === null) return refuse(c, 503, 'this server has no runtime directory: nothing is held here');
    const id = c.req.param('id');
    const request = isRequestId(id) ? readRequestFile(d.dir, id) : null;
    if (request === null) return refuse(c, 404, 'no such request');
    const verdict = await readVerdict(c);
    if (typeof verdict === 'string') return refuse(c, 400, verdict);
    const address = c.env?.incoming.socket.remoteAddress ?? 'an unknown address';
    const by = {
      via: 'dashboard' as const,
      who: 'the dashboard’s token holder',
      from: `${address} (cctop serve on ${hostname()})`,
    };
    const out = await answerRequest(
      {
        ...d,
        now: Date.now,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        confirmMs: ANSWER_CONFIRM_MS,
      },
      request,
      { verdict, by, at: Date.now() },
    );
    if (out.kind === 'refused') return refuse(c, 409, out.words);
    c.header('Cache-Control', 'no-store');
    return c.json({ outcome: out.kind } satisfies HeldAnswered, out.kind === 'delivered' ? 200 : 202);
  });
}
