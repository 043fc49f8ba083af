/**
 * The price catalogue in use: the data bundled with `@pydantic/genai-prices`, or a newer copy that
 * `cctop pricing update` saved in the cache directory. Reading it never touches the network.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Provider as CatalogueProvider } from '@pydantic/genai-prices';
import { PriceBook } from '../model/pricing.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';

export const CATALOGUE_FILE = 'genai-prices.json';

export interface CatalogueInfo {
  source: 'bundled' | 'updated';
  path: string | null;
  fetchedAt: string | null;
  /** Why a saved copy was not used, when one exists but is broken. */
  error: string | null;
}

let loaded: CatalogueInfo | null = null;

export function cataloguePath(env: Env): string {
  return join(cacheDir(env), CATALOGUE_FILE);
}

/** Use the saved catalogue if there is a valid one; once per process. */
export function loadCatalogue(env: Env): CatalogueInfo {
  if (loaded) return loaded;
  const path = cataloguePath(env);
  let info: CatalogueInfo = { source: 'bundled', path: null, fetchedAt: null, error: null };
  try {
    const st = statSync(path);
    const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!Array.isArray(data) || data.length === 0) throw new Error('not a list of providers');
    PriceBook.useCatalogue(data as CatalogueProvider[]);
    info = { source: 'updated', path, fetchedAt: st.mtime.toISOString(), error: null };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') info = { ...info, error: `${path}: ${(err as Error).message}` };
  }
  loaded = info;
  return info;
}
