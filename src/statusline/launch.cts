/**
 * How `cctop statusline` runs. Claude Code runs it after every message, and on Node 20 most of what it
 * cost over node's own start was loading its ~20 modules: resolving, reading and compiling each as an
 * ES module, and node's ES module loader itself, which brings ~40 of node's own modules with it (its
 * file reads go through `fs/promises`, which loads the stream machinery). So the build keeps one
 * CommonJS copy of the line's code (`dist/statusline-line.cjs`, made by `scripts/statusline-bundle.mjs`
 * from `main.ts` and what it imports on the common path), and this module, CommonJS itself, runs it as
 * one script with V8's code cache, kept in cctop's cache directory: the next run deserialises the
 * compiled code instead of parsing and compiling it. Node 22's `module.enableCompileCache` does the
 * same for ES modules; Node 20 has nothing like it. The package's `cctop` (`cctop.cts`) comes here
 * without loading an ES module at all; `cli.js statusline` comes through `bin.ts`.
 *
 * The cache is only ever a cache. It is used only when its header names this very build (the copy's
 * first line carries a digest of its text, made by the build), its two copies of V8's data agree
 * (`cacheFileOf` says why), and V8 accepts it (V8 checks its own version, its flags, the source's
 * length and the data's length); anything else, a missing, damaged, foreign or rejected file, costs
 * one compile and is written again, atomically, after the line is printed. Without the copy (a tree
 * built without it), the modules run as they are.
 *
 * Not here: what the line says (`main.ts` and on), or making the copy (the build's script).
 */
import fs = require('node:fs');
import os = require('node:os');
import path = require('node:path');
import url = require('node:url');
import vm = require('node:vm');

/** dist/, where `cli.js` and the copy are: the copy's imports are relative to it. */
const DIST = path.join(__dirname, '..');

/** The build's one-file copy of the line. */
const CODE_PATH = path.join(DIST, 'statusline-line.cjs');

/** The code cache's file in cctop's cache directory. */
const CODE_CACHE_FILE = 'statusline-code.bin';

/** What a code cache file starts with, before the copy's first line (its build digest) and a newline. */
const CACHE_MAGIC = 'cctop statusline code cache 2\n';

/**
 * The largest code cache file read. Ours is twice V8's cache of the line's code, about 140 KiB;
 * anything far beyond that is not one of ours, and is not read into memory to find that out.
 */
const MAX_CODE_CACHE_BYTES = 4 * 1024 * 1024;

/** The mode bits that let someone other than the owner change a file. */
const OTHERS_MAY_WRITE = 0o022;

/** What the copy exports: `main.ts`'s face. */
interface Line {
  runStatusline(argv: readonly string[]): Promise<void>;
}

/**
 * The code cache's bytes when it is a regular file of at most `max` bytes that only this user can
 * have written; null otherwise. V8 runs what a code cache holds: one that another user could have
 * placed or changed (a cache directory set to a shared place, a file left writable) is not read.
 */
