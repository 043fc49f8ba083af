/**
 * `--token-file PATH`: a token that survives restarts, so a bookmarked link keeps working.
 *
 * The file is the key to every conversation on the machine, so it is created owner-only with
 * O_EXCL (never over something already there), and an existing one is used only if it is a plain
 * file, owned by this user and closed to everyone else. It is opened with O_NOFOLLOW and checked
 * through the open descriptor, so a symlink swapped in between the check and the read is refused.
 *
 * Nothing here may block: opening a FIFO for reading waits for a writer, forever if none comes, and
 * opening a device can act on it. So the path is looked at first (lstat) and only a plain file is
 * opened, with O_NONBLOCK in case something else was swapped in since; the open descriptor must then
 * be that same plain file.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { newToken, TOKEN_SHAPE } from './auth.js';

/** A token file holds one token and a newline; anything larger is not a token file. */
const MAX_TOKEN_FILE_BYTES = 1024;

export class TokenFileError extends Error {}

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

function create(path: string): string {
  const token = newToken();
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return token;
}

const symlink = (path: string) =>
  new TokenFileError(`${path} is a symlink; a token file must be a plain file (remove it to start afresh)`);

/** What `path` is, in words, when it is not a plain file. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a plain file';
}

function readExisting(path: string): string {
  const seen = lstatSync(path);
  if (seen.isSymbolicLink()) throw symlink(path);
  if (!seen.isFile()) throw new TokenFileError(`${path} is not a plain file (${kindOf(seen)})`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw symlink(path);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TokenFileError(`${path} is not a plain file (${kindOf(st)})`);
    if (st.dev !== seen.dev || st.ino !== seen.ino)
      throw new TokenFileError(`${path} was replaced while it was read; try again`);
    const me = uid();
    if (me !== null && st.uid !== me)
      throw new TokenFileError(
        `${path} belongs to user ${st.uid}, not to you (${me}); remove it or pick another path`,
      );
    if ((st.mode & 0o077) !== 0)
      throw new TokenFileError(
        `${path} can be read or written by others (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 ${path}, or remove it for a new token`,
      );
    if (st.size > MAX_TOKEN_FILE_BYTES) throw new TokenFileError(`${path} is too large to be a token file`);
    const buf = Buffer.alloc(MAX_TOKEN_FILE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const token = buf.subarray(0, n).toString('utf8').trim();
    if (!TOKEN_SHAPE.test(token))
      throw new TokenFileError(`${path} does not hold a token (32 or more letters, digits, - or _)`);
    return token;
  } finally {
    closeSync(fd);
  }
}

/** `readExisting`, with any failure said as a token-file error (it vanished, it may not be read). */
function readOrSay(path: string): string {
  try {
    return readExisting(path);
  } catch (err) {
    if (err instanceof TokenFileError) throw err;
    throw new TokenFileError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** The token in `path`, creating the file with a new one when there is none. */
export function tokenFromFile(path: string): { token: string; created: boolean } {
  try {
    return { token: create(path), created: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP') return { token: readOrSay(path), created: false };
    if (err instanceof TokenFileError) throw err;
    throw new TokenFileError(`cannot create ${path}: ${(err as Error).message}`);
  }
}
