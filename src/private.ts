/**
 * cctop's own files that hold transcript text or state (the index, the search index with every word
 * of every conversation, the status line's digest, logs, locks) are the user's alone: directories
 * 0700, files 0600, whatever the umask. Under the usual umask (022) a new directory would be 0755 and
 * a new SQLite file 0644, and any local user could read every prompt and answer through them.
 *
 * A directory or file of ours found wider (made by an older cctop, or by hand) is narrowed when it
 * is opened; one that belongs to another user is left as it is (only its owner may change it) and
 * reported by `privacyOf`, which `cctop doctor` shows.
 *
 * Not here: the runtime directory (`runtime/dir.ts`, which refuses rather than narrows: others could
 * have placed things in it), or files cctop writes where the person asked (`--out`).
 */
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';

/** Only the owner may list, enter or change a directory of cctop's. */
export const PRIVATE_DIR_MODE = 0o700;
/** Only the owner may read or write a file of cctop's. */
export const PRIVATE_FILE_MODE = 0o600;

/** The bits that let someone other than the owner in. */
const OTHERS = 0o077;

const me = (): number | null => (typeof process.geteuid === 'function' ? process.geteuid() : null);

/** What this process narrowed, with the mode each had: `doctor` says it. */
const narrowedHere: { path: string; was: number }[] = [];

/** The directories and files this process found wider than private and narrowed. */
export const narrowed = (): readonly { path: string; was: number }[] => narrowedHere;

/** Narrow `path` to `mode` when it is ours and lets others in. */
function narrow(path: string, st: Stats, mode: number): void {
  const uid = me();
  if (uid === null || st.uid !== uid || (st.mode & OTHERS) === 0) return;
  chmodSync(path, mode);
  narrowedHere.push({ path, was: st.mode & 0o777 });
}

/**
 * Make `dir` (and any missing parents) private to the user, narrowing it when it is ours and wider.
 * Throws what `mkdir` throws (a file in the way, no permission): callers already handle that.
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = lstatSync(dir);
  if (st.isDirectory()) narrow(dir, st, PRIVATE_DIR_MODE);
}

/**
 * Make the file at `path` private: created empty with mode 0600 when missing (so SQLite, which gives
 * its `-wal` and `-shm` files the mode of the database, makes those private too), narrowed when it
 * is ours and wider. The `-wal` and `-shm` beside it, when there, are narrowed too.
 */
export function privateFile(path: string): void {
  try {
    // O_NOFOLLOW: a link placed here is not followed to create or narrow a file elsewhere.
    closeSync(
      openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0),
        PRIVATE_FILE_MODE,
      ),
    );
  } catch (err) {
    // A link, a directory, or no permission: the caller's own open says so in its words.
    if ((err as NodeJS.ErrnoException).code !== undefined) return;
    throw err;
  }
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st?.isFile()) narrow(p, st, PRIVATE_FILE_MODE);
  }
}

/**
 * What `doctor` says of a directory or file of cctop's: `private` when no one else may read it,
 * else who may (the mode), or that it belongs to another user.
 */
export function privacyOf(path: string): { private: boolean; said: string } | null {
  let st: Stats | undefined;
  try {
    st = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    // A part of the path is a file (ENOTDIR) or cannot be entered: doctor's index line says why.
    return null;
  }
  if (st === undefined) return null;
  const mode = octal(st.mode);
  const uid = me();
  if (uid !== null && st.uid !== uid)
    return { private: false, said: `belongs to user ${st.uid} (mode ${mode}); cctop cannot make it private` };
  if ((st.mode & OTHERS) !== 0) return { private: false, said: `readable by others (mode ${mode})` };
  const was = narrowedHere.find((n) => n.path === path);
  return {
    private: true,
    said: `private (mode ${mode}${was ? `; was ${octal(was.was)}, narrowed now` : ''})`,
  };
}

/** Permission bits as `ls` and `chmod` write them: `700`. */
export const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(3, '0');