function readOwnCache(file: string, max: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    // No cache yet (or no cache directory): the first run compiles and writes one.
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const uid = typeof process.geteuid === 'function' ? process.geteuid() : null;
    if (uid !== null && (st.uid !== uid || (st.mode & OTHERS_MAY_WRITE) !== 0)) return null;
    const b = Buffer.allocUnsafe(st.size);
    let at = 0;
    while (at < b.length) {
      const got = fs.readSync(fd, b, at, b.length - at, at);
      if (got === 0) break;
      at += got;
    }
    return b.subarray(0, at);
  } catch {
    // Unreadable as a whole: as good as absent.
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The V8 data in `file` when its header names the build `key` and its two copies of the data agree;
 * null for anything else.
 */
function cachedDataFor(file: Buffer | null, key: string): Buffer | null {
  if (file === null) return null;
  const header = Buffer.from(`${CACHE_MAGIC}${key}\n`);
  if (file.length <= header.length || !file.subarray(0, header.length).equals(header)) return null;
  const body = file.subarray(header.length);
  if (body.length % 2 !== 0) return null;
  const data = body.subarray(0, body.length / 2);
  return data.equals(body.subarray(body.length / 2)) ? data : null;
}

/**
 * A code cache file for build `key` holding V8's `data`, twice. V8 checks its own version and flags
 * and the data's length, but not the data itself (its checksum is for debug builds): a cache damaged
 * on disk was once a crash on every run ("Fatal error … unreachable code"). A second copy compared
 * byte for byte catches that for the cost of reading 100 KiB more; a hash would need `crypto`, `zlib`
 * or `v8`, each of which loads node's stream machinery (about 4 ms), and one computed here takes 1-2 ms.
 */
function cacheFileOf(key: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${CACHE_MAGIC}${key}\n`), data, data]);
}

/** Only node's own modules are left outside the copy (the build checks it); nothing else is lent. */
function builtin(id: string): unknown {
  const m = id.startsWith('node:') ? process.getBuiltinModule(id) : undefined;
  if (m === undefined) throw new Error(`statusline-line.cjs asked for ${id}, which is not a node module`);
  return m;
}

/** Whether `v` has `main.ts`'s face. */
function isLine(v: unknown): v is Line {
  return typeof v === 'object' && v !== null && typeof Reflect.get(v, 'runStatusline') === 'function';
}

/**
 * cctop's cache directory: `paths.ts`'s `cacheDir`, which this CommonJS module cannot import (node 20
 * cannot `require` an ES module, and importing it would load the ES module loader this avoids). The
 * same rule, kept equal to it by `launch.test.ts`.
 */
function cacheDirOf(env: NodeJS.ProcessEnv): string {
  if (env.CCTOP_CACHE_DIR) return env.CCTOP_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'cctop');
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
  return os.platform() === 'darwin'
    ? path.join(home, 'Library', 'Caches', 'cctop')
    : path.join(home, '.cache', 'cctop');
}

/** Run `cctop statusline …` with `argv` (the words after the program). */
async function runLine(argv: readonly string[]): Promise<void> {
  let source: string;
  try {
    source = fs.readFileSync(CODE_PATH, 'utf8');
  } catch {
    // A tree built without the copy: the same code, as modules.
    await (await import('./main.js')).runStatusline(argv);
    return;
  }
  const key = source.slice(0, source.indexOf('\n'));
  const dir = cacheDirOf(process.env);
  const cachePath = path.join(dir, CODE_CACHE_FILE);
  const cachedData = cachedDataFor(readOwnCache(cachePath, MAX_CODE_CACHE_BYTES), key) ?? undefined;
  // CommonJS's own wrapper, so that the copy reads `require` and `module` as it would under node, and
  // `__import`, which the build put where the copy imports a module it leaves out (the parser of rarer
  // arguments, the refresh): imported from here, by node's own loader, as `main.ts` would.
  const script = new vm.Script(`(function (exports, require, module, __import) {${source}\n})`, {
    filename: CODE_PATH,
    cachedData,
  });
  const wrapper: unknown = script.runInThisContext();
  const module: { exports: unknown } = { exports: {} };
  if (typeof wrapper !== 'function') throw new Error('statusline-line.cjs is not a script of the build');
  const fromDist = (spec: string): Promise<unknown> => import(url.pathToFileURL(path.join(DIST, spec)).href);
  wrapper.call(module.exports, module.exports, builtin, module, fromDist);
  const line = module.exports;
  if (!isLine(line)) throw new Error('statusline-line.cjs does not export runStatusline');
  await line.runStatusline(argv);
  // After the line is written: the cache costs the line nothing. Made now, after the run, it holds
  // the functions the run compiled too, not only the top level.
  if (cachedData === undefined || script.cachedDataRejected === true) {
    try {
      const { writeAtomically } = await import('../install/atomic.js');
      // As cctop makes its directories (`private.ts`): the owner's alone.
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeAtomically(cachePath, cacheFileOf(key, script.createCachedData()), 0o600);
    } catch {
      // A read-only or full cache directory: every run compiles, as it did before there was a cache.
    }
  }
}

export = { runLine, cacheDirOf };
