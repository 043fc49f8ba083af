/**
 * A collision: two sessions that a live process runs have lately written in the same repository.
 * Two agents editing one file is how one destroys the other's work; two agents in one repository
 * without a shared file is worth knowing, but less. This is the shape the session document carries
 * (`collisions`), the views draw and a notification takes.
 *
 * Not here: the rule that finds them (`live/collisions.ts`) or where they are read from
 * (`live/collision-watch.ts`, `live/collisions-once.ts`).
 */
import type { ProviderId } from './facts.js';

/** `file`: two sessions wrote the same file; `repo`: two wrote in the same repository, no file shared. */
export type CollisionLevel = 'file' | 'repo';

/** One session of a collision, and what it wrote. */
export interface CollisionWriter {
  provider: ProviderId;
  id: string;
  /** As the session's document has it. */
  title: string | null;
  project: string | null;
  /** When it last wrote the file (`file` level) or anything in the repository (`repo` level), ISO. */
  wroteAt: string;
  /**
   * Absolute paths it wrote in the repository within the window, newest first: the one file at the
   * `file` level; at the `repo` level a few (`MAX_PATHS_SHOWN` in `live/collisions.ts`).
   */
  paths: string[];
}

export interface Collision {
  /**
   * Names the collision for as long as it lasts, so it is told once: `file:<path>` or
   * `repo:<repository root>`. Which sessions are in it does not change it.
   */
  key: string;
  level: CollisionLevel;
  /** The repository: the folder holding the `.git` directory (or, for a worktree, `.git` file). */
  repoRoot: string;
  /** The file both wrote (`file` level); null at the `repo` level. */
  path: string | null;
  /** Two or more, the newest writer first. */
  sessions: CollisionWriter[];
}

/** The collision key of a file, or of a repository with no shared file. */
export const collisionKey = (level: CollisionLevel, repoRoot: string, path: string | null): string =>
  level === 'file' ? `file:${path ?? ''}` : `repo:${repoRoot}`;
