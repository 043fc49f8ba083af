#!/usr/bin/env node
// Part of `npm run build`, after tsc: the command line's code (`dist/views/cli/main.js` and all it
// imports) as a few ES module files in `dist/cli-bundle/`, which `dist/cli.js` imports for every
// command the warm entry does not answer. On Node 20 each module costs its own resolution (a stat per
// candidate path), an asynchronous read, a compile and a link; a `cctop --json --plan retail` loaded
// 125 of them. Here the modules every one-shot reaches (`CORE`: the command line, the warm snapshot,
// the index and its patch) are one chunk; every other `import()` is a chunk of its own, loaded when
// the command asks for it, as before. Only our own modules are held: node's and the packages are
// imported as they are.
//
// What must not change, and how it is kept:
// - One instance of each module. The warm entry (`warm-entry.js`: `warm-answer.js`, `warm-list.js` and
//   what they import) is an entry of the bundle too, and its modules one chunk (`warm`): `cli.js`
//   imports it for a warm answer, and the command line's chunks import the same chunk when the warm
//   document declines, so both share one instance of each (`model/zone.ts` keeps state). A warm answer
//   loads two files instead of two dozen modules.
// - `import.meta.url` names the module's own file in dist/, not the chunk: worker entries, the
//   pty host, createRequire and the files read beside the code are found where they were.
// - An `import()` of a name held in a variable resolves against the chunk's place, not the module's:
//   the build refuses one unless it names its module's URL (`new URL(name, import.meta.url)`).
//
// Not here: choosing the bundle at run time (`cli.ts`, which falls back to the modules without it).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outDir = join(dist, 'cli-bundle');

/**
 * The modules a one-shot (`--json`, `--list`, the reports) imports with `import()` on its way to an
 * answer from the warm snapshot: with everything they import statically, they make the chunk every
 * command line run loads (`core`).
 */
const CORE_ROOTS = [
  'views/cli/main.js',
  'views/cli/root-lists.js', // `--json`, `--list`
  'runtime/run-files.js', // the runs cctop/drive announces, on every list
  'live/annotate.js', // processes matched to sessions
  'runtime/pty-runs.js', // the agents `cctop run` holds
  'live/agent-word.js',
  'live/collisions-once.js',
  'index/warm.js', // the warm snapshot
];

/**
 * What a run imports when the warm snapshot declines (a transcript grew): the index, its patch and
 * its build, with what they import beyond `core`, make a second chunk (`index`), which a run answered
 * from the warm snapshot does not load.
 */
const INDEX_ROOTS = [
  'index/snapshot.js',
  'views/cli/progress.js',
  'providers/load.js', // which harness's reader a changed file needs (each reader is a chunk of its own)
];

/**
 * A module at least this many harnesses' readers import (the line reader, the skim, titles, carried
 * state, the conversation's shape) goes in one chunk (`providers`) rather than in the small chunks
 * rolldown makes of every set of readers that shares one: a patch of one Claude transcript loaded
 * eleven files of the bundle for its reader, each resolved, read, compiled and linked on its own.
 * Four: what Claude's reader shares with three or more others; a module two or three readers share
 * stays with them, so that no reader loads much code it does not run.
 */
const PROVIDER_COMMON = 4;

/**
 * What the warm entry (`warm-entry.js`, which `cli.js` imports on the warm path) re-exports: with what
 * they import, the `warm` chunk, shared with the rest of the bundle.
 */
const WARM_ROOTS = ['warm-answer.js', 'warm-list.js'];

/** A module's relative imports (static ones, and re-exports), as paths under dist/. */
function staticImports(rel) {
  const src = readFileSync(join(dist, rel), 'utf8');
  const out = [];
  for (const m of src.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'|^import\s+'(\.[^']+)'/gms))
    out.push(relative(dist, join(dirname(join(dist, rel)), m[1] ?? m[2])));
  return out;
}

/** `roots` and every module they import statically, not entering `stop`. */
function closure(roots, stop = new Set()) {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel) || stop.has(rel)) return;
    seen.add(rel);
    for (const next of staticImports(rel)) visit(next);
  };
  for (const r of roots) visit(r);
  return seen;
}

// With the build's recorded versions, which the warm entry imports by a name it holds in a variable
// (the module exists only once the build wrote it, just before this script): in the same chunk, so a
// warm answer reads no other file of code.
const warm = new Set([...closure(WARM_ROOTS), 'index/code-versions.js']);
const core = closure(CORE_ROOTS, warm);
const index = closure(INDEX_ROOTS, new Set([...warm, ...core]));

