/**
 * Where an installed package is, and which version: found from the entry node resolves it to, up to
 * the first `package.json` that names it. Asking node for `<name>/package.json` is not enough: a
 * package with an `exports` map need not list it (`@pydantic/genai-prices` does not, and the price
 * catalogue's version and the warm key's stat of it were silently nothing). Not here: what a caller
 * makes of the version.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface InstalledPackage {
  /** The folder that holds its `package.json`. */
  dir: string;
  /** Its `package.json`. */
  file: string;
  /** Its version, or null when its `package.json` gives none. */
  version: string | null;
}

/** Package `name` as node finds it from the module at `from` (its `import.meta.url`), or null when it does not. */
export function installedPackage(from: string, name: string): InstalledPackage | null {
  let dir: string;
  try {
    dir = dirname(createRequire(from).resolve(name));
  } catch {
    // Not installed where that module looks.
    return null;
  }
  for (;;) {
    const file = join(dir, 'package.json');
    const pkg = jsonOrNull(file);
    if (pkg !== null && Reflect.get(pkg, 'name') === name) {
      const version: unknown = Reflect.get(pkg, 'version');
      return { dir, file, version: typeof version === 'string' ? version : null };
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** A file's JSON object, or null when there is no such file or it holds no object. */
function jsonOrNull(path: string): object | null {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof v === 'object' && v !== null ? v : null;
  } catch {
    // None here (a folder inside the package), or not JSON: the walk goes up a folder.
    return null;
  }
}
