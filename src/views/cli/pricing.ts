/**
 * `cctop pricing update`: fetch the newest genai-prices catalogue into the cache directory. The one
 * command that uses the network; everything else prices offline. A machine without the network
 * points `CCTOP_PRICES_URL` at a copy it can reach (another URL, or a `file://` path), and a fetch
 * that fails says why in the network's own terms (the name did not resolve, the connection was
 * refused, no answer in time) and names that variable.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REMOTE_DATA_JSON_URL } from '@pydantic/genai-prices';
import { cataloguePath } from '../../index/catalogue.js';
import type { Io } from './main.js';

/** A slow mirror should not hang a terminal: give up after this. */
export const FETCH_TIMEOUT_MS = 10_000;

/** The catalogue is a few megabytes; a response far larger than that is not it. */
export const MAX_CATALOGUE_BYTES = 32 << 20;

export async function updatePricing(io: Io): Promise<number> {
  const url = io.env.CCTOP_PRICES_URL ?? REMOTE_DATA_JSON_URL;
  const path = cataloguePath(io.env);
  try {
    const body = url.startsWith('file:') ? readFileSync(fileURLToPath(url), 'utf8') : await fetched(url);
    if (body.length > MAX_CATALOGUE_BYTES) throw new Error('response too large');
    const data: unknown = JSON.parse(body);
    if (!Array.isArray(data) || data.length === 0) throw new Error('not a price catalogue');
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, body);
    renameSync(tmp, path);
    io.out(`Saved ${data.length} providers' prices to ${path}`);
    return 0;
  } catch (err) {
    io.err(
      `cctop: could not update prices from ${url}: ${whyNot(err, url)}. The bundled prices stay in use; where this machine cannot reach it, set CCTOP_PRICES_URL to a copy it can (an https:// URL, or file:///path/to/data.json)`,
    );
    return 1;
  }
}

async function fetched(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.text();
}

/** The host of `url`, for a sentence; the whole text when it is not a URL. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    // Not a URL at all: fetch refused it too, and the text itself is the clearest name for it.
    return url;
  }
}

/**
 * Why the catalogue could not be had, in the network's terms. Node's fetch says only "fetch failed"
 * and keeps the reason in `cause` (a system error with a `code`); a timeout is a `TimeoutError`.
 */
export function whyNot(err: unknown, url: string): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return `no answer within ${FETCH_TIMEOUT_MS / 1000} s`;
  const cause: unknown = err.cause;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : null;
  const host = hostOf(url);
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${host} does not resolve (${code}): no network, or no DNS`;
    case 'ECONNREFUSED':
      return `${host} refused the connection (${code})`;
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return `${host} cannot be reached (${code}): no network, or no route to it`;
    case 'ECONNRESET':
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `the connection to ${host} was lost or timed out (${code}): a firewall or proxy in the way?`;
    default: {
      const said = cause instanceof Error && cause.message !== '' ? cause.message : null;
      const inner = [code, said].filter((x) => x !== null).join(': ');
      return inner === '' ? err.message : `${err.message} (${inner})`;
    }
  }
}
