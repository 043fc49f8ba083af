import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_LIST } from '../../providers/index.js';
import { Assets, HARNESS_MODULE, harnessModule, SHARED_MODULES } from './assets.js';

const dec = new TextDecoder();

/** A package root with a page and the shared modules as `files` says. */
function packageWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cctop-assets-'));
  mkdirSync(join(root, 'web'));
  writeFileSync(join(root, 'web', 'index.html'), '<!doctype html>');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const selfContained = Object.fromEntries(
  Object.values(SHARED_MODULES).map((p) => [p, 'export const x = 1;\n']),
);

describe("the page's assets", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  it('the harness names the page shows are every provider of the provider table, with its label', async () => {
    const url = `data:text/javascript,${encodeURIComponent(harnessModule())}`;
    const { HARNESS } = (await import(url)) as { HARNESS: Record<string, string> };
    expect(HARNESS).toEqual(Object.fromEntries(PROVIDER_LIST.map((p) => [p.id, p.label])));
    expect(HARNESS.devin).toBe(PROVIDER_LIST.find((p) => p.id === 'devin')!.label);
    expect(Object.isFrozen(HARNESS)).toBe(true);
  });

  it('the built modules the page shares load in a bare module context: they import nothing', async () => {
    // The real build, as `cctop serve` reads it (npm run build comes first).
    const assets = new Assets();
    for (const name of [...Object.keys(SHARED_MODULES), HARNESS_MODULE]) {
      const a = assets.get(name)!;
      expect(a.type).toBe('text/javascript; charset=utf-8');
      await import(`data:text/javascript,${encodeURIComponent(dec.decode(a.body))}`);
    }
  });

  it('a shared module that imports another is refused at start, saying why', () => {
    const root = packageWith({ ...selfContained, 'dist/views/format.js': "import { x } from './x.js';\n" });
    roots.push(root);
    expect(() => new Assets(join(root, 'web'), root)).toThrow(
      /imports another module, which the page cannot load/,
    );
  });

  it('a missing shared module is refused at start with the fix', () => {
    const root = packageWith({});
    roots.push(root);
    expect(() => new Assets(join(root, 'web'), root)).toThrow(
      /is missing .*run npm run build, or reinstall cctop/,
    );
  });

  it('only names in the table are served: no path reaches the file system', () => {
    const root = packageWith(selfContained);
    roots.push(root);
    const assets = new Assets(join(root, 'web'), root);
    expect(assets.get('shared-format.js')).toBeDefined();
    for (const name of ['../package.json', 'views/format.js', 'format.d.ts', 'shared-format.d.ts', 'nope.js'])
      expect(assets.get(name), name).toBeUndefined();
  });
});
