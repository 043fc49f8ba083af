/**
 * Finding a file's repository: the nearest `.git` above it, a directory or (a worktree, a submodule)
 * a file, over real folders in a temporary directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { MAX_REPO_DEPTH, REPO_ROOT_TTL_MS, RepoRoots } from './repo-root.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

/** A folder with a `.git` directory in it, as `git init` leaves it. */
function repo(...parts: string[]): string {
  const root = join(dir, ...parts);
  mkdirSync(join(root, '.git'), { recursive: true });
  return root;
}

/** A folder with the `.git` file `git worktree add` writes. */
function worktree(...parts: string[]): string {
  const root = join(dir, ...parts);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, '.git'), `gitdir: ${join(dir, 'app', '.git', 'worktrees', parts.at(-1)!)}\n`);
  return root;
}

describe('the repository of a file', () => {
  it('is the nearest folder above it holding .git, however deep the file is', () => {
    const root = repo('app');
    const roots = new RepoRoots();
    expect(roots.of(join(root, 'src', 'views', 'deep', 'file.ts'))).toBe(root);
    expect(roots.of(join(root, 'README.md'))).toBe(root);
  });

  it('is each worktree for its own files: a .git file makes a repository of its own', () => {
    const main = repo('app');
    const wt = worktree('app-fix');
    const inside = worktree('app', 'wt', 'feature');
    const roots = new RepoRoots();
    expect(roots.of(join(main, 'src', 'a.ts'))).toBe(main);
    expect(roots.of(join(wt, 'src', 'a.ts'))).toBe(wt);
    expect(roots.of(join(inside, 'src', 'a.ts'))).toBe(inside);
  });

  it('is the inner repository for a file of a nested one, and the outer for the rest', () => {
    const outer = repo('mono');
    const inner = repo('mono', 'vendor', 'lib');
    const roots = new RepoRoots();
    expect(roots.of(join(inner, 'index.ts'))).toBe(inner);
    expect(roots.of(join(outer, 'vendor', 'other.ts'))).toBe(outer);
  });

  it('is none for a file outside any repository, or a path no file system takes', () => {
    const roots = new RepoRoots();
    mkdirSync(join(dir, 'loose'));
    expect(roots.of(join(dir, 'loose', 'notes.ts'))).toBeNull();
    expect(roots.of(`${join(dir, 'loose')}/a\u0000b.ts`)).toBeNull();
    expect(roots.of(`/${'x/'.repeat(5000)}f.ts`)).toBeNull();
  });

  it(`gives up after ${MAX_REPO_DEPTH} folders rather than walking a made-up path to the root`, () => {
    const root = repo('deep');
    const far = join(root, ...Array.from({ length: MAX_REPO_DEPTH + 5 }, (_, i) => `d${i}`), 'f.ts');
    expect(new RepoRoots().of(far)).toBeNull();
    const near = join(root, ...Array.from({ length: MAX_REPO_DEPTH - 2 }, (_, i) => `d${i}`), 'f.ts');
    expect(new RepoRoots().of(near)).toBe(root);
  });

  it('is remembered for a while, and a repository created meanwhile is found once that while is over', () => {
    let now = 1_000_000;
    const roots = new RepoRoots(() => now);
    const file = join(dir, 'later', 'src', 'a.ts');
    expect(roots.of(file)).toBeNull();
    const root = repo('later');
    expect(roots.of(file)).toBeNull();
    now += REPO_ROOT_TTL_MS;
    expect(roots.of(file)).toBe(root);
  });
});
