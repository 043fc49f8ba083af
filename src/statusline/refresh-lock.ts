/**
 * At most one background refresh at a time, however many status lines run at once (Claude Code runs
 * one per session after every message, and a user may have ten sessions open). A lock file in cctop's
 * cache, created exclusively (`O_EXCL`), says who refreshes: `{ pid, token, atMs }`. The status line
 * that creates it starts the refresh and writes the refresh's pid into it; the refresh removes it
 * when done. Every other status line finds it and starts nothing.
 *
 * A lock is stale, and taken over, when its process is gone (a refresh killed midway) or when it is
 * older than `LOCK_STALE_MS` (a pid reused by another process). Taking over is itself guarded
 * (`takeOver`), so two status lines finding the same dead refresh still start one.
 *
 * Not here: what the refresh does (`refresh.ts`), or how it is started (the caller's `launch`).
 */
import { closeSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { obj, parseJson } from '../model/json.js';
import { pidRuns } from '../pid.js';
import { privateDir } from '../private.js';

export const LOCK_FILE = 'statusline-refresh.lock';

/**
 * A lock older than this is stale whatever its pid says. A refresh of a warm index takes under a
 * second; building a 1.2 GiB history from nothing takes about 15 s on two cores; ten minutes is far
 * past either, and short enough that a wrongly kept lock costs only ten minutes of old figures.
 */
export const LOCK_STALE_MS = 10 * 60_000;

/** A takeover holds its guard for microseconds; one older than this was left by a process that died. */
const TAKEOVER_STALE_MS = 10_000;

export interface LockHolder {
  pid: number;
  /** Names this lock among all the lock files ever made here (the refresh gives it back to release). */
  token: string;
  atMs: number;
}

export type RefreshStart =
  | { kind: 'started'; pid: number }
  /** Another refresh holds the lock. */
  | { kind: 'running'; holder: LockHolder | null }
  | { kind: 'failed'; reason: string };

export const lockPath = (cacheDir: string): string => join(cacheDir, LOCK_FILE);

/** The holder a lock file names; null when it does not read (being written, or damaged). */
function holderIn(path: string): LockHolder | null {
  try {
    const o = obj(parseJson(readFileSync(path, 'utf8')));
    const { pid, token, atMs } = o ?? {};
    if (typeof pid !== 'number' || typeof token !== 'string' || typeof atMs !== 'number') return null;
    return { pid, token, atMs };
  } catch {
    return null;
  }
}

/** Whether the lock at `path` (inode `ino`, last written at `mtimeMs`) may be taken over. */
function isStale(path: string, mtimeMs: number, nowMs: number): boolean {
  const h = holderIn(path);
  // A file that does not read is being written this very moment, unless it has been for long.
  if (h === null) return nowMs - mtimeMs > LOCK_STALE_MS;
  return nowMs - h.atMs > LOCK_STALE_MS || !pidRuns(h.pid);
}

function write(fd: number, h: LockHolder): void {
  ftruncateSync(fd, 0);
  writeSync(fd, JSON.stringify(h), 0);
}

/**
 * Start `launch` (which starts the refresh and returns its pid, given the lock's token) unless a
 * refresh holds the lock. Never throws.
 */
export function startRefreshOnce(
  cacheDir: string,
  launch: (token: string) => number,
  nowMs: number = Date.now(),
): RefreshStart {
  const path = lockPath(cacheDir);
  const token = `${process.pid}-${nowMs}-${Math.random().toString(36).slice(2, 10)}`;
  let fd: number | null = null;
  try {
    fd = claim(path, nowMs);
    if (fd === null) return { kind: 'running', holder: holderIn(path) };
    // Held by this process while the refresh starts: alive, so nobody takes it over meanwhile.
    write(fd, { pid: process.pid, token, atMs: nowMs });
    let pid: number;
    try {
      pid = launch(token);
    } catch (err) {
      closeSync(fd);
      fd = null;
      release(cacheDir, token);
      return { kind: 'failed', reason: (err as Error).message };
    }
    write(fd, { pid, token, atMs: nowMs });
    return { kind: 'started', pid };
  } catch (err) {
    return { kind: 'failed', reason: (err as Error).message };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The lock's descriptor when this process now holds it; null when a live refresh does. */
function claim(path: string, nowMs: number): number | null {
  try {
    return openSync(path, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No cache directory yet (a first run): made, and asked again.
    if (code === 'ENOENT') {
      privateDir(dirname(path));
      return retry(path);
    }
    if (code !== 'EEXIST') throw err;
  }
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return retry(path);
  return isStale(path, st.mtimeMs, nowMs) ? takeOver(path, nowMs) : null;
}

/**
 * Replace a stale lock, one taker at a time: a second lock file (`.takeover`) is created exclusively
 * around judging it again, removing it and making a new one, so that of two status lines finding the
 * same dead refresh, the second sees the first's new lock and starts nothing.
 *
 * known limit: a taker that dies while holding `.takeover` leaves it for `TAKEOVER_STALE_MS`; two takers
 * that both find it that old may then both take over once. It needs a crash inside a few
 * microseconds and two status lines within the same instant, and costs one extra refresh.
 */
function takeOver(path: string, nowMs: number): number | null {
  const guard = `${path}.takeover`;
  let g: number;
  try {
    g = openSync(guard, 'wx', 0o600);
  } catch {
    const left = statSync(guard, { throwIfNoEntry: false });
    if (left !== undefined && nowMs - left.mtimeMs > TAKEOVER_STALE_MS) unlinkQuietly(guard);
    return null;
  }
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st !== undefined && !isStale(path, st.mtimeMs, nowMs)) return null;
    unlinkQuietly(path);
    return retry(path);
  } finally {
    closeSync(g);
    unlinkQuietly(guard);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** One more exclusive create; null when someone else made the lock first. */
function retry(path: string): number | null {
  try {
    return openSync(path, 'wx', 0o600);
  } catch {
    return null;
  }
}

/** Give the lock back, when it is still the one `token` names (the refresh calls this when done). */
export function release(cacheDir: string, token: string): void {
  const path = lockPath(cacheDir);
  if (holderIn(path)?.token === token) unlinkQuietly(path);
}