/** The modules `PROVIDER_COMMON` or more of the readers `providers/load.js` imports share, beyond `core` and `index`. */
function providerCommon() {
  const load = readFileSync(join(dist, 'providers', 'load.js'), 'utf8');
  const taken = new Set([...warm, ...core, ...index]);
  const readers = new Map();
  for (const m of load.matchAll(/import\('(\.\/[^']+)'\)/g))
    for (const rel of closure([relative(dist, join(dist, 'providers', m[1]))], taken))
      readers.set(rel, (readers.get(rel) ?? 0) + 1);
  return new Set([...readers].filter(([, n]) => n >= PROVIDER_COMMON).map(([rel]) => rel));
}
const providers = providerCommon();

// A bundle left by an earlier build would run that build's code beside this build's modules: it goes
// first, so that a build that fails below leaves none (cli.js then imports the modules themselves).
rmSync(outDir, { recursive: true, force: true });

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (err) {
  throw new Error(`the command line's bundle needs rolldown (a dev dependency): npm ci (${err.message})`);
}

const bundle = await rolldown({
  input: { main: join(dist, 'views', 'cli', 'main.js'), warm: join(dist, 'warm-entry.js') },
  platform: 'node',
  logLevel: 'silent',
  // node's modules and the packages are imported as they are, from the chunks' place (dist/…/).
  external: (id) => id.startsWith('node:') || !(id.startsWith('.') || id.startsWith('/')),
  plugins: [
    {
      name: 'cctop-cli-bundle',
      transform(code, id) {
        if (!code.includes('import.meta')) return null;
        // The module's own URL, from the chunk's (every chunk sits in dist/cli-bundle/).
        const here = `new URL(${JSON.stringify(`../${relative(dist, id)}`)}, import.meta.url).href`;
        return code.replaceAll('import.meta.url', here);
      },
    },
  ],
});
const { output } = await bundle.write({
  dir: outDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  codeSplitting: {
    groups: [
      { name: 'warm', priority: 3, test: (id) => warm.has(relative(dist, id)) },
      { name: 'core', priority: 2, test: (id) => core.has(relative(dist, id)) },
      { name: 'index', priority: 1, test: (id) => index.has(relative(dist, id)) },
      { name: 'providers', priority: 0, test: (id) => providers.has(relative(dist, id)) },
    ],
  },
});
await bundle.close();

const chunks = output.filter((o) => o.type === 'chunk');

// An `import()` of a module whose code sits in a larger chunk is written by rolldown as an import of
// a file of its own that only re-exports that chunk's names (a facade: `root-lists-….js` is
// `export { t as jsonCommand, n as listCommand } from "./core-….js"`). Each costs node a resolution,
// a read, a compile and a link: 13 of them, about 4 ms, on the route of a `cctop --json` while an
// agent works. So each such `import()` imports the chunk itself and names its members as the facade
// did. A facade's other lines (`import "./x.js"`, for the order modules run in) are passed over only
// where the importing chunk already imports `x.js` itself, directly or through others, so that they
// change nothing: `x.js` has run before any code of the importer can. The members are read once, when the chunk is imported: the build refuses a module that exports a
// binding it could change later (`export let`), which a namespace would follow and a copy would not.
// The facades stay, unused.
for (const c of chunks)
  for (const id of c.moduleIds)
    if (id.startsWith(dist) && /^export (let|var)\b/m.test(readFileSync(id, 'utf8')))
      throw new Error(
        `${relative(dist, id)} exports a binding it may change: the bundle copies members once`,
      );
const byFile = new Map(chunks.map((c) => [c.fileName, c]));
/** The chunks loaded with `c`, before any of its code runs: `c` and what it imports, statically. */
function loadedWith(c) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const next of byFile.get(name)?.imports ?? []) visit(next);
  };
  visit(c.fileName);
  return seen;
}
const facades = [];
for (const c of chunks) {
  if (c.isEntry) continue;
  const f = facadeOf(c.code);
  if (f !== null) facades.push({ from: `import("./${c.fileName}")`, ...f });
}
/** Each chunk's code as written. */
const codeOf = new Map();
for (const c of chunks) {
  let code = c.code;
  const loaded = loadedWith(c);
  for (const f of facades) if (f.before.every((b) => loaded.has(b))) code = code.replaceAll(f.from, f.to);
  codeOf.set(c, code);
  if (code !== c.code) writeFileSync(join(outDir, c.fileName), code);
}

