/**
 * better-sqlite3, loaded once per thread for every database cctop opens: the session index, the
 * search index and the harnesses' own databases (OpenCode, Devin, Windsurf). One loader, so that a
 * run using several of them loads one copy: two copies would share the one compiled addon, and with
 * it the error class of whichever copy opened a database first, so that an error from one database
 * would not be an instance of the other copy's `SqliteError`. Here, beside the other modules every
 * layer uses, so that the index, search and the providers all import it.
 *
 * Every `cctop --json` made while an agent works opens the index, and loading the package was a tenth
 * of what such a run spends outside its own work. Two costs are cut, each only where it can be proved
 * to change nothing:
 *
 * - Its compiled addon is named to it directly (the `nativeBinding` option) where the package's own
 *   build put it. Left to itself, better-sqlite3 finds it through the `bindings` package, which reads
 *   the call stack and tries `build/` and `build/Debug/` first, each miss a failed `require` with its
 *   error: 1.5 to 3.5 ms.
 * - Its JavaScript (thirteen CommonJS files, each resolved, read and compiled on its own, 4 to 10 ms)
 *   is loaded as the one file `scripts/cli-bundle.mjs` made of it, named for the version it was made
 *   from, and only when that is the version installed: the bundle and the addon then come from one
 *   release, as they do when the package loads itself.
 *
 * Anything else (an addon elsewhere, another version, a tree built without the bundle) loads the
 * package as it is. Every database is opened with `options`, so that the addon is named the same way
 * wherever it is opened. Not here: opening, checking or repairing a database (`index/store.ts`,
 * `search/store.ts`, `providers/sqlite.ts`).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { installedPackage } from './installed-package.js';

const require = createRequire(import.meta.url);

/** better-sqlite3's `Database`, and the options every database is opened with. */
export interface SqliteModule {
  Database: typeof BetterSqlite3;
  options: { nativeBinding?: string };
}

let loaded: SqliteModule | undefined;

/** better-sqlite3, loaded once per thread (a worker loads its own, as it loads every module). */
export function sqliteModule(): SqliteModule {
  loaded ??= fastest() ?? { Database: require('better-sqlite3') as typeof BetterSqlite3, options: {} };
  return loaded;
}

/** The addon named and, when the build made it for this version, the bundled JavaScript; or null. */
function fastest(): SqliteModule | null {
  const found = installedPackage(import.meta.url, 'better-sqlite3');
  // Not installed where this module can see it: `require('better-sqlite3')` says so in its own words.
  if (found === null) return null;
  const root = found.dir;
  const version = found.version !== null && /^[\w.+-]+$/.test(found.version) ? found.version : null;
  const addon = join(root, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(addon)) return null;
  const options = { nativeBinding: addon };
  const bundled = version === null ? null : fileURLToPath(new URL(bundleName(version), import.meta.url));
  if (bundled === null || !existsSync(bundled))
    return { Database: require('better-sqlite3') as typeof BetterSqlite3, options };
  return { Database: require(bundled) as typeof BetterSqlite3, options };
}

/**
 * Where the build puts its bundle of better-sqlite3 `version`, relative to this module in dist/
 * (`scripts/cli-bundle.mjs` writes it there under the same name).
 */
const bundleName = (version: string): string => `./cli-bundle/better-sqlite3-${version}.cjs`;
