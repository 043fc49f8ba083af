/**
 * The HTTP surface of the team dashboard (`cctop serve --store`): the page, its assets, and
 * `/api/team`, behind the guards `cctop serve` uses, taken from its modules: the same tokens and
 * read-only link (`serve/auth.ts`), the same loopback Host check against DNS rebinding (`serve/bind.ts`),
 * the same Content-Security-Policy (`serve/guards.ts`) and request bounds (`serve/limits.ts`).
 *
 * Every route reads. Budgets are changed with `cctop store budget set` by a role in `cctop_budgets`,
 * never from the page: the dashboard's own role may not change them anyway, and a server that only
 * answers GET has no acting route for a read-only link to reach.
 *
 * What the page receives was read from the store with the dashboard's role; the store's address and
 * credentials never enter an answer (`answer.ts`).
 */
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Assets } from '../serve/assets.js';
import { type Level, presented, sessionCookie, type Tokens } from '../serve/auth.js';
import { loopbackHostAllowed } from '../serve/bind.js';
import { PAGE_HEADERS } from '../serve/guards.js';
import { MAX_URL_CHARS } from '../serve/limits.js';
import { assetAnswer, tokenToCookie } from '../serve/respond.js';
import { type ShownPeriod, TEAM_PERIODS_SHOWN, type TeamAnswer, teamAnswer } from './answer.js';
import type { TeamPoller } from './poller.js';

export interface TeamAppDeps {
  /** The page's own files (`web/team/`). */
  assets: Assets;
  /** The dashboard's files (`web/`), of which the page borrows `FROM_DASHBOARD`. */
  dashboard: Assets;
  /** null: `--no-token` (loopback only). */
  tokens: Tokens | null;
  port: () => number;
  loopbackOnly: boolean;
  poller: TeamPoller;
  pollMs: number;
  version: string;
}

type Env = { Variables: { level: Level }; Bindings: HttpBindings | undefined };

/** `/api/info` of the team dashboard. */
export interface TeamInfo {
  version: string;
  level: Level;
  team: true;
}

/** The dashboard's files the team page uses too: its colours, bar and headings, and its icon. */
const FROM_DASHBOARD = new Set(['base.css', 'favicon.svg']);

const isApi = (path: string) => path.startsWith('/api/');

function refuse(c: Context<Env>, status: 400 | 401 | 403 | 404 | 405 | 413 | 414, error: string) {
  c.header('Cache-Control', 'no-store');
  if (isApi(new URL(c.req.url).pathname)) return c.json({ error }, status);
  return c.text(`cctop: ${error}\n`, status);
}

/** Size, method, path and Host, before anything else looks at the request. */
function shapeGuard(d: TeamAppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (c.req.url.length > MAX_URL_CHARS)
      return refuse(c, 414, `URLs are at most ${MAX_URL_CHARS} characters`);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (c.env?.outgoing) c.env.outgoing.shouldKeepAlive = false;
      c.header('Allow', 'GET, HEAD');
      return refuse(
        c,
        405,
        'the team dashboard only reads; budgets are changed with cctop store budget set (docs/team.md)',
      );
    }
    const raw = c.env?.incoming?.url ?? new URL(c.req.url).pathname;
    if (/%2e|%2f|%5c|%00|\\|\/\/|\/\.\.?(\/|$|\?)/i.test(raw))
      return refuse(c, 400, 'not a path this server serves');
    if (d.loopbackOnly && !loopbackHostAllowed(c.req.header('host') ?? null, d.port()))
      return refuse(c, 403, 'this server answers to 127.0.0.1 and localhost only');
    if (isApi(new URL(c.req.url).pathname) && c.req.header('sec-fetch-site') === 'cross-site')
      return refuse(c, 403, 'the API does not answer other sites');
    await next();
  };
}

/** The token, as `cctop serve` takes it: header, `?t=` (traded for a cookie), or that cookie. */
function tokenGuard(d: TeamAppDeps): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (d.tokens === null) {
      c.set('level', 'full');
      return next();
    }
    const p = presented(c.req.raw, d.port());
    const level = p.kind === 'token' ? d.tokens.level(p.token) : null;
    if (p.kind !== 'token' || level === null) {
      c.header('WWW-Authenticate', 'Bearer realm="cctop"');
      if (p.kind === 'token' && p.via === 'cookie')
        c.header('Set-Cookie', `${sessionCookie(d.port(), '')}; Max-Age=0`);
      return refuse(c, 401, 'this needs the link cctop serve --store printed (it carries a token)');
    }
    c.set('level', level);
    const path = new URL(c.req.url).pathname;
    if (p.via === 'query' && !isApi(path) && !path.startsWith('/assets/'))
      return tokenToCookie(c, d.port(), p.token);
    await next();
  };
}

function asset(c: Context<Env>, assets: Assets, name: string) {
  const a = assets.get(name);
  return a ? assetAnswer(c, a) : refuse(c, 404, 'not found');
}

export function createTeamApp(d: TeamAppDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(PAGE_HEADERS)) c.res.headers.set(k, v);
  });
  app.use('*', shapeGuard(d));
  app.use('*', tokenGuard(d));
  app.get('/', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.body(d.assets.page.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': d.assets.page.type });
  });
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    return asset(c, FROM_DASHBOARD.has(name) ? d.dashboard : d.assets, name);
  });
  app.get('/api/info', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ version: d.version, level: c.get('level'), team: true } satisfies TeamInfo);
  });
  app.get('/api/team', (c) => {
    const asked = c.req.query('period') ?? 'today';
    const period = TEAM_PERIODS_SHOWN.find((p) => p === asked);
    if (period === undefined) return refuse(c, 400, `period: expected ${TEAM_PERIODS_SHOWN.join(', ')}`);
    c.header('Cache-Control', 'no-store');
    return c.json(answer(d, period) satisfies TeamAnswer);
  });
  app.notFound((c) => refuse(c, 404, 'not found'));
  app.onError((err, c) => {
    process.stderr.write(
      `cctop serve --store: ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}\n`,
    );
    c.header('Cache-Control', 'no-store');
    return c.json({ error: 'internal error; cctop serve --store printed the details' }, 500);
  });
  return app;
}

const answer = (d: TeamAppDeps, period: ShownPeriod): TeamAnswer =>
  teamAnswer(d.poller.picture, d.poller.status, period, Date.now(), d.pollMs);
