/**
 * The page's files, read once at start and served from memory: `web/` at the package root (plain
 * HTML, CSS and ES modules, no build step), the few modules the page shares with the rest of cctop
 * (compiled by the normal build into `dist/`), and the harness names, written from the provider table.
 *
 * A request names an asset by its file name and is answered from this table or not at all: no path
 * from a URL ever reaches the file system, so there is nothing to traverse. The shared modules are a
 * fixed list, not a folder.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../../paths.js';
import { PLACE_LIST } from '../../providers/places.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
};

/** A file name the table accepts: one plain name, no directories. */
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg|webmanifest)$/;

/**
 * Modules the page imports from the build: one implementation for the page and the terminal. Each
 * is served under its name here (`web/<name>.d.ts` gives the page its types), and each must import
 * nothing, since the browser would ask for its imports by paths this table does not serve.
 */
export const SHARED_MODULES: Readonly<Record<string, string>> = {
  'shared-format.js': 'dist/views/format.js',
  'shared-usage.js': 'dist/model/usage.js',
  'shared-delta.js': 'dist/views/serve/delta.js',
};

/** The module the page reads harness names from (`web/harnesses.d.ts` types it). */
export const HARNESS_MODULE = 'harnesses.js';

/** An `import` or `export … from` statement, which a shared module may not have. */
const IMPORTS = /^\s*(import[\s{*'"]|export\s[^;]*?\sfrom\s)/m;

export interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

export const webDir = (): string => join(packageRoot(), 'web');

/** `HARNESS`, every provider's id and label, from the one provider table. */
export function harnessModule(): string {
  const labels = Object.fromEntries(PLACE_LIST.map((p) => [p.id, p.label]));
  return `// Written by cctop serve from its provider table (src/providers/index.ts).\nexport const HARNESS = Object.freeze(${JSON.stringify(labels)});\n`;
}

function asset(body: Uint8Array, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** A shared module's compiled text, refused with the fix when it is missing or imports something. */
function sharedModule(name: string, built: string, root: string): Uint8Array {
  const path = join(root, built);
  let body: Buffer;
  try {
    body = readFileSync(path);
  } catch (err) {
    throw new Error(
      `the web page's module ${name} is missing (${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); run npm run build, or reinstall cctop`,
    );
  }
  if (IMPORTS.test(body.toString('utf8')))
    throw new Error(
      `${path} imports another module, which the page cannot load; the modules the page shares must import nothing`,
    );
  return body;
}

export class Assets {
  private readonly files = new Map<string, Asset>();

  constructor(dir = webDir(), root = packageRoot()) {
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
      this.files.set(name, asset(readFileSync(join(dir, name)), TYPES[extname(name)]!));
    }
    if (!this.files.has('index.html')) throw new Error(`${dir} has no index.html; reinstall cctop`);
    for (const [name, built] of Object.entries(SHARED_MODULES))
      this.files.set(name, asset(sharedModule(name, built, root), TYPES['.js']!));
    this.files.set(HARNESS_MODULE, asset(Buffer.from(harnessModule()), TYPES['.js']!));
  }

  get(name: string): Asset | undefined {
    return ASSET_NAME.test(name) ? this.files.get(name) : undefined;
  }

  get page(): Asset {
    return this.files.get('index.html')!;
  }
}
