/**
 * `cctop pricing update`: fetch the newest genai-prices catalogue into the cache directory. The one
 * command that uses the network; everything else prices offline.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = await res.text();
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
      `cctop: could not update prices from ${url}: ${(err as Error).message}. The bundled prices stay in use.`,
    );
    return 1;
  }
}
