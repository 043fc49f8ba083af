/**
 * Whether what a warm answer was made from has moved since: the directories discovery listed (an
 * entry added, removed or renamed moves a directory's time) and the transcripts recent enough to be
 * growing. One check for both warm answers, the snapshot (`warm.ts`) and the document
 * (`../warm-answer.ts`), loaded by the document's small route too: it reads only the file system.
 *
 * Not here: what the answers keep of those directories and files (`warm-layout.ts`,
 * `warm-doc-layout.ts`), or the sweep that looks everywhere once a minute.
 */
import { statSync } from 'node:fs';
import { dirTime } from '../dir-time.js';
import { GROWING_MS } from './warm-doc-layout.js';

/**
 * What changed among `dirs` (path, mtime) and the growing `files` (path, size, mtime, inode), or null.
 * The growing transcripts are looked at first: they are few, and while an agent writes, one of them
 * is what moved, found then without a stat of every directory (322 on the bench's history, twice a
 * run: the document's proof, then the snapshot's).
 */
export function seenMoved(
  dirs: readonly (readonly [string, number])[],
  files: readonly (readonly [string, number, number, number])[],
  nowMs: number,
): string | null {
  return grownFile(files, nowMs) ?? movedDir(dirs);
}

function movedDir(dirs: readonly (readonly [string, number])[]): string | null {
  for (const [dir, mtime] of dirs) if (dirTime(dir) !== mtime) return `${dir} changed`;
  return null;
}

function grownFile(
  files: readonly (readonly [string, number, number, number])[],
  nowMs: number,
): string | null {
  for (const [path, size, mtimeMs, ino] of files) {
    if (nowMs - mtimeMs > GROWING_MS) continue;
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      // Unreadable now: the full route, which answers instead, says why.
      return `${path} cannot be read`;
    }
    if (st === undefined || st.size !== size || st.mtimeMs !== mtimeMs || st.ino !== ino)
      return `${path} changed`;
  }
  return null;
}