/** Refuses a chunk whose code would name the chunk's place where it meant its module's. */
function checkPlaces(name, code) {
  // Every `import.meta` is one the transform wrote; anything else would name the chunk.
  const metas = code.match(/import\.meta\b/g)?.length ?? 0;
  const ours = code.match(/new URL\("\.\.\/[^"]+", import\.meta\.url\)/g)?.length ?? 0;
  if (metas !== ours) throw new Error(`${name} uses import.meta other than for its module's URL`);
  // An import of a name in a variable resolves against the chunk: only one made a URL is allowed.
  // (Lines of comments aside: they quote `import(` in prose.)
  for (const line of code.split('\n')) {
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
    for (const m of line.matchAll(/\bimport\(\s*(?!["']|new URL\()([^)]*)\)/g))
      throw new Error(`${name} imports ${m[1]}, which would resolve against the chunk`);
  }
}
for (const c of chunks) checkPlaces(`cli-bundle/${c.fileName}`, codeOf.get(c));
/**
 * When this chunk is a facade, what an `import()` of it becomes (`to`: an import of the chunk it
 * re-exports, its members named as the facade names them) and the chunks its other lines import
 * (`before`); null for any other chunk.
 */
function facadeOf(code) {
  const lines = code.split('\n').filter((l) => l.trim() !== '');
  const before = [];
  let reexport = null;
  for (const line of lines) {
    const bare = /^import "\.\/([^"]+)";$/.exec(line);
    if (bare !== null) {
      before.push(bare[1]);
      continue;
    }
    const names = /^export \{ ([^}]+) \} from "\.\/([^"]+)";$/.exec(line);
    if (names === null || reexport !== null) return null;
    reexport = names;
  }
  if (reexport === null) return null;
  const members = [];
  for (const one of reexport[1].split(', ')) {
    const m = /^([\w$]+)(?: as ([\w$]+))?$/.exec(one);
    if (m === null) return null;
    members.push(`${m[2] ?? m[1]}: m.${m[1]}`);
  }
  return { before, to: `import("./${reexport[2]}").then((m) => ({ ${members.join(', ')} }))` };
}

// better-sqlite3's JavaScript, thirteen CommonJS files, as one (`src/sqlite-module.ts` loads it,
// with the package's addon named directly, when the installed version is the one it was made from:
// its name says which). `bindings` stays the package's own: the bundle is used only with the addon
// named, where it is never called.
const sqliteEntry = createRequire(join(root, 'package.json')).resolve('better-sqlite3');
const sqliteVersion = JSON.parse(
  readFileSync(join(dirname(sqliteEntry), '..', 'package.json'), 'utf8'),
).version;
const sqlite = await rolldown({
  input: sqliteEntry,
  platform: 'node',
  logLevel: 'silent',
  external: (id) => id === 'bindings' || id.startsWith('node:') || builtinModules.includes(id),
});
await sqlite.write({ file: join(outDir, `better-sqlite3-${sqliteVersion}.cjs`), format: 'cjs' });
await sqlite.close();

// The scan worker (`index/worker.js`, which `index/pool.ts` starts on each core for a cold read) as one
// file beside it, `dist/index/worker-bundle.js`: a worker is a fresh isolate that loads the readers of
// every harness, 200 modules, each resolved, read, compiled and linked on its own; as one file it
// starts on a third of the CPU time (about 100 ms instead of 300 here, per worker). Beside the module
// rather than in `cli-bundle/`: it shares no instance with the command line (a worker has its own), and
// `import.meta.url` is rewritten as above, which holds for any file one folder below dist/.
const WORKER_BUNDLE = join(dist, 'index', 'worker-bundle.js');
rmSync(WORKER_BUNDLE, { force: true });
const scanWorker = await rolldown({
  input: join(dist, 'index', 'worker.js'),
  platform: 'node',
  logLevel: 'silent',
  external: (id) => id.startsWith('node:') || !(id.startsWith('.') || id.startsWith('/')),
  plugins: [
    {
      name: 'cctop-worker-bundle',
      transform(code, id) {
        if (!code.includes('import.meta')) return null;
        const here = `new URL(${JSON.stringify(`../${relative(dist, id)}`)}, import.meta.url).href`;
        return code.replaceAll('import.meta.url', here);
      },
    },
  ],
});
const workerOut = await scanWorker.generate({ format: 'esm' });
await scanWorker.close();
// One file or none: a second chunk would be imported from the worker's place under a name of its own.
const workerChunks = workerOut.output.filter((o) => o.type === 'chunk');
if (workerChunks.length !== 1)
  throw new Error(
    `the scan worker bundles as ${workerChunks.length} files, not one: see index/worker.ts's imports`,
  );
checkPlaces('index/worker-bundle.js', workerChunks[0].code);
writeFileSync(WORKER_BUNDLE, workerChunks[0].code);

const size = (c) => Buffer.byteLength(codeOf.get(c));
const said = [];
for (const [name, roots] of [
  ['warm', WARM_ROOTS],
  ['core', CORE_ROOTS],
  ['index', INDEX_ROOTS],
]) {
  // The group's chunk, not a chunk of the same name that only re-exports one (the entry `warm.js`,
  // the facade of `index/warm.js`'s dynamic import).
  const chunk = chunks
    .filter((c) => c.name === name)
    .reduce((a, c) => (a === undefined || c.moduleIds.length > a.moduleIds.length ? c : a), undefined);
  const held = new Set(chunk?.moduleIds.map((id) => relative(dist, id)) ?? []);
  for (const rel of roots)
    if (!held.has(rel)) throw new Error(`the bundle's ${name} chunk does not hold ${rel}`);
  said.push(`${name} ${held.size} modules, ${(size(chunk) / 1024).toFixed(0)} KiB`);
}
console.log(
  `dist/cli-bundle/: ${chunks.length} files (and better-sqlite3 ${sqliteVersion}), ${(chunks.reduce((n, c) => n + size(c), 0) / 1024).toFixed(0)} KiB; ${said.join('; ')}; the scan worker ${workerChunks[0].moduleIds.length} modules, ${(Buffer.byteLength(workerChunks[0].code) / 1024).toFixed(0)} KiB`,
);
