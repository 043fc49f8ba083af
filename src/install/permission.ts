/**
 * Whether the installer may change a settings file, judged from the file's and its directory's own
 * owner and mode, before anything is written. A person who made `settings.json` read-only (0444),
 * made its directory read-only, or whose file belongs to another user has said "not this file":
 * replacing it by rename would work (a rename needs only the directory), and as root every write
 * would, so the installer asks the mode bits rather than trying. The answer is a refusal naming the
 * reason and the command that lets cctop do it anyway, and nothing is changed.
 *
 * The rules, for the user cctop runs as (root included, who could write anything):
 * - an existing file must be theirs and have its owner-write bit;
 * - the directory it is in (or would be made in) must be writable by them by its bits: theirs with
 *   the owner-write bit, or, for a user other than root, a group or other bit that covers them;
 *   a directory of another user's is refused to root, so a `sudo` never leaves root's files in it.
 *
 * Not here: the write itself (`atomic.ts`, which keeps the mode of the file it replaces). On Windows
 * (no uid) nothing is refused here; the write's own error says why it failed.
 */
import { type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { InstallError } from './settings-file.js';

const me = (): number | null => (typeof process.geteuid === 'function' ? process.geteuid() : null);
const myGroups = (): number[] => (typeof process.getgroups === 'function' ? process.getgroups() : []);

const modeOf = (st: Stats): string => (st.mode & 0o777).toString(8).padStart(3, '0');

/** The nearest directory at or above `dir` that exists (the installer makes the rest). */
function nearestDir(dir: string): { path: string; stat: Stats } | null {
  for (let d = dir; ; d = dirname(d)) {
    const st = statSync(d, { throwIfNoEntry: false });
    if (st !== undefined) return { path: d, stat: st };
    if (dirname(d) === d) return null;
  }
}

/** Whether the bits of `st` let user `uid` write it (root judged as its owner, never by bypass). */
function bitsLetWrite(st: Stats, uid: number): boolean {
  if (st.uid === uid) return (st.mode & 0o200) !== 0;
  if (uid === 0) return false;
  if (myGroups().includes(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

/** What to run once the reason is dealt with: the command the person just ran. */
const again = 'the same cctop command again';

/** Why `real` (the settings file `path` names, through any link) may not be changed, or null when it may. */
export function refusalFor(path: string, real: string): string | null {
  const uid = me();
  if (uid === null) return null;
  const st = statSync(real, { throwIfNoEntry: false });
  if (st !== undefined) {
    if (st.uid !== uid)
      return `${path} belongs to user ${st.uid}, not to you (user ${uid}); cctop changes only your own files, so nothing was changed. Run ${again} as that user`;
    if ((st.mode & 0o200) === 0)
      return `${path} is read-only (mode ${modeOf(st)}), so nothing was changed. To let cctop change it: chmod u+w ${path}, then run ${again}`;
  }
  const dir = nearestDir(dirname(real));
  if (dir !== null && !bitsLetWrite(dir.stat, uid)) {
    if (dir.stat.uid !== uid)
      return `${dir.path} belongs to user ${dir.stat.uid}, not to you (user ${uid}), so nothing was changed. Run ${again} as that user`;
    return `${dir.path} is read-only (mode ${modeOf(dir.stat)}), so nothing was changed. To let cctop write there: chmod u+w ${dir.path}, then run ${again}`;
  }
  return null;
}

/** Throw the refusal for `real`, if any (see `refusalFor`). */
export function assertMayChange(path: string, real: string): void {
  const why = refusalFor(path, real);
  if (why !== null) throw new InstallError(why);
}
