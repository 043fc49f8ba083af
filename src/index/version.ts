/**
 * The parser version of each provider: a digest of the compiled code that turns its files into
 * facts. Any edit to that code changes the digest, and the index re-reads exactly that provider's
 * files; nothing is invalidated by hand, and nothing is forgotten.
 *
 * Which code that is, is found, not listed: from where the provider's reading starts
 * (`providers/<id>/parse.js`, the `parse` of its table entry) every relative import is followed,
 * and every module reached is part of the digest. A module added, moved or shared later is counted
 * without anyone remembering to. Its conversation and calls readers are not reached, so an edit
 * there does not make the index read the files again. The modules are only read as bytes (a warm
 * run loads no parser); a type-only import leaves nothing in the compiled code and is not followed.
 * A package a module loads by name is not our code and is not read; what it is (secretlint's rules,
 * by their versions) is folded in where that module is reached (`LoadedByName`).
 *
 * The window rules and the rest of the build are in `buildVersion`, from `sessions.ts`, which
 * reaches every provider's place.
 *
 * `npm run build` computes them once (`scripts/code-versions.mjs`) into a module beside this one, so
 * a run does not read 70 modules to learn what the build already knew. That module is trusted only
 * while the compiled code is not newer than it: the compiler rewrites every module it emits, so a
 * `tsc` run without the script leaves a `sessions.js` newer than the recorded versions, and they
 * are computed again here. (An installed package, whose files all carry one time, keeps them.)
 * Tests run the sources, which have no such module.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { Digest } from '../model/digest.js';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { obj, str } from '../model/json.js';
import { rulesIdentity } from '../secrets/rules.js';

/**
 * The longest module specifier read: ours are a few dozen characters (`../../model/facts.js`), and
 * a longer quoted string is not one of our imports. It keeps a stray quote from making one match
 * span a file.
 */
const MAX_SPECIFIER_BYTES = 256;

/**
 * A relative module specifier after `from` (`import … from`, `export … from`), `import` (a bare
 * import) or `import(`. Packages and `node:` modules are not ours to digest. A `from './…'` quoted
 * in a comment is taken too: one module more in a digest is harmless.
 */
const SPECIFIER = new RegExp(
  `\\b(from|import)\\s*\\(?\\s*(['"])(\\.\\.?\\/[^'"\\n]{1,${MAX_SPECIFIER_BYTES}})\\2`,
  'g',
);

/** In every relative specifier; the last one in a file ends what is searched. */
const DOT_SLASH = Buffer.from('./');

/**
 * The relative modules a module imports at run time. In sources, `import type` and `export type`
 * statements are skipped, as the compiler erases them (compiled modules have none).
 */
export function relativeImports(source: Uint8Array): string[] {
  // A warm run computes every version, so this runs cold over every module: only the part up to the
  // last import is decoded (imports stand first, bar a re-export or two), and it is decoded and
  // searched natively. Our module names are ASCII, so one byte is one character.
  const b = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  const end = b.lastIndexOf(DOT_SLASH);
  if (end === -1) return [];
  const text = b.toString('latin1', 0, end + MAX_SPECIFIER_BYTES + 1);
  const out: string[] = [];
  SPECIFIER.lastIndex = 0;
  for (let m = SPECIFIER.exec(text); m !== null; m = SPECIFIER.exec(text)) {
    if (m[1] !== 'from' || !typeOnly(text, m.index)) out.push(m[3]!);
  }
  return out;
}

/** Whether the statement that ends at `at` opens with `import type` or `export type`. */
function typeOnly(text: string, at: number): boolean {
  const start = Math.max(text.lastIndexOf('import ', at), text.lastIndexOf('export ', at));
  return start !== -1 && text.startsWith(' type ', start + 'import'.length);
}

/** What the walk keeps of a module: what its bytes digest to, and whom it imports. */
interface ModuleFacts {
  crc: number;
  bytes: number;
  /** Its relative imports, resolved to module paths. */
  imports: string[];
}

/**
 * Room for one module as it is read. Our largest compiled module is under 30 KiB; past this size a
 * module is read whole the ordinary way. One buffer serves every read, so a module costs an open, a
 * read and a close: on a warm run the system calls are most of what the versions cost.
 */
