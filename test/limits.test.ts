/**
 * Every bound is documented: each exported `MAX_` constant in `src/` has a row in `docs/limits.md`
 * saying what it protects and what happens past it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../src/test-support/corpus.js';

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) yield path;
  }
}

describe('docs/limits.md', () => {
  it('names every exported bound in the source', () => {
    const doc = readFileSync(join(REPO, 'docs', 'limits.md'), 'utf8');
    const missing: string[] = [];
    for (const path of sources(join(REPO, 'src'))) {
      for (const m of readFileSync(path, 'utf8').matchAll(/^export const (MAX_[A-Z0-9_]+)/gm))
        if (!doc.includes(`\`${m[1]}\``)) missing.push(`${m[1]} (${relative(REPO, path)})`);
    }
    expect(missing).toEqual([]);
  });
});
