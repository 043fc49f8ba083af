/**
 * The tree keeps the shape issue 14 asks for: no source file in `src/` or `web/` much over 400
 * lines, and no module that imports itself back through other modules.
 *
 * A failure is a to-do list: every file over the bound with its line count, and every cycle as the
 * path of imports that closes it. Function length is left to Biome (`noExcessiveLinesPerFunction`),
 * which parses the code; this file reads only line counts and import statements.
 *
 * Test code is not held to the bound: `*.test.ts` files and `test-support/` folders are scenarios and
 * fixtures, whose length follows what they cover.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bound: a file past it does more than one job, or a job too large to read at once. */
const MAX_FILE_LINES = 400;

/** What counts as source: code, and the stylesheet and page the web view is made of. */
const SOURCE = /\.(ts|js|mjs|cjs|css|html)$/;
/** Test code, held to no bound (see the module comment). */
const TEST_CODE = /\.test\.ts$|(^|\/)test-support\//;

/** Every file under `dir`, as paths relative to the repository, in a stable order. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(REPO, path));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

/**
 * The relative modules a file loads when it is evaluated: `import … from`, `export … from` and bare
 * `import '…'` statements. `import type` and `export type` are left out (the compiler erases them,
 * so they load nothing), and so are `import()` calls (they load later, when called). An inline
 * `import { type A }` still counts: under `verbatimModuleSyntax` it is kept as `import {} from`.
 */
const STATEMENT =
  /^(?:import|export)\s+(type\s+)?(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+)\s+from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;

function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    if (m[1] !== undefined) continue;
    const specifier = m[2] ?? m[3]!;
    if (specifier.startsWith('.')) out.push(specifier);
  }
  return out;
}

/** The file a relative specifier names: `./x.js` is `x.ts` in TypeScript sources, else `x.js`. */
function resolveImport(from: string, specifier: string): string | null {
  const target = resolve(REPO, dirname(from), specifier);
  const candidates = specifier.endsWith('.js') ? [target.replace(/\.js$/, '.ts'), target] : [target];
  for (const c of candidates) if (existsSync(c)) return relative(REPO, c);
  // A module served rather than stored (the web page's shared modules), or a JSON file: no edge.
  return null;
}

function importGraph(paths: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of paths) {
    const targets = importsOf(readFileSync(join(REPO, path), 'utf8'))
      .map((s) => resolveImport(path, s))
      .filter((t): t is string => t !== null);
    graph.set(path, [...new Set(targets)]);
  }
  return graph;
}

/** Groups of modules each reachable from every other (Tarjan), those of more than one module. */
function tangles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) out.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** The shortest way back to `start` within its tangle, as the path of imports: `a → b → a`. */
function shortestCycle(graph: Map<string, string[]>, group: readonly string[]): string[] {
  const start = group[0]!;
  const inGroup = new Set(group);
  const came = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(came.get(path[0]!)!);
        return [...path, start];
      }
      if (inGroup.has(w) && !came.has(w)) {
        came.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

describe('the shape of the source tree', () => {
  it(`no source file in src/ or web/ is over ${MAX_FILE_LINES} lines`, () => {
    const over: string[] = [];
    for (const path of [...files(join(REPO, 'src')), ...files(join(REPO, 'web'))]) {
      if (!SOURCE.test(path) || TEST_CODE.test(path)) continue;
      const lines = lineCount(readFileSync(join(REPO, path), 'utf8'));
      if (lines > MAX_FILE_LINES) over.push(`${path}: ${lines} lines`);
    }
    expect(over, `split these by job (each is over ${MAX_FILE_LINES} lines):\n${over.join('\n')}`).toEqual(
      [],
    );
  });

  it('no module imports itself through a cycle', () => {
    const modules = [...files(join(REPO, 'src')), ...files(join(REPO, 'web'))].filter((p) =>
      /\.(ts|js|mjs)$/.test(p),
    );
    const graph = importGraph(modules);
    // A reader that found no imports at all would pass here without having looked.
    expect([...graph.values()].some((targets) => targets.length > 0)).toBe(true);
    const cycles = tangles(graph).map((group) => {
      const path = shortestCycle(graph, group);
      const shown = path.join(' → ');
      // The path repeats its first module at the end; a larger tangle holds more cycles than this one.
      const more = group.length > path.length - 1;
      return more ? `${shown}\n    (one cycle among ${group.length} modules: ${group.join(', ')})` : shown;
    });
    expect(cycles, `break these import cycles:\n${cycles.join('\n')}`).toEqual([]);
  });
});

describe('the shape checks themselves', () => {
  it('read a statement over several lines, and skip type-only and dynamic imports', () => {
    const text = [
      "import { a,\n  b } from './multi.js';",
      "import type { T } from './types-only.js';",
      "export type { U } from './types-only-too.js';",
      "import { type V } from './kept.js';",
      "export * from './all.js';",
      "import './side-effect.js';",
      "const later = await import('./later.js');",
      ' * import { inDoc } from "./comment.js";',
      "import { x } from 'node:fs';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./multi.js', './kept.js', './all.js', './side-effect.js']);
  });

  it('name each cycle by the imports that close it', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    const found = tangles(graph);
    expect(found).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(shortestCycle(graph, found[0]!)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('count lines as wc -l does, and a last line without its newline', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
  });
});