const SCRATCH_BYTES = 1 << 20;

let scratch: Buffer | undefined;

/** A module's bytes, or null when it cannot be read. Valid until the next call. */
function readModule(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
    const n = readSync(fd, scratch, 0, SCRATCH_BYTES, 0);
    return n < SCRATCH_BYTES ? scratch.subarray(0, n) : readFileSync(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * What a module loads by name from another package, which the walk does not follow (it is not our
 * code): the identity of what it loads, by the module's path under the root without its extension.
 * A digest that reaches the module folds it in, so an upgrade of that package retires what the old
 * one made. `secrets/detect` runs secretlint's rules, which redact the titles a build stores (and
 * the text some harnesses' readers keep): a secret new rules find is then hidden in kept sessions
 * too, not only in those whose transcript changed.
 */
export type LoadedByName = (module: string) => string | null;

const LOADED_BY_NAME: Record<string, () => string> = { 'secrets/detect': () => rulesIdentity() };

const loadedByName: LoadedByName = (module) => LOADED_BY_NAME[module]?.() ?? null;

/**
 * The modules of this package as files on disk, each read once per process (the shared modules are
 * in every provider's graph, and the versions are computed once a run).
 */
export class CodeGraph {
  /** Each module by path; null when it cannot be read. */
  private readonly known = new Map<string, ModuleFacts | null>();
  /** What each module loads by name (`LoadedByName`), asked once per module. */
  private readonly loaded = new Map<string, string | null>();

  constructor(private readonly loads: LoadedByName = loadedByName) {}

  private factsOf(path: string): ModuleFacts | null {
    let m = this.known.get(path);
    if (m === undefined) {
      const bytes = readModule(path);
      m = bytes === null ? null : { crc: crc32(bytes), bytes: bytes.length, imports: relativeImports(bytes) };
      this.known.set(path, m);
      if (m !== null) m.imports = m.imports.map((s) => this.resolve(path, s));
    }
    return m;
  }

  /** A module imported as `./x.js` is `x.js` compiled, or `x.ts` when the tests run the sources. */
  private resolve(from: string, specifier: string): string {
    const path = beside(from, specifier);
    return path.endsWith('.js') && this.factsOf(path) === null ? `${path.slice(0, -3)}.ts` : path;
  }

  /** Every module (as a path) reached from `entries` by relative imports, entries included, sorted. */
  modules(entries: readonly string[]): string[] {
    const seen = new Set<string>();
    const queue = [...entries];
    for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
      if (seen.has(path)) continue;
      seen.add(path);
      queue.push(...(this.factsOf(path)?.imports ?? []));
    }
    return [...seen].sort();
  }

  /**
   * A digest of the modules reached from `entries`: each one's name (its path under `root`) and
   * bytes, and what it loads by name (`LoadedByName`). A module that cannot be read (an import the
   * walk misread) counts by its name alone.
   */
  digest(entries: readonly string[], root: string): string {
    const h = new Digest();
    for (const path of this.modules(entries)) {
      const name = path.startsWith(root) ? path.slice(root.length) : path;
      h.string(name);
      const m = this.factsOf(path);
      // As `Digest.bytes` would fold them in, from the CRC taken while the bytes were at hand.
      if (m !== null) h.int(m.crc).int(m.bytes);
      const loaded = this.loadedBy(name.replace(/\.[jt]s$/, ''));
      if (loaded !== null) h.string(loaded);
    }
    return h.hex();
  }

  private loadedBy(module: string): string | null {
    let v = this.loaded.get(module);
    if (v === undefined) {
      v = this.loads(module);
      this.loaded.set(module, v);
    }
    return v;
  }
}

const code = new CodeGraph();

/**
 * The module a relative specifier names, from the module that imports it. The compiler writes them
 * as `./x.js` and `../../a/x.js`, resolved here by hand: `path.resolve` or `URL` cost a warm run more
 * than all the reading.
 */
export function beside(from: string, specifier: string): string {
  let dir = from.slice(0, from.lastIndexOf(sep));
  let rest = specifier;
  for (;;) {
    if (rest.startsWith('./')) rest = rest.slice(2);
    else if (rest.startsWith('../')) {
      rest = rest.slice(3);
      dir = dir.slice(0, dir.lastIndexOf(sep));
    } else break;
  }
  // Anything else (a `..` further in, another separator) is left to the general rule.
  return rest.includes('./') || sep !== '/' ? resolve(dirname(from), specifier) : `${dir}/${rest}`;
}

/** `dist/` compiled, `src/` when the tests run the sources, with a separator at the end. */
const top = fileURLToPath(new URL('../', import.meta.url));
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** Where a provider's reading starts: `parse.ts` in the folder named by its id. */
export const providerEntry = (id: ProviderId): string => `${top}providers/${id}/parse${extension}`;

const cache = new Map<ProviderId, string>();

export function parserVersion(provider: ProviderId): string {
  let v = cache.get(provider) ?? built?.parsers.get(provider);
  if (v === undefined) {
    v = code.digest([providerEntry(provider)], top);
    cache.set(provider, v);
  }
  return v;
}

/**
 * Where building sessions from facts starts: `sessions.ts`, which reaches the record codec and the
 * printer. An edit to anything it reaches retires the kept sessions.
 */
const BUILD = [`${top}index/sessions${extension}`];

let build: string | undefined;

/** A digest of the building code (every provider's place and window rules with it) and of every parser. */
export function buildVersion(): string {
  build ??= built?.build;
  if (build === undefined) build = computedBuildVersion();
  return build;
}

/** The versions as this code digests to, whatever the build recorded (what the build script records). */
export function computedVersions(): { parsers: Record<string, string>; build: string; rules: string } {
  const parsers: Record<string, string> = {};
  for (const id of PROVIDERS) parsers[id] = code.digest([providerEntry(id)], top);
  return { parsers, build: computedBuildVersion(), rules: rulesIdentity() };
}

let rules: string | undefined;

/**
 * secretlint's rules by their versions (`secrets/rules.ts`), as the build recorded them: what the
 * search index is keyed by, besides its schema, so that an upgrade of the rules retires the turns it
 * stored redacted by the old ones. Read from the preset's files only when the build did not record it.
 */
export function redactionRules(): string {
  rules ??= built?.rules ?? rulesIdentity();
  return rules;
}

function computedBuildVersion(): string {
  const h = new Digest();
  h.string(code.digest(BUILD, top));
  for (const id of PROVIDERS) h.string(code.digest([providerEntry(id)], top));
  return h.hex();
}

/** The module `npm run build` writes the versions into, beside this one. */
export const BUILT_VERSIONS_MODULE = 'code-versions.js';
/** A compiled module the versions must not be older than: the compiler rewrites it, like every module, on each run. */
export const STAMPED = 'index/sessions.js';

interface BuiltVersions {
  parsers: Map<string, string>;
  build: string;
  /** Absent from a module an older build wrote: then read from the preset. */
  rules: string | null;
}

/** The versions the build recorded, or null when there are none or the code was compiled again since. */
async function builtVersions(): Promise<BuiltVersions | null> {
  if (extension !== '.js') return null;
  let m: unknown;
  try {
    // A name in a variable: the module exists only once the build wrote it, and the compiler is not to
    // look for it. A constant, as `warm-key.ts` has it: the command line's bundle (`scripts/cli-bundle.mjs`),
    // built after the versions are written, then holds the module once, in the warm entry's chunk,
    // rather than loading a second copy from dist/.
    const name = './code-versions.js'; // BUILT_VERSIONS_MODULE
    m = await import(name);
  } catch {
    // No build script ran (a plain `tsc`): the versions are computed.
    return null;
  }
  const v = obj(obj(m)?.VERSIONS);
  const build = str(v?.build);
  const parsers = obj(v?.parsers);
  if (build === null || parsers === null) return null;
  const recorded = statSync(`${top}index/${BUILT_VERSIONS_MODULE}`, { throwIfNoEntry: false });
  const compiled = statSync(`${top}${STAMPED}`, { throwIfNoEntry: false });
  if (recorded === undefined || compiled === undefined || compiled.mtimeMs > recorded.mtimeMs) return null;
  const out = new Map<string, string>();
  for (const id of PROVIDERS) {
    const p = str(parsers[id]);
    if (p === null) return null;
    out.set(id, p);
  }
  return { parsers: out, build, rules: str(v?.rules) };
}

const built = await builtVersions();
