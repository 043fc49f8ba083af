/**
 * Opening a file that a person, a config or an agent names (the config file, a token file, a
 * transcript a hook or the status line names, an agent's settings file), so that whatever sits at
 * that path cannot make cctop wait. `open` on a named pipe waits for a writer, and `read` on one
 * waits for data: a FIFO at the config path once froze `--list`, `daily` and a running `serve`
 * for good. Here the open is non-blocking (`O_NONBLOCK` returns at once for a FIFO, a device or a
 * socket), the open descriptor is checked with `fstat` to be a regular file before a byte is read
 * (checking the path first would leave a gap for a swap), and a read is bounded in bytes.
 *
 * A regular file's read returns what is on the disk, so with these checks every read here ends.
 *
 * Not here: deciding what to do when the path is not a file (each caller says it in its own
 * words, from `what`), or files cctop makes itself in its own private directory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { describeFsError } from './model/problems.js';

/**
 * Read-only, non-blocking. Windows has no `O_NONBLOCK` (and no FIFOs in the file system to fear).
 */
const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The most of an agent's settings file read to learn one setting from it (a pinned model, a
 * compaction threshold). Such files are a few KiB; a long permission list reaches a few hundred.
 * 4 MiB is the bound the installer keeps for the same files (`install/settings-file.ts`).
 */
export const MAX_SETTINGS_READ_BYTES = 4 * 1024 * 1024;

/** What sits at a path that is not a regular file, in words for a message. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a plain file';
}

export type Opened =
  /** An open descriptor on a regular file; the caller closes it. */
  | { kind: 'file'; fd: number; stat: Stats }
  /** Nothing there (or a parent is a file, so nothing can be). */
  | { kind: 'missing' }
  /** Something that is not a regular file: `what` says what (`a named pipe`). */
  | { kind: 'not-file'; what: string }
  /** The open failed for another reason: `reason` is the error in words (`permission denied`). */
  | { kind: 'failed'; reason: string; code: string | null };

/** Open `path` for reading without waiting, and only when it is a regular file. */
export function openRegular(path: string, extraFlags = 0): Opened {
  let fd: number;
  try {
    fd = openSync(path, OPEN_READ | extraFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? null;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    // Opening a directory read-only succeeds on Linux but is EISDIR elsewhere.
    if (code === 'EISDIR') return { kind: 'not-file', what: 'a directory' };
    // A socket cannot be opened at all (ENXIO): it is not a file either.
    if (code === 'ENXIO') return { kind: 'not-file', what: 'a socket' };
    return { kind: 'failed', reason: describeFsError(err), code };
  }
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    return {
      kind: 'failed',
      reason: describeFsError(err),
      code: (err as NodeJS.ErrnoException).code ?? null,
    };
  }
  if (!stat.isFile()) {
    closeSync(fd);
    return { kind: 'not-file', what: kindOf(stat) };
  }
  return { kind: 'file', fd, stat };
}

export type ReadRegular =
  | { kind: 'read'; bytes: Buffer; stat: Stats }
  | { kind: 'missing' }
  | { kind: 'not-file'; what: string }
  /** Larger than the caller's bound: `size` is what `fstat` said. */
  | { kind: 'too-large'; size: number }
  | { kind: 'failed'; reason: string; code: string | null };

/**
 * The whole of a regular file of at most `maxBytes`, read from the descriptor that was checked. A
 * file that grows past the bound while it is read is `too-large` too (one byte more is read to tell).
 */
export function readRegular(path: string, maxBytes: number): ReadRegular {
  const opened = openRegular(path);
  if (opened.kind !== 'file') return opened;
  const { fd, stat } = opened;
  try {
    if (stat.size > maxBytes) return { kind: 'too-large', size: stat.size };
    // Sized by `fstat`, grown when the file grew since, never past one byte over the bound.
    let buf = Buffer.alloc(Math.min(maxBytes, stat.size) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (buf.length > maxBytes) break;
        const bigger = Buffer.alloc(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) return { kind: 'too-large', size: n };
    return { kind: 'read', bytes: buf.subarray(0, n), stat };
  } catch (err) {
    return {
      kind: 'failed',
      reason: describeFsError(err),
      code: (err as NodeJS.ErrnoException).code ?? null,
    };
  } finally {
    closeSync(fd);
  }
}

/** `readRegular` as UTF-8 text (invalid bytes become U+FFFD, as `readFileSync(…, 'utf8')` does). */
export function readRegularText(
  path: string,
  maxBytes: number,
): Exclude<ReadRegular, { kind: 'read' }> | { kind: 'read'; text: string; stat: Stats } {
  const r = readRegular(path, maxBytes);
  return r.kind === 'read' ? { kind: 'read', text: r.bytes.toString('utf8'), stat: r.stat } : r;
}
