/**
 * Node's own modules loaded on first use instead of at start-up. A warm `cctop --json` must finish
 * in a few hundred milliseconds, and `crypto`, `worker_threads` and `child_process` cost it about
 * 12 ms to load although it never uses them (it hashes nothing, starts no worker, runs no `ps`).
 *
 * Only for built-in modules, whose loading cannot fail; cctop's own modules are imported normally.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A getter for built-in module `name`, loading it the first time it is called. */
export function later<T>(name: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
