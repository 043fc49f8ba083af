/**
 * Which repository a file is in: the nearest folder above it that holds a `.git` directory, or a
 * `.git` file (a worktree or a submodule, each its own repository: two worktrees of one project are
 * two checkouts, and agents in each do not overwrite each other's files). A file outside any
 * repository has no root.
 *
 * Answers are cached per folder, bounded in number and in age: a `git init` or a new worktree is seen
 * within `REPO_ROOT_TTL_MS`.
 *
 * Not here: reading git itself (which branch, which worktree list), or resolving symlinks: a path is
 * taken as the agent wrote it, made absolute. known limit: two agents writing one file through two
 * different symlinked paths are not seen as one file.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Folders walked up from a file before giving up. Real trees are a dozen deep; a path an agent made
 * up (hostile or broken) could be thousands, each a `stat`.
 */
export const MAX_REPO_DEPTH = 64;

/** Longer paths are not looked up: no file system takes them (Linux's PATH_MAX is 4096 bytes). */
export const MAX_PATH_CHARS = 4096;

/**
 * Folders remembered. Agents write in a few hundred folders a day; past this the oldest answers go
 * first, and one is only a `stat` or a few to find again.
 */
export const MAX_CACHED_DIRS = 4096;

/** How long a folder's answer holds: a repository created meanwhile is found within a minute. */
export const REPO_ROOT_TTL_MS = 60_000;

interface Known {
  root: string | null;
  at: number;
}

export class RepoRoots {
  private readonly known = new Map<string, Known>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The repository root of an absolute, normalised file path; null outside any repository. */
  of(path: string): string | null {
    if (path.length > MAX_PATH_CHARS || path.includes('\u0000')) return null;
    return this.folder(dirname(path));
  }

  private folder(start: string): string | null {
    const now = this.now();
    const walked: string[] = [];
    let dir = start;
    let root: string | null = null;
    for (let depth = 0; depth < MAX_REPO_DEPTH; depth++) {
      const known = this.known.get(dir);
      if (known !== undefined && now - known.at < REPO_ROOT_TTL_MS) {
        root = known.root;
        break;
      }
      walked.push(dir);
      if (holdsGit(dir)) {
        root = dir;
        break;
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    for (const d of walked) this.remember(d, { root, at: now });
    return root;
  }

  private remember(dir: string, k: Known): void {
    this.known.delete(dir);
    this.known.set(dir, k);
    if (this.known.size > MAX_CACHED_DIRS) this.known.delete(this.known.keys().next().value!);
  }
}

/** Whether the folder holds `.git`: a directory, or the file a worktree or submodule has instead. */
function holdsGit(dir: string): boolean {
  try {
    const st = statSync(join(dir, '.git'), { throwIfNoEntry: false });
    return st !== undefined && (st.isDirectory() || st.isFile());
  } catch {
    // A folder we may not enter, a name too long: no repository we can see.
    return false;
  }
}
