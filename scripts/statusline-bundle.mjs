#!/usr/bin/env node
// Part of `npm run build`, after tsc: one CommonJS copy of the status line's code,
// `dist/statusline-line.cjs`, which `dist/statusline/bin.js` runs with V8's code cache (see there for
// why). It holds `dist/statusline/main.js`, everything that imports statically, and the few modules
// the line imports on every run (KEPT); every other `import()` stays a real import of the module in
// dist/ (the argument parser, the refresh, the installer), so the copy holds only what a line runs;
// the launcher lends the function that imports them (`__import`).
//
// Its first line names the build: a digest of the rest of its text. The code cache is kept under
// that name, so a cache made by another build is never used.
//
// Not here: running the copy or keeping its cache (src/statusline/bin.ts).
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'statusline-line.cjs');

/** The modules the line imports with `import()` on the common path: kept in the copy. */
const KEPT = [
  'providers/claude/statusline-tail.js', // the `fast` mark: read on every line
  'statusline/quota-note.js', // every line that carries rate limits (Claude Code 2.1.80+)
];

// A copy left by an earlier build would run that build's code beside this build's modules: it goes
// first, so that a build that fails below leaves none (the line then runs the modules themselves).
rmSync(out, { force: true });

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (err) {
  throw new Error(`the status line's bundle needs rolldown (a dev dependency): npm ci (${err.message})`);
}

const bundle = await rolldown({
  input: join(dist, 'statusline', 'main.js'),
  platform: 'node',
  logLevel: 'warn',
  external: (id) => id.startsWith('node:'),
  plugins: [
    {
      name: 'cctop-statusline-dynamic',
      resolveDynamicImport(source, importer) {
        if (typeof source !== 'string' || importer === undefined) return null;
        const target = join(dirname(importer), source);
        const rel = relative(dist, target);
        if (KEPT.includes(rel)) return null;
        // Left to node's loader, from the copy's place (dist/), as the module in dist/ would be.
        return { id: `./${rel}`, external: true };
      },
    },
  ],
});
const { output } = await bundle.generate({ format: 'cjs', codeSplitting: false });
await bundle.close();
const chunk = output.find((o) => o.type === 'chunk');
if (chunk === undefined || output.length !== 1) throw new Error('the status line bundle is not one file');
// A script has no `import()` of its own without an experimental flag of node's `vm`: the modules left
// out are imported by a function the launcher lends (`__import`, relative to dist/ as here).
const code = chunk.code.replace(/\bimport\((["'])(\.\/[^"']+)\1\)/g, '__import($1$2$1)');
if (/\bimport\(/.test(code))
  throw new Error('statusline-line.cjs has an import() the launcher does not serve');

// The copy runs as a script with only node's modules to `require`; anything else would fail there.
for (const m of code.matchAll(/\brequire\(\s*(["'])([^"']*)\1\s*\)/g))
  if (!m[2].startsWith('node:')) throw new Error(`statusline-line.cjs requires ${m[2]}, not a node module`);
if (/\bimport\.meta\b/.test(code))
  throw new Error('statusline-line.cjs uses import.meta, which a script has not');
// Rolldown opens each module it holds with a comment naming its file.
const held = new Set([...code.matchAll(/^\/\/ (\S+)$/gm)].map((m) => relative(dist, join(root, m[1]))));
for (const rel of [...KEPT, 'statusline/main.js'])
  if (!held.has(rel)) throw new Error(`statusline-line.cjs does not hold ${rel}`);

const digest = createHash('sha256').update(code).digest('hex').slice(0, 32);
writeFileSync(out, `// cctop statusline-line ${digest}\n${code}`);
const size = readFileSync(out).length;
console.log(`dist/statusline-line.cjs: ${(size / 1024).toFixed(0)} KiB, build ${digest}`);
