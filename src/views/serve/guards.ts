/**
 * The guards every request to `cctop serve` passes before a route sees it, cheapest first: the
 * headers every answer carries; the request's size and shape (URL length, body, method, path, Host);
 * then the token, or the cookie it was traded for. And the refusal they answer with, which the routes
 * use too.
 *
 * It exists so the checks that stand between the network and the data read as one piece, apart from
 * the routes (`app.ts` wires both). It serves nothing, reads no session, and does not check the
 * acting routes' own conditions (full token, the page's origin: `act.ts`, `held.ts`, `send.ts`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { isActingPath } from './act.js';
import type { ErrorAnswer } from './api.js';
import type { AppDeps, ServeEnv as Env } from './app.js';
import { presented, sessionCookie } from './auth.js';
import { loopbackHostAllowed } from './bind.js';
import { isHeldAnswerPath, isSignedLinkPath } from './held.js';
import { MAX_BODY_BYTES, MAX_URL_CHARS } from './limits.js';
import { tokenToCookie } from './respond.js';
import { isSendPath } from './send.js';

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

export function refuse(
  c: Context<Env>,
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 414 | 503,
  error: string,
) {
  c.header('Cache-Control', 'no-store');
  if (wantsJson(new URL(c.req.url).pathname)) return c.json({ error } satisfies ErrorAnswer, status);
  return c.text(`cctop: ${error}\n`, status);
}

function unauthorized(c: Context<Env>, why: string) {
  c.header('WWW-Authenticate', 'Bearer realm="cctop"');
  return refuse(c, 401, why);
}

/** Every answer carries the security headers, errors included. */
export const securityHeaders: MiddlewareHandler<Env> = async (c, next) => {
  await next();
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
};

/** The request's size and shape, before anything reads it. */
export function shapeGuard(d: AppDeps): MiddlewareHandler<Env> {
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
export function tokenGuard(d: AppDeps): MiddlewareHandler<Env> {
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
