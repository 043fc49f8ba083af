/**
 * The two addresses the `[notify]` section holds, checked the same way for the config file and for
 * `cctop watch --notify URL`: a webhook cctop POSTs to, and the dashboard each notice links to.
 *
 * Only http and https: any other scheme (`file:`, `javascript:`) is refused, never fetched or put in a
 * link. A URL with a user name or password is refused too: `fetch` will not send one, and saying so
 * here beats a failure at the first notice.
 *
 * Not here: sending anything (`notify/webhook.ts`).
 */

/**
 * The longest address accepted. A webhook URL is a host, a path and perhaps a token (Slack's are
 * about 80 characters, an ntfy topic fewer); past 2 KiB it is not an address someone typed.
 */
export const MAX_URL_CHARS = 2048;

export type CheckedUrl = { ok: true; url: string } | { ok: false; why: string };

function parsed(v: string): URL | string {
  const s = v.trim();
  if (s.length === 0) return 'it is empty';
  if (s.length > MAX_URL_CHARS) return `it is longer than ${MAX_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return 'it is not a URL (expected http://… or https://…)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http or https`;
  if (url.username !== '' || url.password !== '')
    return 'a user name or password in the URL cannot be sent; put the token in its path or query';
  return url;
}

/** A webhook's URL, normalised (`new URL(…).href`: ASCII, host lower-cased), or why not. */
export function webhookUrl(v: string): CheckedUrl {
  const url = parsed(v);
  return typeof url === 'string' ? { ok: false, why: url } : { ok: true, url: url.href };
}

/** The dashboard's base address, without a trailing slash, query or fragment, or why not. */
export function dashboardUrl(v: string): CheckedUrl {
  const url = parsed(v);
  if (typeof url === 'string') return { ok: false, why: url };
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/**
 * A webhook's address as cctop shows it (`cctop doctor`, `cctop watch`): scheme and host only. The
 * path of a Slack webhook or an ntfy topic is the secret that lets anyone post to it.
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === '/' && u.search === '' ? u.origin : `${u.origin}/…`;
  } catch {
    return '(not a URL)';
  }
}
