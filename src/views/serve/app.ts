/**
 * The HTTP surface of `cctop serve`, as a Hono app over web-standard `Request`/`Response`: the page,
 * its assets, the JSON API and the event stream, behind the guards every request passes first.
 *
 * The guards (`guards.ts`) run in order, cheapest first: headers every answer carries; the request's
 * size and shape (URL length, body, method, path, Host); then the token. Two files are public (the
 * icon and the manifest a browser fetches without credentials); everything else needs a token. This
 * module wires them and the routes, and keeps the page, the live picture and one session's routes.
 *
 * Every route reads (GET), but one: answering a driven run's approval (`act.ts`), a POST that needs
 * the full token and the page's own origin. Another machine's sessions (`--host`) are read through the
 * same routes with `host=` (`hosts-routes.ts`), and never acted on.
 */
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { LoadedConfig } from '../../config/index.js';
import { findSession } from '../../index/find.js';
import type { DrivenRuns } from '../../live/driven.js';
import type { LiveSessions } from '../../live/engine.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { Env as ProviderEnv, Env as SearchEnv } from '../../providers/types.js';
import { renderMarkdown } from '../cli/chat.js';
import { actRoutes } from './act.js';
import type { Answers } from './answers.js';
import type { ChatUnchanged, ErrorAnswer, InfoAnswer } from './api.js';
import type { Assets } from './assets.js';
import type { Level, Tokens } from './auth.js';
import { attachment } from './download.js';
import { refuse, securityHeaders, shapeGuard, tokenGuard } from './guards.js';
import { handoffRoutes } from './handoff.js';
import { heldRoutes } from './held.js';
import type { RemoteFetches } from './hosts-fetch.js';
import { hostRoutes } from './hosts-routes.js';
import { agentId, type Checked, seq, sessionId, stamp } from './ids.js';
import type { WholeJson } from './publish.js';
import { quotaRoutes } from './quota.js';
import { assetAnswer } from './respond.js';
import { searchRoutes } from './search.js';
import { sendRoutes } from './send.js';
import { spendRoutes } from './spend.js';
import type { EventHub } from './sse.js';

export interface AppDeps {
  live: LiveSessions;
  hub: EventHub;
  assets: Assets;
  answers: Answers;
  /** null: `--no-token`, everyone reads (loopback only). */
  tokens: Tokens | null;
  /** The port listened on (known once listening; part of the cookie's name). */
  port: () => number;
  /** Refuse Host headers that are not loopback names (on a loopback bind: DNS rebinding). */
  loopbackOnly: boolean;
  /** The newest session document as JSON, waiting for the first scan if there is none yet. */
  current: () => Promise<WholeJson>;
  version: string;
  delayMs: number;
  /** The config file, read when the Spend screen asks (its budgets); absent: no budgets are shown. */
  config?: () => LoadedConfig;
  /** The runs `cctop/drive` announces, whose approvals the dashboard may answer; absent: none. */
  driven?: DrivenRuns;
  /** Where the page's search looks (serve's own environment); absent: `/api/search` does not search. */
  env?: SearchEnv;
  /** Other machines' sessions, fetched over ssh when their page asks (`--host`); absent: none. */
  remote?: RemoteFetches | null;
  /** The environment agents' tmux panes are found in, for the page's send box; absent: it types nothing. */
  typing?: ProviderEnv;
}

type Env = { Variables: { level: Level }; Bindings: HttpBindings | undefined };
/** The app's context, for the routes kept in modules of their own (`act.ts`). */
export type ServeEnv = Env;

/** The run and update number of the document `/api/sessions` sends (see `delta.ts`). */
export const RUN_HEADER = 'Cctop-Run';
export const SEQ_HEADER = 'Cctop-Seq';

/** Find the session an id names, or the answer that says why not (400, 404, or 409 with candidates). */
export type Resolve = typeof resolve;

function resolve(
  c: Context<Env>,
  doc: Pick<SessionDocument, 'sessions'>,
  id: Checked<string>,
): { ok: true; session: SessionDoc } | { ok: false; res: Response } {
  if (!id.ok) return { ok: false, res: refuse(c, 400, id.error) };
  const found = findSession(doc, id.value);
  switch (found.kind) {
    case 'one':
      return { ok: true, session: found.session };
    case 'none':
      return { ok: false, res: refuse(c, 404, `no session matches "${id.value}"`) };
    case 'many':
      c.header('Cache-Control', 'no-store');
      return {
        ok: false,
        res: c.json(
          {
            error: `"${id.value}" matches more than one session; give more of the id`,
            candidates: found.candidates.map((s) => ({
              id: s.id,
              provider: s.provider,
              project: s.project,
              title: s.title,
              lastActiveAt: s.lastActiveAt,
            })),
          } satisfies ErrorAnswer,
          409,
        ),
      };
  }
}

