/**
 * `POST /api/sessions/<session>/send`: the session page's box that types a line into the session's
 * terminal, as `cctop send` does (the tmux pane proven to hold its agent, `act/session-pane.ts`).
 *
 * Typing into an agent can make it run commands, so the route asks what the approval route asks
 * (`act.ts`): the full token, a POST from the page's own origin, a small JSON body (`{"text": …}`).
 * What cannot be proven is refused with the same reason `cctop send` gives.
 *
 * Not here: the guards every request passes and the session lookup (`app.ts`).
 */
import type { Context, Hono } from 'hono';
import { typeInto } from '../../act/session-pane.js';
import { checkText, MAX_SEND_CHARS } from '../../act/typing.js';
import type { LiveSessions } from '../../live/engine.js';
import type { Env } from '../../providers/types.js';
import { sameOrigin } from './act.js';
import type { ErrorAnswer } from './api.js';
import type { Resolve, ServeEnv } from './app.js';
import { sessionId } from './ids.js';

/** The body: the text (at most `MAX_SEND_CHARS` characters, each up to 4 bytes) and its JSON. */
export const MAX_SEND_BYTES = MAX_SEND_CHARS * 4 + 1024;

const SEND = /^\/api\/sessions\/[^/]{1,200}\/send$/;

export const isSendPath = (path: string): boolean => SEND.test(path);

export interface SendDeps {
  live: LiveSessions;
  ready: () => Promise<unknown>;
  resolve: Resolve;
  /** The environment the agents' tmux sockets are found with; null: this server types into nothing. */
  env: Env | null;
}

/** What the route says back when the line was typed. */
export interface SendAnswer {
  typed: true;
  where: string;
}

type AnyContext = Context<ServeEnv>;

const refuse = (c: AnyContext, status: 400 | 403 | 409 | 415 | 503, error: string) => {
  c.header('Cache-Control', 'no-store');
  return c.json({ error } satisfies ErrorAnswer, status);
};

async function textOf(c: AnyContext): Promise<{ text: string } | { error: string }> {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json'))
    return { error: 'the body must be JSON' };
  const raw = await c.req.text();
  if (Buffer.byteLength(raw) > MAX_SEND_BYTES)
    return { error: `a line is at most ${MAX_SEND_CHARS} characters` };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { error: 'the body is not JSON' };
  }
  const text = typeof v === 'object' && v !== null && 'text' in v ? v.text : undefined;
  if (typeof text !== 'string') return { error: '"text" must be the line to type' };
  const check = checkText(text);
  return check.kind === 'ok' ? { text: check.text } : { error: check.why };
}

export function sendRoutes(app: Hono<ServeEnv>, d: SendDeps): void {
  app.post('/api/sessions/:id/send', async (c) => {
    if (!sameOrigin(c)) return refuse(c, 403, 'text is typed only from the page cctop serve served');
    if (c.get('level') !== 'full')
      return refuse(c, 403, 'this link is read-only: it cannot type into sessions');
    if (d.env === null) return refuse(c, 503, 'this server does not type into sessions');
    const body = await textOf(c);
    if ('error' in body) return refuse(c, 400, body.error);
    await d.ready();
    const found = d.resolve(c, d.live.document!, sessionId(c.req.param('id')));
    if (!found.ok) return found.res;
    const r = await typeInto(found.session, body.text, d.env);
    if (r.kind === 'refused') return refuse(c, 409, `${r.why}; ${r.fix}`);
    c.header('Cache-Control', 'no-store');
    return c.json({ typed: true, where: r.where } satisfies SendAnswer, 200);
  });
}
