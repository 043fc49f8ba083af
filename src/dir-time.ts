/**
 * A directory's modification time, the one fact the warm answers check a directory by: it moves when
 * an entry is added, removed or renamed. Apart from `providers/fsutil.ts` (which re-exports it) so
 * that the warm answer (`warm-answer.ts`) loads it alone.
 */
import { statSync } from 'node:fs';

/** A directory's modification time, or -1 when it cannot be had (missing, not a directory, unreadable). */
export function dirTime(dir: string): number {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    return st?.isDirectory() ? st.mtimeMs : -1;
  } catch {
    // Unreadable counts as absent: when it becomes readable its time is a change.
    return -1;
  }
}
