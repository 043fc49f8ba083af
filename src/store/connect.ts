/**
 * Reaching the team store: which database (`--to`, else `CCTOP_STORE_URL`, else `store.url` in the
 * config file), a `pg` client with bounded waits, and PostgreSQL's and the network's errors told as
 * what to do about them.
 *
 * The password is never needed on the command line, where `ps` shows it to everyone on the machine:
 * `PGPASSWORD` or `~/.pgpass` (`PGPASSFILE`) give it, as for `psql`. A URL that carries one still
 * works, with a warning.
 *
 * Not here: what is stored (`schema.ts`), pushing or reading it.
 */
import pg from 'pg';
import type { Env } from '../providers/types.js';
import { type PassQuery, pgpassLookup } from './pgpass.js';

/** How long connecting may take before the store counts as unreachable (a push then queues). */
export const STORE_CONNECT_TIMEOUT_MS = 10_000;
/** The longest one statement may run: a batch upsert takes milliseconds, a stuck lock should not hang a push. */
export const STORE_STATEMENT_TIMEOUT_MS = 60_000;
/** The longest accepted store URL. */
export const MAX_STORE_URL_CHARS = 2_048;

export type StoreUrlSource = '--to' | 'CCTOP_STORE_URL' | 'store.url';

export type StoreTarget =
  | { kind: 'url'; url: string; source: StoreUrlSource; warnings: string[] }
  | { kind: 'none'; why: string };

/** The URL with any password replaced, for messages and `doctor`. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/** Which database: the flag, the environment, then the config's `store.url`. */
export function storeTarget(flag: string | undefined, env: Env, configUrl: string | null): StoreTarget {
  const [url, source]: [string | undefined, StoreUrlSource] =
    flag !== undefined
      ? [flag, '--to']
      : env.CCTOP_STORE_URL
        ? [env.CCTOP_STORE_URL, 'CCTOP_STORE_URL']
        : [configUrl ?? undefined, 'store.url'];
  if (url === undefined || url === '')
    return {
      kind: 'none',
      why: 'no team store: give --to postgres://…, set CCTOP_STORE_URL, or store.url in the config file (docs/team.md)',
    };
  if (url.length > MAX_STORE_URL_CHARS)
    return {
      kind: 'none',
      why: `the store URL from ${source} is longer than ${MAX_STORE_URL_CHARS} characters`,
    };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      kind: 'none',
      why: `the store URL from ${source} is not a URL: expected postgres://user@host/db`,
    };
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    return {
      kind: 'none',
      why: `the store URL from ${source} is ${parsed.protocol}//…: expected postgres://user@host/db`,
    };
  const warnings =
    parsed.password !== '' && source === '--to'
      ? [
          'the password in --to is visible to everyone on this machine (ps): put it in ~/.pgpass or PGPASSWORD instead',
        ]
      : [];
  return { kind: 'url', url, source, warnings };
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

/** A connected client, or the error told as its fix. The caller ends the client. */
export async function connectStore(
  url: string,
  env: Env,
): Promise<{ kind: 'connected'; client: pg.Client } | { kind: 'failed'; error: string; cause: unknown }> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: STORE_CONNECT_TIMEOUT_MS,
    statement_timeout: STORE_STATEMENT_TIMEOUT_MS,
    application_name: 'cctop',
  });
  // The password, when the URL has none: PGPASSWORD from the environment cctop was given, else
  // ~/.pgpass (PGPASSFILE) as psql reads it. pg would read both itself, but from process.env, and it
  // warns that its own ~/.pgpass reading is going away.
  if (!urlHasPassword(url))
    (client as unknown as { password: unknown }).password = (p: PassQuery) =>
      env.PGPASSWORD || pgpassLookup(env, p);
  // A connection that drops later is reported by the query that needed it, not as an unhandled event.
  client.on('error', () => {});
  try {
    await client.connect();
    return { kind: 'connected', client };
  } catch (e) {
    await client.end().catch(() => {});
    return { kind: 'failed', error: storeError(e, url), cause: e };
  }
}

/** PostgreSQL's or the network's error as one line that says what to do. */
export function storeError(e: unknown, url: string): string {
  const err = e as { code?: string; message?: string };
  const where = shownUrl(url);
  const said = String(err.message ?? e)
    .split('\n')[0]!
    .slice(0, 300);
  switch (err.code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${where}: is PostgreSQL running there, on that port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `no machine has the name in ${where}: check the host`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached (${err.code}): network, VPN or firewall`;
    case '28P01':
      return `the database refused the password for ${where}: check ~/.pgpass or PGPASSWORD`;
    case '28000':
      return `the database does not let this role in (${said}): ask its admin for a pg_hba.conf entry`;
    case '3D000':
      return `${said} at ${where}: create it, or fix the database name in the URL`;
    case '42501':
      return `the role has no right to do that (${said}): docs/team.md shows the grants`;
    default:
      if (/timeout/i.test(said)) return `${where} did not answer within ${STORE_CONNECT_TIMEOUT_MS / 1000} s`;
      if (/password/i.test(said) && /no password|SASL/i.test(said))
        return `${where} wants a password and none was given: put it in ~/.pgpass or PGPASSWORD`;
      return `the store at ${where} said: ${said}`;
  }
}
