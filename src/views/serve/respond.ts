/**
 * Answers `cctop serve` and the team dashboard (`cctop serve --store`) give the same way, so the two
 * apps cannot drift apart on them: a page asset with its ETag, and the trade of a `?t=` token in the
 * address bar for a cookie.
 *
 * Not here: the guards that decide whether to answer at all, or either app's refusals (each app words
 * its own).
 */
import type { Context } from 'hono';
import type { Asset } from './assets.js';
import { sessionCookie } from './auth.js';

/** `a`, revalidated by its ETag on every load (a 304 when the page already has it). */
export function assetAnswer(c: Context, a: Asset): Response {
  c.header('ETag', a.etag);
  c.header('Cache-Control', 'no-cache');
  if (c.req.header('if-none-match') === a.etag) return c.body(null, 304);
  return c.body(a.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': a.type });
}

/**
 * The token leaves the address bar and the history for a cookie scripts cannot read: the cookie is
 * set and the browser sent back to the same address without `t=`.
 */
export function tokenToCookie(c: Context, port: number, token: string): Response {
  const url = new URL(c.req.url);
  url.searchParams.delete('t');
  c.header('Set-Cookie', sessionCookie(port, token));
  c.header('Cache-Control', 'no-store');
  return c.redirect(`${url.pathname}${url.search}`, 302);
}
