/**
 * The HTTP surface of `cctop serve`, as a Hono app over web-standard `Request`/`Response`: the page,
 * its assets, the JSON API and the event stream, behind the guards every request passes first.
 *
 * Order of the guards, cheapest first: headers every answer carries; the request's size and shape
 * (URL length, body, method, path, Host); then the token. Two files are public (the icon and the
 * manifest a browser fetches without credentials); everything else needs a token.
 *
 * Every route reads (GET), but one: answering a driven run's approval (`act.ts`), a POST that needs
 * the full token and the page's own origin. Another machine's sessions (`--host`) are read through the
 * same routes with `host=` (`hosts-routes.ts`), and never acted on.
 */
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { LoadedConfig } from '../../config/index.js';
import { findSession } from '../../index/find.js';
import type { DrivenRuns } from '../../live/driven.js';
import type { LiveSessions } from '../../live/engine.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { Env as ProviderEnv, Env as SearchEnv } from '../../providers/types.js';
import { renderMarkdown } from '../cli/chat.js';
import { actRoutes, isActingPath } from './act.js';
import type { Answers } from './answers.js';
import type { ChatUnchanged, ErrorAnswer, InfoAnswer } from './api.js';
import type { Assets } from './assets.js';
import { type Level, presented, sessionCookie, type Tokens } from './auth.js';
import { loopbackHostAllowed } from './bind.js';
import { attachment } from './download.js';
import { handoffRoutes } from './handoff.js';
import { heldRoutes, isHeldAnswerPath, isSignedLinkPath } from './held.js';
import type { RemoteFetches } from './hosts-fetch.js';
import { hostRoutes } from './hosts-routes.js';
import { agentId, type Checked, seq, sessionId, stamp } from './ids.js';
import { MAX_BODY_BYTES, MAX_URL_CHARS } from './limits.js';
import type { WholeJson } from './publish.js';
import { quotaRoutes } from './quota.js';
import { assetAnswer, tokenToCookie } from './respond.js';
import { searchRoutes } from './search.js';
import { isSendPath, sendRoutes } from './send.js';
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

/**
 * Content-Security-Policy: scripts, styles and data from this server only, nothing inline, no
 * frames, and Trusted Types enforced, so even a mistaken `innerHTML` in the page throws instead of
 * parsing transcript text as markup.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** The headers the team dashboard's answers carry too (`views/team/app.ts`): the page's policy and framing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const SECURITY_HEADERS: Record<string, string> = {
  ...PAGE_HEADERS,
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** The run and update number of the document `/api/sessions` sends (see `delta.ts`). */
export const RUN_HEADER = 'Cctop-Run';
export const SEQ_HEADER = 'Cctop-Seq';

const PUBLIC = new Set(['/favicon.svg', '/manifest.webmanifest']);

/** Encoded separators and dots: no URL the page builds has them, and they are how traversal hides. */
const SNEAKY = /%2e|%2f|%5c|%00|\\/i;

/** The path as the client sent it (before URL parsing folded any `..`), for the traversal check. */
function rawPath(c: Context<Env>): string {
  const raw = c.env?.incoming?.url;
  const path = raw ?? new URL(c.req.url).pathname;
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

function badPath(path: string): boolean {
  // `//host/…` would turn the token redirect into a redirect to another site.
  if (SNEAKY.test(path) || path.includes('//')) return true;
  return path.split('/').some((seg) => seg === '..' || seg === '.');
}

const wantsJson = (path: string): boolean => path.startsWith('/api/');

function refuse(c: Context<Env>, status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 414 | 503, error: string) {
  c.header('Cache-Control', 'no-store');
  if (wantsJson(new URL(c.req.url).pathname)) return c.json({ error } satisfies ErrorAnswer, status);
  return c.text(`cctop: ${error}\n`, status);
}

function unauthorized(c: Context<Env>, why: string) {
  c.header('WWW-Authenticate', 'Bearer realm="cctop"');
  return refuse(c, 401, why);
}

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

/** Every answer carries the security headers, errors included. */
const securityHeaders: MiddlewareHandler<Env> = async (c, next) => {
  await next();
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
};

/** The request's size and shape, before anything reads it. */
function shapeGuard(d: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (c.req.url.length > MAX_URL_CHARS)
      return refuse(c, 414, `URLs are at most ${MAX_URL_CHARS} characters`);
    const length = c.req.header('content-length');
    if (
      (length !== undefined && !(Number(length) <= MAX_BODY_BYTES)) ||
      c.req.header('transfer-encoding') !== undefined
    ) {
      // The rest of the body is not worth reading: hang up once the answer is out.
      if (c.env?.outgoing) c.env.outgoing.shouldKeepAlive = false;
      return refuse(c, 413, `request bodies are at most ${MAX_BODY_BYTES} bytes`);
    }
    if (
      c.req.method !== 'GET' &&
      c.req.method !== 'HEAD' &&
      !(
        c.req.method === 'POST' &&
        (isActingPath(rawPath(c)) ||
          isHeldAnswerPath(rawPath(c)) ||
          isSignedLinkPath(rawPath(c)) ||
          isSendPath(rawPath(c)))
      )
    ) {
      c.header('Allow', 'GET, HEAD');
      return refuse(c, 405, 'this server only reads (GET), but for answering an approval');
    }
    if (badPath(rawPath(c))) return refuse(c, 400, 'not a path this server serves');
    if (d.loopbackOnly && !loopbackHostAllowed(c.req.header('host') ?? null, d.port()))
      return refuse(c, 403, 'this server answers to 127.0.0.1 and localhost only');
    const path = new URL(c.req.url).pathname;
    if (wantsJson(path) && c.req.header('sec-fetch-site') === 'cross-site')
      return refuse(c, 403, 'the API does not answer other sites');
    await next();
  };
}

/** The token (or the cookie it was traded for): everything but the public files needs one. */
function tokenGuard(d: AppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    const path = new URL(c.req.url).pathname;
    if (PUBLIC.has(path)) return next();
    // A signed answer link carries its own credential (`approvals/sign.ts`), checked by its route.
    if (isSignedLinkPath(path)) {
      c.set('level', 'read');
      return next();
    }
    if (d.tokens === null) {
      // `--no-token`: anyone on this machine can connect to a loopback port (another user's
      // process, a forged Origin), so nothing here may act: the page reads, and the acting routes
      // refuse. Acting needs the full token (docs/security.md).
      c.set('level', 'read');
      return next();
    }
    const p = presented(c.req.raw, d.port());
    if (p.kind === 'malformed') return unauthorized(c, p.why);
    if (p.kind === 'none')
      return unauthorized(
        c,
        'this needs the link cctop serve printed (it carries a token, which changes every run unless --token-file keeps it)',
      );
    const level = d.tokens.level(p.token);
    if (level === null) {
      if (p.via === 'cookie') c.header('Set-Cookie', `${sessionCookie(d.port(), '')}; Max-Age=0`);
      return unauthorized(
        c,
        p.via === 'cookie'
          ? 'this page was opened from an older run of cctop serve; open the link it printed this time'
          : 'that token is not valid for this run of cctop serve; open the link it printed',
      );
    }
    c.set('level', level);
    if (p.via === 'query' && !wantsJson(path) && !path.startsWith('/assets/'))
      return tokenToCookie(c, d.port(), p.token);
    await next();
  };
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
