/**
 * One sender per machine. However many live tables, dashboards and watchers run, only the process
 * holding this lock sends desktop and webhook notifications; the others hand it what they see
 * (`spool.ts`) and send nothing. The lock is a file in the runtime directory, created exclusively
 * (`O_EXCL`), naming its holder: `{ pid, token, role, since }`.
 *
 * The holder touches the file on every check (its mtime is a heartbeat), and every other process
 * checks on the same clock, so when the holder goes another takes over within one check:
 *
 * - a holder that stops cleanly removes the file;
 * - a holder that died leaves a pid that no longer runs (`kill(pid, 0)` says ESRCH): stale;
 * - a holder whose heartbeat is older than `LOCK_STALE_MS` is stale whatever its pid says (a pid
 *   reused by another program, a process stopped with SIGSTOP);
 * - a watcher (`cctop watch`) takes the lock from a table or a dashboard: it is run to send, and it
 *   may have been given a webhook (`--notify URL`) they do not know. Watchers do not take it from
 *   each other.
 *
 * A holder that finds the file naming someone else has lost it (taken over after a long sleep of the
 * machine) and stops sending. For the moment two processes both believe they hold it, nothing is sent
 * twice: each notice is claimed exclusively before it is sent (`spool.ts`).
 *
 * Not here: what the holder sends (`notifier.ts`).
 */
import { closeSync, openSync, statSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { num, obj, parseJson, str } from '../model/json.js';
import { pidRuns } from '../pid.js';
import { readSmall, unlinkQuietly } from './files.js';

export const LOCK_FILE = 'notify.lock';

/**
 * A heartbeat older than this is a holder gone, whatever its pid says. Holders beat every check
 * (`NOTIFY_TICK_MS`, 2 s); a minute leaves room for a machine so busy it skips many, and is short
 * enough that a lost holder costs at most a minute of notices.
 */
export const LOCK_STALE_MS = 60_000;

/** A takeover holds its guard for microseconds; one older than this was left by a process that died. */
const TAKEOVER_STALE_MS = 10_000;

/** The lock file is a line of JSON; anything longer is not one of ours. */
const MAX_LOCK_BYTES = 4096;

/** Who may hold the lock: `cctop watch`, the live table, `cctop serve`. */
export const SENDER_ROLES = ['watch', 'table', 'dashboard'] as const;
export type SenderRole = (typeof SENDER_ROLES)[number];

export interface LockHolder {
  pid: number;
  /** Names this holding among all, so two holders in one process (tests) are told apart. */
  token: string;
  role: SenderRole;
  /** When it took the lock (ms since the epoch). */
  since: number;
}

export const lockPath = (dir: string): string => join(dir, LOCK_FILE);

function readHolder(path: string): LockHolder | null {
  const text = readSmall(path, MAX_LOCK_BYTES);
  if (text === null) return null;
  const o = obj(parseJson(text));
  const pid = num(o?.pid);
  const token = str(o?.token);
  const since = num(o?.since);
  const role = SENDER_ROLES.find((r) => r === o?.role);
  // A pid of 0 or below names a process group to `kill`, never one process.
  if (pid === null || !Number.isInteger(pid) || pid <= 0 || token === null || since === null || !role)
    return null;
  return { pid, token, role, since };
}

/** Who holds the lock in `dir`, as `cctop doctor` reports it. */
export type LockState =
  | { kind: 'free' }
  | { kind: 'held'; holder: LockHolder; alive: boolean; beatAgeMs: number }
  /** A file that does not read as a lock (being written this instant, or damaged). */
  | { kind: 'unreadable'; ageMs: number };

export function readLock(dir: string, nowMs: number = Date.now()): LockState {
  const path = lockPath(dir);
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return { kind: 'free' };
  const holder = readHolder(path);
  if (holder === null) return { kind: 'unreadable', ageMs: nowMs - st.mtimeMs };
  return { kind: 'held', holder, alive: pidRuns(holder.pid), beatAgeMs: nowMs - st.mtimeMs };
}

export class SenderLock {
  readonly token: string;
  private holding = false;

  constructor(
    private readonly dir: string,
    private readonly role: SenderRole,
    private readonly now: () => number = Date.now,
  ) {
    this.token = `${process.pid}-${this.now()}-${Math.random().toString(36).slice(2, 10)}`;
  }

  get held(): boolean {
    return this.holding;
  }

  private get path(): string {
    return lockPath(this.dir);
  }

  /**
   * Hold the lock if it is free, stale, or a watcher's to take; keep it fresh if held. Returns whether
   * this process holds it now. Never throws.
   */
  check(): boolean {
    try {
      if (this.holding) {
        if (readHolder(this.path)?.token === this.token) {
          this.beat();
          return true;
        }
        // Someone took it (this process looked stale to them), or it was removed.
        this.holding = false;
      }
      this.holding = this.take();
    } catch {
      this.holding = false;
    }
    return this.holding;
  }

  /** Give the lock back, when it is still this holder's. */
  release(): void {
    if (this.holding && readHolder(this.path)?.token === this.token) unlinkQuietly(this.path);
    this.holding = false;
  }

  private beat(): void {
    const s = this.now() / 1000;
    utimesSync(this.path, s, s);
  }

  private create(): boolean {
    let fd: number;
    try {
      fd = openSync(this.path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      const holder: LockHolder = { pid: process.pid, token: this.token, role: this.role, since: this.now() };
      writeSync(fd, JSON.stringify(holder));
    } finally {
      closeSync(fd);
    }
    this.beat();
    return true;
  }

  /** Whether the lock as it is now may be taken by this process. */
  private mayTake(): boolean {
    const st = statSync(this.path, { throwIfNoEntry: false });
    if (st === undefined) return true;
    const stale = this.now() - st.mtimeMs > LOCK_STALE_MS;
    const h = readHolder(this.path);
    // A file that does not read is being written this instant, unless it has been for long.
    if (h === null) return stale;
    if (h.token === this.token) return true;
    return stale || !pidRuns(h.pid) || (this.role === 'watch' && h.role !== 'watch');
  }

  private take(): boolean {
    if (this.create()) return true;
    if (!this.mayTake()) return false;
    return this.takeOver();
  }

  /**
   * Replace a lock that may be taken, one taker at a time: a guard file is created exclusively
   * around judging it again, removing it and making a new one, so of two processes finding the same
   * dead holder, the second sees the first's new lock and leaves it.
   *
   * known limit: a taker that dies holding the guard leaves it for `TAKEOVER_STALE_MS`; the lock is
   * then not taken over for those seconds, and notices wait in the spool meanwhile.
   */
  private takeOver(): boolean {
    const guard = `${this.path}.takeover`;
    let g: number;
    try {
      g = openSync(guard, 'wx', 0o600);
    } catch {
      const left = statSync(guard, { throwIfNoEntry: false });
      if (left !== undefined && this.now() - left.mtimeMs > TAKEOVER_STALE_MS) unlinkQuietly(guard);
      return false;
    }
    try {
      if (!this.mayTake()) return false;
      unlinkQuietly(this.path);
      return this.create();
    } finally {
      closeSync(g);
      unlinkQuietly(guard);
    }
  }
}
