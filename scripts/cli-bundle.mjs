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
import { readFileSync, rmSync } from 'node:fs';
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
    ],
  },
});
await bundle.close();

const chunks = output.filter((o) => o.type === 'chunk');
for (const c of chunks) {
  // Every `import.meta` is one the transform wrote; anything else would name the chunk.
  const metas = c.code.match(/import\.meta\b/g)?.length ?? 0;
  const ours = c.code.match(/new URL\("\.\.\/[^"]+", import\.meta\.url\)/g)?.length ?? 0;
  if (metas !== ours)
    throw new Error(`cli-bundle/${c.fileName} uses import.meta other than for its module's URL`);
  // An import of a name in a variable resolves against the chunk: only one made a URL is allowed.
  // (Lines of comments aside: they quote `import(` in prose.)
  for (const line of c.code.split('\n')) {
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
    for (const m of line.matchAll(/\bimport\(\s*(?!["']|new URL\()([^)]*)\)/g))
      throw new Error(`cli-bundle/${c.fileName} imports ${m[1]}, which would resolve against the chunk`);
  }
}
const size = (c) => Buffer.byteLength(c.code);
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
  `dist/cli-bundle/: ${chunks.length} files, ${(chunks.reduce((n, c) => n + size(c), 0) / 1024).toFixed(0)} KiB; ${said.join('; ')}`,
);
