/**
 * The price catalogue in use: the data bundled with `@pydantic/genai-prices`, or a newer copy that
 * `cctop pricing update` saved in the cache directory. Reading it never touches the network, and
 * nothing is read or loaded until a price is actually missing from the persistent cache.
 */
import { readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Provider as CatalogueProvider } from '@pydantic/genai-prices';
import { installedPackage } from '../installed-package.js';
import { PriceBook } from '../model/pricing.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';

export const CATALOGUE_FILE = 'genai-prices.json';

export interface CatalogueInfo {
  source: 'bundled' | 'updated';
  path: string | null;
  fetchedAt: string | null;
  /** Names this exact catalogue: cached prices are only reused under the same digest. */
  digest: string;
  /** Why a saved copy was not used, once something tried to use it. */
  error(): string | null;
}

let loaded: CatalogueInfo | null = null;

export function cataloguePath(env: Env): string {
  return join(cacheDir(env), CATALOGUE_FILE);
}

/** The installed `@pydantic/genai-prices` version, which names the catalogue it bundles; 'unknown' when it cannot be read. */
export function bundledVersion(): string {
  return installedPackage(import.meta.url, '@pydantic/genai-prices')?.version ?? 'unknown';
}

function readSaved(path: string): CatalogueProvider[] {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(data) || data.length === 0) throw new Error('not a list of providers');
  return data as CatalogueProvider[];
}

/**
 * The saved catalogue's stat, or undefined when there is none to use: a cache directory that is a
 * file, or one cctop may not search, means the bundled catalogue (the index says what is wrong).
 */
function savedCopy(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Decide which catalogue prices this run (once per process); the data itself loads on demand. */
export function loadCatalogue(env: Env): CatalogueInfo {
  if (loaded) return loaded;
  const path = cataloguePath(env);
  let problem: string | null = null;
  const st = savedCopy(path);
  if (st?.isFile()) {
    PriceBook.useCatalogue(() => {
      try {
        return readSaved(path);
      } catch (err) {
        problem = `${path}: ${(err as Error).message}`;
        return null;
      }
    });
    loaded = {
      source: 'updated',
      path,
      fetchedAt: st.mtime.toISOString(),
      digest: `saved:${st.mtimeMs}:${st.size}`,
      error: () => problem,
    };
  } else {
    loaded = {
      source: 'bundled',
      path: null,
      fetchedAt: null,
      digest: `bundled:${bundledVersion()}`,
      error: () => null,
    };
  }
  return loaded;
}

/** Read the saved catalogue now (for `cctop doctor`), returning why it cannot be used, if it cannot. */
export function checkCatalogue(info: CatalogueInfo): string | null {
  if (info.source !== 'updated' || info.path === null) return null;
  try {
    readSaved(info.path);
    return null;
  } catch (err) {
    return `${info.path}: ${(err as Error).message}`;
  }
}
