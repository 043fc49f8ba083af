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
import { checkLink, isLinkVerdict, isLinkVia, linkKey } from '../../approvals/sign.js';
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

/** A signed answer link (`approvals/sign.ts`): taken without the token, its signature being the credential. */
const SIGNED = /^\/act\/[0-9a-f]{32}\/(allow|deny)$/;
export const isSignedLinkPath = (path: string): boolean => SIGNED.test(path);

/** The page a signed link opens in a browser: what it answers, and one button that does it (no script). */
function linkPage(
  request: ApprovalRequest | null,
  verdict: string,
  action: string,
  note: string | null,
): string {
  const esc = (t: string) =>
    t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const what = request === null ? 'this request' : `${request.tool ?? 'a request'}: ${request.input ?? ''}`;
  const body =
    note !== null
      ? `<p>${esc(note)}</p>`
      : `<p>${verdict === 'allow' ? 'Allow' : 'Deny'} ${esc(what)}?</p><form method="post" action="${esc(action)}"><button type="submit">${verdict === 'allow' ? 'Allow' : 'Deny'}</button></form>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>cctop: answer</title></head><body>${body}</body></html>`;
}

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

interface Dirs {
  runtime: string;
  dir: string;
}

/** The runtime directory and its approvals folder, or null when refused (or no environment). */
function dirsOf(env: Env | null): Dirs | null {
  if (env === null) return null;
  const rt = runtimeDir(env);
  const dir = rt.kind === 'ok' ? approvalsDir(rt.path) : null;
  return rt.kind === 'ok' && dir !== null ? { runtime: rt.path, dir } : null;
}

/**
 * A signed link: checked, then answered like any other answer (the first wins), as the way it was
 * sent (`via`). A GET shows what it would do and a button; only the POST acts, so a link preview or
 * a prefetch never answers.
 */
async function signedLink(c: AnyContext, d: Dirs | null, act: boolean) {
  const key = d === null ? null : linkKey(d.runtime);
  const id = c.req.param('id') ?? '';
  const verdict = c.req.param('verdict') ?? '';
  const via = c.req.query('via') ?? '';
  const exp = Number(c.req.query('exp'));
  const sig = c.req.query('sig') ?? '';
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  const page = (status: 200 | 403 | 409 | 503, request: ApprovalRequest | null, note: string | null) =>
    c.html(linkPage(request, verdict, new URL(c.req.url).pathname + new URL(c.req.url).search, note), status);
  if (d === null || key === null)
    return page(503, null, 'This server has no runtime directory: nothing is held here.');
  if (!isLinkVerdict(verdict) || !isLinkVia(via) || !Number.isSafeInteger(exp))
    return page(403, null, 'This link is not one cctop signed.');
  const check = checkLink(key, { id, verdict, via, expiresAt: exp }, sig, Date.now());
  if (check === 'bad') return page(403, null, 'This link is not one cctop signed.');
  const request = readRequestFile(d.dir, id);
  if (check === 'expired' || request === null)
    return page(
      409,
      request,
      'Not answered: this request is over (its hold ran out); answer it at the agent’s own dialog.',
    );
  if (!act) return page(200, request, null);
  const by = {
    via,
    who: `the holder of a ${via} link`,
    from: `${c.env?.incoming.socket.remoteAddress ?? 'an unknown address'} (cctop serve on ${hostname()})`,
  };
  const v: Verdict = verdict === 'allow' ? { kind: 'allow' } : { kind: 'deny', reason: null };
  const out = await answerRequest(
    {
      ...d,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      confirmMs: ANSWER_CONFIRM_MS,
    },
    request,
    { verdict: v, by, at: Date.now() },
  );
  if (out.kind === 'refused') return page(409, request, `Not answered: ${out.words}.`);
  return page(
    200,
    request,
    out.kind === 'delivered'
      ? verdict === 'allow'
        ? 'Allowed.'
        : 'Denied.'
      : 'Sent; the agent has not taken it yet.',
  );
}

/** The routes, for a server whose environment says where the runtime directory is (`env` null: none). */
export function heldRoutes(app: Hono<ServeEnv>, env: Env | null): void {
  const dirs = () => dirsOf(env);
  const signed = (c: AnyContext, act: boolean) => signedLink(c, dirs(), act);
  app.get('/act/:id/:verdict', (c) => signed(c, false));
  app.post('/act/:id/:verdict', (c) => signed(c, true));

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
