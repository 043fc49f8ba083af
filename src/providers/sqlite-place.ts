/**
 * Where a connection to a harness's database reads from, so that reading it creates no file in the
 * agent's folder. It depends on what is beside the database (see `locate`):
 * - A rollback-journal database (header bytes 18 and 19 not 2, no `-wal`) is opened in place: a
 *   read-only connection to one creates nothing.
 * - A WAL database whose `-wal` and `-shm` both exist is opened in place: the agent has it open,
 *   and a reader shares the files the agent made (taking its read mark in the `-shm`, the shared
 *   memory every concurrent reader writes), adding none.
 * - Any other WAL database (the agent is stopped, or crashed and left a `-wal`) is read from a
 *   private copy in cctop's cache (see `privateCopy` in `sqlite-copy.ts`). Opened in place, SQLite
 *   would create the `-wal` and `-shm` beside it, and the bundled better-sqlite3 takes no URI
 *   filenames, so `immutable=1` is not there to stop it. The copy costs a read of the database once
 *   per change (an agent that is not running does not change it) and is a clone on filesystems that
 *   have them.
 *
 * Not here: taking the copy, nor opening anything through SQLite. This only looks, with `stat` and a
 * read of the header bytes.
 *
 * known limit: two narrow cases remain. An agent that exits while cctop holds a connection in place is
 * not the last connection, so it leaves its own `-wal` and `-shm` for its next start instead of
 * checkpointing and removing them. And an agent that exits in the instant between `locate` seeing
 * its `-shm` and the open that follows has them recreated by that open: checking and opening are
 * not one step, and no flag of this build makes them one.
 */
import { type BigIntStats, closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';

/** The database header up to its file format bytes: 18 (write version) and 19 (read version). */
const HEADER_BYTES = 20;

/** Where a connection to a database reads from, and the stamp that says when to open it again. */
export type Place =
  | { kind: 'in-place'; file: string; stamp: string }
  | { kind: 'copy'; file: string; stamp: string; bytes: number; withWal: boolean };

/**
 * Whether `path` can be opened in place without SQLite creating a file beside it. SQLite names the
 * companions after the resolved file, so a database reached through a symbolic link is judged, and
 * copied, where it really is.
 */
export function locate(path: string): Place {
  const file = realpathSync(path);
  const st = statSync(file, { bigint: true });
  const wal = statSync(`${file}-wal`, { bigint: true, throwIfNoEntry: false }) ?? null;
  const shm = statSync(`${file}-shm`, { bigint: true, throwIfNoEntry: false }) ?? null;
  const inPlace: Place = { kind: 'in-place', file, stamp: `in-place:${stampOf(st)}` };
  // The agent has it open: both companions are there to share.
  if (wal !== null && shm !== null) return inPlace;
  // A `-wal` is opened (and its `-shm` created) whatever the header says; without one, a
  // rollback-journal database is read through the database file alone.
  if (wal === null && !walHeader(file)) return inPlace;
  return {
    kind: 'copy',
    file,
    stamp: `copy:${file}:${stampOf(st)}:${wal === null ? '-' : stampOf(wal)}`,
    bytes: Number(st.size) + Number(wal?.size ?? 0n),
    withWal: wal !== null,
  };
}

/**
 * What a file is and when it last changed: device and inode say which file it is, size and times say
 * whether its bytes may have moved. The change time is there because nothing can set it: a tool that
 * restores a file's old modification time after writing it (`cp -p`, rsync, a backup restored in
 * place) still moves it.
 *
 * A connection in place is opened again when this moves, and that is what keeps it honest. SQLite
 * keeps the pages it read and trusts them for as long as the change counter in the database header
 * stands still, and only SQLite's own writes move the counter: a database copied over in place by
 * another program (a backup restored, a sync tool, a file damaged) keeps the inode and, often, the
 * counter, and a kept connection would go on answering from the old pages. A running agent's
 * checkpoints move it too, which costs one open per checkpoint, far fewer than one per read.
 */
const stampOf = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

/**
 * Whether the header says WAL. SQLite opens a WAL on a read version (byte 19) of 2; a write version
 * (byte 18) of 2 is counted too, since copying is always safe and guessing wrong in place is not. A
 * file too short to have a header is not yet a database, and reading it creates nothing.
 */
function walHeader(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) < HEADER_BYTES) return false;
    return head[18] === 2 || head[19] === 2;
  } finally {
    closeSync(fd);
  }
}
