/**
 * An entry cctop owns inside an agent's settings: where it sits (a path of keys from the top:
 * `statusLine`, `mcpServers.cctop`), what cctop wants there, and how to tell cctop's own entry
 * (written by any version, from wherever cctop was installed) from someone else's: the status line's
 * and the MCP server's (`mcp/install.ts`).
 *
 * Everything here works on values, never on files, and never mutates what it is given: a settings
 * object is copied, and its keys keep their order (a key set again stays where it was; a new key goes
 * last; a removed key leaves the others as they were).
 *
 * Not here: files (`settings-file.ts`), or deciding what to do with what is found (`apply.ts`).
 */
import { arr, type JsonObject, obj } from '../model/json.js';

export interface Entry {
  /** Keys from the top of the settings object to the entry; at least one. */
  path: readonly string[];
  /** What cctop writes there. */
  want: unknown;
  /** Whether a value found there is cctop's own, of any version or install place. */
  isOurs(found: unknown): boolean;
  /**
   * What to write over one of cctop's own entries that differs from `want` (cctop moved): `want`,
   * keeping what the user changed beside it (a status line's padding).
   */
  repoint(found: unknown): unknown;
  /** How messages name it: "status line". */
  label: string;
}

/** The value at `path`, or undefined when a key on the way is missing or not an object. */
export function valueAt(doc: JsonObject, path: readonly string[]): unknown {
  let at: unknown = doc;
  for (const key of path) {
    const o = obj(at);
    if (o === null || !Object.hasOwn(o, key)) return undefined;
    at = o[key];
  }
  return at;
}

/**
 * A copy of `doc` with `value` at `path`, and how many objects on the way had to be made (a remove
 * takes those away again). Refuses (null) when a key on the way holds something that is not an
 * object: that is the user's, and not cctop's to replace.
 */
export function withValueAt(
  doc: JsonObject,
  path: readonly string[],
  value: unknown,
): { doc: JsonObject; made: number } | null {
  const top = structuredClone(doc);
  let at: JsonObject = top;
  let made = 0;
  for (const key of path.slice(0, -1)) {
    if (!Object.hasOwn(at, key)) {
      at[key] = {};
      made++;
    }
    const next = obj(at[key]);
    if (next === null) return null;
    at = next;
  }
  at[path.at(-1)!] = structuredClone(value);
  return { doc: top, made };
}

/**
 * A copy of `doc` without the key at `path`; then the `made` objects above it that cctop created are
 * taken away too, each only when nothing else was put in it since.
 */
export function withoutValueAt(doc: JsonObject, path: readonly string[], made = 0): JsonObject {
  const top = structuredClone(doc);
  const chain: JsonObject[] = [top];
  for (const key of path.slice(0, -1)) {
    const next = obj(chain.at(-1)![key]);
    if (next === null) return top;
    chain.push(next);
  }
  delete chain.at(-1)![path.at(-1)!];
  for (let level = path.length - 2, left = made; level >= 0 && left > 0; level--, left--) {
    const emptied = chain[level + 1]!;
    if (Object.keys(emptied).length > 0) break;
    delete chain[level]![path[level]!];
  }
  return top;
}

/** Two JSON values are the same, key order included (what a rewrite would print). */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Two JSON values are the same, whatever the order of their keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    const x = arr(a);
    const y = arr(b);
    return x !== null && y !== null && x.length === y.length && x.every((v, i) => sameValue(v, y[i]));
  }
  const x = obj(a);
  const y = obj(b);
  if (x === null || y === null) return a === b;
  const kx = Object.keys(x);
  return kx.length === Object.keys(y).length && kx.every((k) => Object.hasOwn(y, k) && sameValue(x[k], y[k]));
}