/** The page (at `/` and at every session's address) and its assets. */
function pageRoutes(app: Hono<Env>, d: AppDeps): void {
  const page = (c: Context<Env>) => {
    const a = d.assets.page;
    c.header('Cache-Control', 'no-store');
    return c.body(a.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': a.type });
  };
  app.get('/', page);
  app.get('/spend', page);
  app.get('/session/:id', (c) => {
    const id = sessionId(c.req.param('id'));
    if (!id.ok) return refuse(c, 400, id.error);
    return page(c);
  });
  app.get('/assets/:name', (c) => asset(c, d.assets, c.req.param('name')));
}

/** The live picture: what the server is, the whole document, and the stream of its updates. */
function liveRoutes(app: Hono<Env>, d: AppDeps): void {
  app.get('/api/info', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({
      version: d.version,
      level: c.get('level'),
      delayMs: d.delayMs,
      tokens: d.tokens !== null,
    } satisfies InfoAnswer);
  });

  app.get('/api/sessions', async (c) => {
    const doc = await d.current();
    c.header('Cache-Control', 'no-store');
    c.header('ETag', `"${doc.tag}"`);
    // Where this document stands among the stream's updates: a page catching up applies the ones after.
    c.header(RUN_HEADER, doc.run);
    c.header(SEQ_HEADER, String(doc.seq));
    if (c.req.header('if-none-match') === `"${doc.tag}"`) return c.body(null, 304);
    return c.body(doc.json, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.get('/api/events', async (c) => {
    // A HEAD would open a stream nobody reads or cancels: answer it without one.
    if (c.req.method === 'HEAD')
      return c.body(null, 200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
    await d.current();
    const body = d.hub.open(c.req.header('last-event-id') ?? null);
    if (body === null) {
      c.header('Retry-After', '10');
      return refuse(c, 503, 'too many open pages; close some and this one reconnects by itself');
    }
    return new Response(body, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      },
    });
  });
}

/** One session in depth: its report, its conversation, and the conversation as Markdown. */
function sessionRoutes(app: Hono<Env>, d: AppDeps): void {
  app.get('/api/report/:id', async (c) => {
    await d.current();
    const found = resolve(c, d.live.document!, sessionId(c.req.param('id')));
    if (!found.ok) return found.res;
    const r = d.answers.report(found.session);
    c.header('Cache-Control', 'no-store');
    c.header('ETag', `"${r.tag}"`);
    if (c.req.header('if-none-match') === `"${r.tag}"`) return c.body(null, 304);
    return c.body(r.body, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.get('/api/chat/:id', async (c) => {
    await d.current();
    const found = resolve(c, d.live.document!, sessionId(c.req.param('id')));
    if (!found.ok) return found.res;
    const before = seq(c.req.query('before'));
    if (!before.ok) return refuse(c, 400, before.error);
    const agent = agentId(c.req.query('agent'));
    if (!agent.ok) return refuse(c, 400, agent.error);
    const since = stamp(c.req.query('since'));
    if (!since.ok) return refuse(c, 400, since.error);
    const a = d.answers.chat(found.session, { before: before.value, agent: agent.value }, since.value);
    c.header('Cache-Control', 'no-store');
    if (a.body === null) return c.json({ unchanged: true, stamp: a.stamp } satisfies ChatUnchanged);
    return c.body(a.body, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.get('/api/chat/:id/markdown', async (c) => {
    await d.current();
    const found = resolve(c, d.live.document!, sessionId(c.req.param('id')));
    if (!found.ok) return found.res;
    const before = seq(c.req.query('before'));
    if (!before.ok) return refuse(c, 400, before.error);
    const agent = agentId(c.req.query('agent'));
    if (!agent.ok) return refuse(c, 400, agent.error);
    const s = found.session;
    const md = renderMarkdown(s, d.live.conversation(s, { before: before.value, agent: agent.value }));
    c.header('Cache-Control', 'no-store');
    // The session's own id, not the one in the URL: any characters a transcript gave it.
    c.header('Content-Disposition', attachment(`${s.id}${agent.value ? `-${agent.value}` : ''}`, 'md'));
    return c.body(md, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });
}

export function createApp(d: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.use('*', securityHeaders);
  app.use('*', shapeGuard(d));
  app.get('/favicon.svg', (c) => asset(c, d.assets, 'favicon.svg'));
  app.get('/manifest.webmanifest', (c) => asset(c, d.assets, 'manifest.webmanifest'));
  app.use('*', tokenGuard(d));
  pageRoutes(app, d);
  liveRoutes(app, d);
  // Before this machine's session routes: a `host=` ask is another machine's, and answered there.
  hostRoutes(app, { remote: d.remote ?? null, resolve });
  sessionRoutes(app, d);
  actRoutes(app, d.driven ?? null);
  heldRoutes(app, d.env ?? null);
  sendRoutes(app, { live: d.live, ready: d.current, resolve, env: d.typing ?? null });
  searchRoutes(app, d.env ?? null);
  handoffRoutes(app, { live: d.live, ready: d.current, resolve });
  spendRoutes(app, { live: d.live, ready: d.current, config: d.config ?? null });
  quotaRoutes(app, { live: d.live, ready: d.current, env: d.env ?? null });
  app.notFound((c) => refuse(c, 404, 'not found'));
  app.onError((err, c) => {
    process.stderr.write(`cctop serve: ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}\n`);
    c.header('Cache-Control', 'no-store');
    return c.json({ error: 'internal error; cctop serve printed the details' }, 500);
  });
  return app;
}

function asset(c: Context<Env>, assets: Assets, name: string) {
  const a = assets.get(name);
  return a ? assetAnswer(c, a) : refuse(c, 404, 'not found');
}
