/**
 * Knowing that nothing changed without looking at every file.
 *
 * A long-running view (the live table, `serve`) asks every couple of seconds whether any transcript
 * moved. Stat'ing 4,000 files to find out costs tens of milliseconds and a megabyte of garbage per
 * pass, all day long. Watching the directories they live in costs nothing until something happens:
 * while no watched directory has reported an event since the last full pass, the next pass may skip
 * discovery altogether.
 *
 * What it does not do: replace discovery. Any event, a directory it could not watch, or
 * `FULL_SWEEP_MS` passing means a full pass, which is what catches what watching cannot see (a root
 * created after the pass, a file on a network filesystem that sends no events).
 */
import { type FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';

/** Directories watched at most; past this, passes are never skipped (inotify watches are a per-user limit). */
export const MAX_WATCHED_DIRS = 4096;
/** A full pass at least this often, whatever the watchers say. */
export const FULL_SWEEP_MS = 60_000;

export class DirectoryWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private touched = new Set<string>();
  /** An event arrived, or a directory could not be watched, since the last full pass began. */
  private dirty = true;
  private lastFull = Number.NEGATIVE_INFINITY;

  /** Whether a pass may skip discovery: everything is watched and nothing has moved. */
  quiet(nowMs: number): boolean {
    return !this.dirty && nowMs - this.lastFull < FULL_SWEEP_MS && this.watchers.size > 0;
  }

  /** A full pass begins: events from here on count against the next one. */
  begin(nowMs: number): void {
    this.dirty = false;
    this.lastFull = nowMs;
    this.touched = new Set();
  }

  /**
   * Watch the directories a pass looked at: every directory listed and the directory of every file
   * found. Watchers of directories the pass no longer looked at are closed.
   */
  cover(dirs: Iterable<string>, files: Iterable<string>): void {
    const before = this.watchers.size;
    for (const d of dirs) this.add(d);
    for (const f of files) this.add(dirname(f));
    // A directory watched only now may have changed between the pass's look and the watch: the
    // next pass is a full one, made with every watcher already in place.
    if (this.watchers.size > before) this.dirty = true;
    for (const [dir, w] of this.watchers) {
      if (this.touched.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
  }

  private add(dir: string): void {
    this.touched.add(dir);
    if (this.watchers.has(dir)) return;
    if (this.watchers.size >= MAX_WATCHED_DIRS) {
      this.dirty = true;
      return;
    }
    try {
      const w = watch(dir, { persistent: false }, () => {
        this.dirty = true;
      });
      w.on('error', () => {
        this.dirty = true;
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch {
      // Gone already, or out of inotify watches: this pass's answer stands, the next is a full one.
      this.dirty = true;
    }
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.dirty = true;
  }
}
