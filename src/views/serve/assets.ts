/**
 * The page's files (`web/` at the package root: plain HTML, CSS and ES modules, no build step), read
 * once at start and served from memory.
 *
 * A request names an asset by its file name and is answered from this table or not at all: no path
 * from a URL ever reaches the file system, so there is nothing to traverse.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../../paths.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
};

/** A file name the table accepts: one plain name, no directories. */
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg|webmanifest)$/;

export interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

export const webDir = (): string => join(packageRoot(), 'web');

export class Assets {
  private readonly files = new Map<string, Asset>();

  constructor(dir = webDir()) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (err) {
      throw new Error(
        `the web page's files are missing (${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); reinstall cctop`,
      );
    }
    for (const name of names) {
      if (!ASSET_NAME.test(name)) continue;
      const body = readFileSync(join(dir, name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      this.files.set(name, { body, type: TYPES[extname(name)]!, etag });
    }
    if (!this.files.has('index.html')) throw new Error(`${dir} has no index.html; reinstall cctop`);
  }

  get(name: string): Asset | undefined {
    return ASSET_NAME.test(name) ? this.files.get(name) : undefined;
  }

  get page(): Asset {
    return this.files.get('index.html')!;
  }
}
