/**
 * The dashboard's search: `GET /api/search?q=…[&role=user|assistant|tool][&provider=a,b][&limit=N]`,
 * the same search as `cctop search` (`search/search.ts`), answered as JSON for the page's search box,
 * each result naming the session and the turn the page links to (`/session/<id>#turn-N`).
 *
 * A search catches the index up before it answers, and that work runs on serve's one thread, so the
 * route gives it `SERVE_CATCH_UP_MS`, less than the command line's: the page says when results may
 * be behind, and the next search reads on. Snippets go out as the transcript has them; the page
 * puts them in text nodes (`web/search.js`).
 *
 * Not here: the guards every request passes (`app.ts`).
 */
import type { Context, Hono } from 'hono';
import type { ProviderId } from '../../model/facts.js';
import { PROVIDERS } from '../../model/facts.js';
import type { Env } from '../../providers/types.js';
import type { Behind } from '../../search/catch-up.js';
import type { SearchHit, SearchRole } from '../../search/search.js';
import type { ErrorAnswer } from './api.js';
import type { ServeEnv } from './app.js';

/**
 * Time a search from the page spends catching the index up: the event stream and every other
 * request wait meanwhile, so a quarter of what the command line allows (`MAX_CATCH_UP_MS`).
 */
export const SERVE_CATCH_UP_MS = 500;

/** `/api/search`: the results, best first, and what was left unread when the budget ran out. */
export interface SearchResults {
  query: string;
  results: SearchHit[];
  behind: Behind | null;
}

const ROLES: readonly SearchRole[] = ['user', 'assistant', 'tool'];

const refuse = (c: Context<ServeEnv>, status: 400 | 503, error: string) => {
  c.header('Cache-Control', 'no-store');
  return c.json({ error } satisfies ErrorAnswer, status);
};

type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function providersOf(v: string | undefined): Checked<ProviderId[] | null> {
  if (v === undefined || v.length === 0) return { ok: true, value: null };
  const out: ProviderId[] = [];
  for (const name of v.split(',')) {
    const id = PROVIDERS.find((p) => p === name);
    if (id === undefined) return { ok: false, error: `provider: expected one of ${PROVIDERS.join(', ')}` };
    out.push(id);
  }
  return { ok: true, value: out };
}

function roleOf(v: string | undefined): Checked<SearchRole | null> {
  if (v === undefined || v.length === 0) return { ok: true, value: null };
  const role = ROLES.find((r) => r === v);
  return role === undefined
    ? { ok: false, error: 'role: expected user, assistant or tool' }
    : { ok: true, value: role };
}

/** The search route, for a server that searches where it reads (`env` null: it does not search). */
export function searchRoutes(app: Hono<ServeEnv>, env: Env | null): void {
  app.get('/api/search', async (c) => {
    if (env === null) return refuse(c, 503, 'this server does not search');
    const q = c.req.query('q') ?? '';
    const providers = providersOf(c.req.query('provider'));
    if (!providers.ok) return refuse(c, 400, providers.error);
    const role = roleOf(c.req.query('role'));
    if (!role.ok) return refuse(c, 400, role.error);
    const limitText = c.req.query('limit');
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      return refuse(c, 400, 'limit: expected a whole number');
    const { search } = await import('../../search/search.js');
    const a = await search({
      env,
      query: q,
      providers: providers.value,
      role: role.value,
      ...(limit === undefined ? {} : { limit }),
      budgetMs: SERVE_CATCH_UP_MS,
    });
    switch (a.kind) {
      case 'malformed':
        return refuse(c, 400, a.why);
      case 'unavailable':
        return refuse(c, 503, a.why);
      case 'results':
        if (a.notice !== null) process.stderr.write(`cctop serve: ${a.notice}\n`);
        c.header('Cache-Control', 'no-store');
        return c.json({ query: q, results: a.results, behind: a.behind } satisfies SearchResults);
    }
  });
}
