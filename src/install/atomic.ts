/**
 * Replacing a file in one step: the new text goes to a temporary file in the same directory (a rename
 * is atomic only within one file system), is flushed, gets the permissions asked for, and is renamed
 * over the old file. A reader sees the old file or the new one, never a part of either; a crash
 * leaves at worst a stray `.<name>.cctop-*.tmp` beside it.
 *
 * Used for the settings files the installer edits and for cctop's own small cache files (the
 * statusline's digest, its code cache). Not here: backups, or checking what the file held before (`settings-file.ts`).
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

let written = 0;

/**
 * Write `text` (or bytes) to `path` atomically, with permission bits `mode` (null: 0644 less the umask) and,
 * when given, group `gid` (the group of the file it replaces). The temporary name holds the pid and
 * a counter, and is created exclusively: two writers never share one.
 */
export function writeAtomically(
  path: string,
  text: string | Uint8Array,
  mode: number | null,
  gid: number | null = null,
): void {
  const temp = join(dirname(path), `.${basename(path)}.cctop-${process.pid}-${Date.now()}-${written++}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(temp, 'wx', mode ?? 0o644);
    // `openSync` applies the umask; an existing file's own bits are put back exactly.
    if (gid !== null) {
      try {
        // -1 keeps the owner (the user, who owns the file being replaced: `permission.ts`).
        fchownSync(fd, -1, gid);
      } catch {
        // A group the user is not in (EPERM): the file gets the user's group, as any save would.
      }
    }
    // After the chown, which may clear set-id bits.
    if (mode !== null) fchmodSync(fd, mode);
    if (typeof text === 'string') writeSync(fd, text);
    else writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, path);
  } catch (err) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    throw err;
  }
}
