/**
 * What installing, removing and reporting an agent's hooks tells the command line: per file cctop
 * touches (an agent may have two: Codex's `notify` in config.toml and its hooks file), which events
 * changed or how they stand. Facts only; `views/cli/hooks.ts` says them.
 */

/** What one install or remove did to one file. */
export interface PartDone {
  /** The file, as the agent names it. */
  file: string;
  /** How messages name it: "Claude Code settings". */
  label: string;
  /** Events whose hook cctop added. */
  added: string[];
  /** Events whose hook ran another cctop (moved, or another install) and now runs this one. */
  repointed: string[];
  /** Events whose hook cctop took out (all, on remove; on install, events it no longer installs). */
  removed: string[];
  /** Whether the file was written (or deleted, on remove, when cctop had made it). */
  wrote: boolean;
  /** The file as it was before the write, kept beside it; null when there was none or no write. */
  backup: string | null;
  /** What the user must know or do: a hook that needs trusting, a setting that turns hooks off. */
  notes: string[];
}

/** How cctop's hooks stand in one file. */
export interface PartStatus {
  file: string;
  label: string;
  exists: boolean;
  /** Events whose hook runs this cctop, as an install now would write it. */
  current: string[];
  /** Events whose hook is cctop's but runs another cctop (moved, or another install). */
  stale: string[];
  /** Events cctop installs that have no hook of cctop's here. */
  missing: string[];
  /** Events with a hook of cctop's that cctop no longer installs (an older version's). */
  extra: string[];
  /** Absolute paths the stale hooks run that are gone (cctop or node moved). */
  gone: string[];
  notes: string[];
  /** Why the file could not be read (it is then reported, not fixed). */
  error: string | null;
}

/** A status with nothing installed, for a file that is not there. */
export const emptyStatus = (file: string, label: string, events: readonly string[]): PartStatus => ({
  file,
  label,
  exists: false,
  current: [],
  stale: [],
  missing: [...events],
  extra: [],
  gone: [],
  notes: [],
  error: null,
});

/** What one file's install or remove did before it did anything. */
export const emptyDone = (file: string, label: string): PartDone => ({
  file,
  label,
  added: [],
  repointed: [],
  removed: [],
  wrote: false,
  backup: null,
  notes: [],
});
