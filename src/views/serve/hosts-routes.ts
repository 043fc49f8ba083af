/**
 * The session routes for another machine's session: the same addresses as this machine's
 * (`/api/report/<id>`, `/api/chat/<id>`, its Markdown, `/api/handoff/<id>`) with `host=` naming the
 * machine, exactly as `--host` gave it. Only a host this server reads is asked, and only about a
 * session its rows hold: a request cannot make this server ssh anywhere else, or run anything there
 * but `cctop report` and `cctop chat` on an id the host itself listed.
 *
 * Reads, like every other route, so a read-only link reads remote sessions too. Acting stays on the
 * machine the session runs on: the handoff route answers with where to run it instead of a line.
 *
 * Without `host=` each handler passes the request on to this machine's route.
 */
import type { Context, Hono, Next } from 'hono';
import { type HostSpec, MAX_HOST_SPEC_CHARS } from '../../hosts/index.js';
import type { SessionDoc } from '../../model/document.js';
import { renderMarkdown } from '../cli/chat.js';
import type { ChatUnchanged, ChatWindow, ErrorAnswer } from './api.js';
import type { Resolve, ServeEnv } from './app.js';
import { attachment } from './download.js';
import type { Fetch, RemoteFetches, WindowAsk } from './hosts-fetch.js';
import { agentId, seq, sessionId, stamp } from './ids.js';

export interface HostRouteDeps {
  /** null: this server reads no other machine, and a `host=` names nothing. */
  remote: RemoteFetches | null;
  resolve: Resolve;
}

/** The ask is another machine's, or null when it is this machine's (no `host=`). */
function hostAsked(c: Context<ServeEnv>): string | null {
  return c.req.query('host') ?? null;
}

function refuse(c: Context<ServeEnv>, status: 400 | 404 | 409 | 502 | 503, error: string) {
  c.header('Cache-Control', 'no-store');
  if (status === 503) c.header('Retry-After', '5');
  return c.json({ error } satisfies ErrorAnswer, status);
}

/** The host and session a request names, or the answer that says why not. */
function found(
  c: Context<ServeEnv>,
  d: HostRouteDeps,
  name: string,
): { ok: true; host: HostSpec; session: SessionDoc } | { ok: false; res: Response } {
  const spec = name.length <= MAX_HOST_SPEC_CHARS ? (d.remote?.hosts.spec(name) ?? null) : null;
  if (spec === null) return { ok: false, res: refuse(c, 404, 'host= names no machine this server reads') };
  // Just started, or the host is slow to log in: there is nothing to look in yet, which is not "no such session".
  if (!d.remote!.hosts.heardFrom(spec.name))
    return { ok: false, res: refuse(c, 503, `${spec.name} has not answered yet; this page asks again`) };
  const r = d.resolve(c, { sessions: d.remote!.hosts.rowsOf(spec.name) }, sessionId(c.req.param('id')));
  return r.ok ? { ok: true, host: spec, session: r.session } : r;
}

/** A fetch that did not read: the host's trouble with its fix (502), or "try again" (503). */
function unread(c: Context<ServeEnv>, host: string, f: Exclude<Fetch<unknown>, { kind: 'read' }>) {
  return f.kind === 'busy'
    ? refuse(c, 503, `${host} is being asked about this session already; try again in a moment`)
    : refuse(c, 502, `could not read it from ${host}: ${f.error}`);
}

/** `before=` and `agent=`, checked; or the refusal. */
function windowAsk(c: Context<ServeEnv>): { ok: true; q: WindowAsk } | { ok: false; res: Response } {
  const before = seq(c.req.query('before'));
  if (!before.ok) return { ok: false, res: refuse(c, 400, before.error) };
  const agent = agentId(c.req.query('agent'));
  if (!agent.ok) return { ok: false, res: refuse(c, 400, agent.error) };
  return { ok: true, q: { before: before.value, agent: agent.value } };
}

/** The host, session and window (`before=`, `agent=`) a conversation request names; or the refusal. */
function foundWindow(
  c: Context<ServeEnv>,
  d: HostRouteDeps,
  name: string,
): { ok: true; host: HostSpec; session: SessionDoc; q: WindowAsk } | { ok: false; res: Response } {
  const f = found(c, d, name);
  if (!f.ok) return f;
  const w = windowAsk(c);
  return w.ok ? { ...f, q: w.q } : w;
}

export function hostRoutes(app: Hono<ServeEnv>, d: HostRouteDeps): void {
  app.get('/api/report/:id', async (c, next: Next) => {
    const name = hostAsked(c);
    if (name === null) return next();
    const f = found(c, d, name);
    if (!f.ok) return f.res;
    const r = await d.remote!.report(f.host, f.session);
    if (r.kind !== 'read') return unread(c, f.host.name, r);
    c.header('Cache-Control', 'no-store');
    // The page tells a remote session by its host: the report's row says which.
    return c.json({ ...r.value, session: { ...r.value.session, host: f.host.name } });
  });

  app.get('/api/chat/:id', async (c, next: Next) => {
    const name = hostAsked(c);
    if (name === null) return next();
    const f = foundWindow(c, d, name);
    if (!f.ok) return f.res;
    const since = stamp(c.req.query('since'));
    if (!since.ok) return refuse(c, 400, since.error);
    const now = d.remote!.stamp(f.host, f.session, f.q);
    c.header('Cache-Control', 'no-store');
    if (since.value === now) return c.json({ unchanged: true, stamp: now } satisfies ChatUnchanged);
    const r = await d.remote!.conversation(f.host, f.session, f.q);
    if (r.kind !== 'read') return unread(c, f.host.name, r);
    const s = f.session;
    return c.json({
      ...r.value,
      session: s.id,
      provider: s.provider,
      agent: f.q.agent,
      stamp: now,
      host: f.host.name,
    } satisfies ChatWindow);
  });

  app.get('/api/chat/:id/markdown', async (c, next: Next) => {
    const name = hostAsked(c);
    if (name === null) return next();
    const f = foundWindow(c, d, name);
    if (!f.ok) return f.res;
    const r = await d.remote!.conversation(f.host, f.session, f.q);
    if (r.kind !== 'read') return unread(c, f.host.name, r);
    const s = f.session;
    c.header('Cache-Control', 'no-store');
    c.header('Content-Disposition', attachment(`${s.id}${f.q.agent ? `-${f.q.agent}` : ''}`, 'md'));
    return c.body(renderMarkdown(s, r.value), 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  app.get('/api/handoff/:id', async (c, next: Next) => {
    const name = hostAsked(c);
    if (name === null) return next();
    const f = found(c, d, name);
    if (!f.ok) return f.res;
    return refuse(
      c,
      409,
      `this session runs on ${f.host.name}: hand it off there (ssh ${f.host.name}, then cctop handoff ${f.session.id})`,
    );
  });
}
