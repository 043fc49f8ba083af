/**
 * Driven runs as files in the runtime directory, for the commands that do not stay: `cctop --list`
 * and `cctop --json` have no socket a driver could find, so each driver also keeps its run's snapshot
 * in `runs/<run id>.json` beside the sockets (written when it sends one, touched while it lives,
 * removed at the end), and a one-shot reads them in one look at the directory.
 *
 * A file is believed only while its driver's pid runs and it was touched lately: a driver killed
 * mid-run leaves its file, which the next reader drops and removes, and a run whose pid the kernel
 * gave to another program is not believed once its file is older than `RUN_FILE_FRESH_MS`. Every
 * byte of a file came from another process: it is read within a bound and narrowed by the
 * protocol's own reader (`readRunSnapshot`), as a socket line is.
 *
 * Not here: the sockets the live views follow runs on (`peers.ts`, `drive/announce.ts`), or what a
 * view does with a run (`live/driven-doc.ts`).
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pidRuns } from '../pid.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from './dir.js';
import { type RunSnapshot, readRunSnapshot } from './runs.js';

/** The folder of run files in the runtime directory. */
export const RUNS_FOLDER = 'runs';

/**
 * How old a run file may be and still be believed. Its driver touches it every
 * `ANNOUNCE_RESCAN_MS` (1 s) while its event loop runs; a program that blocks it (synchronous work, a
 * loaded machine: the lab saw a test's driver blocked over 5 s while it ran cctop) keeps its run
 * shown for this long, and a pid the kernel gave to another program after the driver died is not
 * believed past it.
 */
export const RUN_FILE_FRESH_MS = 30_000;

/**
 * The largest run file read: a snapshot is sent as one protocol line, which is at most
 * `MAX_MESSAGE_BYTES` (64 KiB, `protocol.ts`; not imported, so a one-shot that finds no run loads
 * none of the protocol), and its file holds the same JSON.
 */
export const MAX_RUN_FILE_BYTES = 64 * 1024;

/**
 * Run files looked at per read: as many as a cctop follows (`MAX_DRIVEN_RUNS`, 64), so a directory
 * someone filled with thousands of names costs a bounded read.
 */
export const MAX_RUN_FILES = 64;

/** A run id as drivers make them (a random UUID): anything else in the folder is not a run file. */
const RUN_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/;

const folderOf = (dir: string): string => join(dir, RUNS_FOLDER);

/** Write (or replace) a run's file: whole or not at all (a temporary file renamed into place). */
export function writeRunFile(dir: string, snapshot: RunSnapshot): void {
  const folder = folderOf(dir);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${snapshot.id}.json`);
  const scratch = `${path}.${process.pid}.tmp`;
  writeFileSync(scratch, JSON.stringify(snapshot), { mode: 0o600 });
  renameSync(scratch, path);
}

/** Say the run still lives, without rewriting it. */
export function touchRunFile(dir: string, id: string): void {
  const now = new Date();
  utimesSync(join(folderOf(dir), `${id}.json`), now, now);
}

export function removeRunFile(dir: string, id: string): void {
  rmSync(join(folderOf(dir), `${id}.json`), { force: true });
}

/** One file's bytes, up to the bound, and its age; null when it is gone or past the bound. */
function readBounded(path: string, nowMs: number): { text: string; ageMs: number } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Removed between the listing and the open: its run has ended.
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_RUN_FILE_BYTES) return null;
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return { text: buf.toString('utf8', 0, n), ageMs: nowMs - st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * The runs drivers have announced and still drive, oldest first; [] when there are none or the
 * runtime directory is refused. Ended runs are left out: their sessions are ordinary ones again.
 */
export function announcedRuns(env: Env, nowMs: number = Date.now()): RunSnapshot[] {
  const dir = runtimeDir(env);
  if (dir.kind === 'refused') return [];
  const folder = folderOf(dir.path);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    // No driver has written a run here (the folder is made by the first).
    return [];
  }
  const runs: RunSnapshot[] = [];
  for (const name of names.slice(0, MAX_RUN_FILES)) {
    const m = RUN_FILE.exec(name);
    if (m === null) continue;
    const path = join(folder, name);
    const read = readBounded(path, nowMs);
    if (read === null) continue;
    let run: RunSnapshot | null = null;
    try {
      run = readRunSnapshot(JSON.parse(read.text));
    } catch {
      // Not JSON: a file no driver wrote whole (writes are renamed into place), so not a run.
    }
    if (run === null || run.id !== m[1]) continue;
    if (!pidRuns(run.pid)) {
      // Its driver is gone (killed before it could remove the file): nobody else will remove it.
      rmSync(path, { force: true });
      continue;
    }
    // Not touched for a while: a driver blocked (it touches it again, or ends and removes it), or a
    // reused pid (its file is removed once that program ends too).
    if (read.ageMs > RUN_FILE_FRESH_MS) continue;
    if (run.phase !== 'ended') runs.push(run);
  }
  return runs.sort((a, b) => a.startedAtMs - b.startedAtMs || a.id.localeCompare(b.id));
}
