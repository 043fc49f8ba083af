/**
 * The collisions of a long-running view (the live table, `serve`): fed the live picture after each
 * refresh, it reads the calls of the sessions a process runs, off the main thread, and says when the
 * collisions change and which ones are new.
 *
 * Reading a session's calls means reading its transcript in full, so it is done only when the
 * session wrote something since the last read (its `lastActiveAt` or file moved), one session at a
 * time, and no sooner than `REREAD_MIN_MS` after the last read of that session, or
 * `REREAD_COST_FACTOR` times as long as that read took (a 90 MB transcript that takes a second and a
 * half is read at most every 30 s while its agent works). A session quiet for longer than the window
 * is not read at all: it wrote nothing that could collide.
 *
 * A collision is news once: when it first shows, if the write that made it came after the watch
 * started (one found at start-up is drawn, not rung: it is not remembered across restarts, and
 * would ring on every start), and again only once it has been gone for `TOLD_MEMORY_MS`.
 *
 * Not here: the rule (`collisions.ts`), or how a view shows or rings a collision.
 */
import type { CallLog } from '../model/calls.js';
import type { Collision } from '../model/collision.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { COLLISION_WINDOW_MS, findCollisions, type RootOf, recentWrites, type Write } from './collisions.js';
import { RepoRoots } from './repo-root.js';

/** The least time between two reads of one session's calls: a collision seen 10 s late costs little. */
export const REREAD_MIN_MS = 10_000;

/**
 * A session's next read waits this many times as long as its last read took, so that re-reading
 * one long transcript keeps the reading thread busy at most one part in twenty.
 */
export const REREAD_COST_FACTOR = 20;

/**
 * Running sessions compared, the most recently active first. Agents that run at once on one machine
 * are a handful; past this the quietest are left out rather than read in turn forever.
 */
export const MAX_WATCHED_SESSIONS = 32;

/** A pass with no refresh: a collision ends within this of its last write leaving the window. */
export const COLLISION_TICK_MS = 30_000;

/** How long a collision that ended is remembered, so that one flickering in and out rings once. */
export const TOLD_MEMORY_MS = COLLISION_WINDOW_MS;

/** Collision keys remembered at most (each pass adds at most `MAX_COLLISIONS`). */
export const MAX_TOLD = 1000;

/** Reads one session's calls in full (the live views' `DeepReader`, off the main thread). */
export type CallsOf = (session: SessionDoc) => Promise<CallLog>;

/** What the watch needs of the live picture: its document, and word when it changes. */
export interface LivePicture {
  readonly document: SessionDocument | null;
  on(event: 'update', listener: (doc: SessionDocument) => void): unknown;
  off(event: 'update', listener: (doc: SessionDocument) => void): unknown;
}

export interface CollisionWatchOptions {
  calls: CallsOf;
  /** Every collision, whenever the list changes (empty once none is left). */
  onChange?: (collisions: readonly Collision[]) => void;
  /** Collisions that started while watching, each once. */
  onNew?: (fresh: Collision[]) => void;
  /** For tests: the clock. */
  now?: () => number;
  /** For tests: where a path's repository is (else `.git` is looked for on disk). */
  rootOf?: RootOf;
}

interface Watched {
  session: SessionDoc;
  /** The session's `stamp` when its calls were last read; null before the first read. */
  readStamp: string | null;
  writes: Write[];
  /** The earliest the next read may start. */
  dueAt: number;
}

/** What says a session wrote something since it was read. */
const stamp = (s: SessionDoc): string => `${s.file}\u0000${s.lastActiveAt ?? ''}`;
const sessionKey = (s: Pick<SessionDoc, 'provider' | 'id'>): string => `${s.provider}\u0000${s.id}`;

export class CollisionWatch {
  private readonly watched = new Map<string, Watched>();
  /** Each collision key seen, with when it was last seen. */
  private readonly told = new Map<string, number>();
  private readonly rootOf: RootOf;
  private readonly startedAt: number;
  private list: readonly Collision[] = [];
  private listed = '[]';
  private reading: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private live: LivePicture | null = null;
  private stopped = false;

  constructor(private readonly o: CollisionWatchOptions) {
    const roots = new RepoRoots(() => this.now());
    this.rootOf = o.rootOf ?? ((path) => roots.of(path));
    this.startedAt = this.now();
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** The collisions as of the last pass. */
  get collisions(): readonly Collision[] {
    return this.list;
  }

  /** Follow a live picture: a pass after each of its updates, and on a clock. */
  watch(live: LivePicture): void {
    this.live = live;
    live.on('update', this.onUpdate);
    if (live.document !== null) this.update(live.document);
    else this.schedule(COLLISION_TICK_MS);
  }

  stop(): void {
    this.stopped = true;
    this.live?.off('update', this.onUpdate);
    this.live = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly onUpdate = (doc: SessionDocument) => this.update(doc);

  /** Take the newest document: which sessions to watch, which to read again. Public for tests. */
  update(doc: SessionDocument): void {
    if (this.stopped) return;
    const now = this.now();
    const since = now - COLLISION_WINDOW_MS;
    const candidates = doc.sessions
      .filter(
        (s) =>
          s.running === true && !s.deleted && s.lastActiveAt !== null && Date.parse(s.lastActiveAt) >= since,
      )
      .sort((a, b) => (a.lastActiveAt! < b.lastActiveAt! ? 1 : a.lastActiveAt! > b.lastActiveAt! ? -1 : 0))
      .slice(0, MAX_WATCHED_SESSIONS);
    const present = new Set<string>();
    for (const s of candidates) {
      const key = sessionKey(s);
      present.add(key);
      const w = this.watched.get(key);
      if (w === undefined) this.watched.set(key, { session: s, readStamp: null, writes: [], dueAt: now });
      else w.session = s;
    }
    // A session no process runs any more (or quiet past the window) is forgotten with its writes.
    for (const key of this.watched.keys()) if (!present.has(key)) this.watched.delete(key);
    this.pass();
  }

  /** Resolves once no call log is being read or waits to be read now (tests, a clean stop). */
  async settled(): Promise<void> {
    while (this.reading !== null) await this.reading;
  }

  /** Find the collisions now, say what changed, and start the next read that is due. */
  private pass(): void {
    this.judge();
    this.pump();
    if (this.reading === null) this.schedule(this.nextDue() ?? COLLISION_TICK_MS);
  }

  private judge(): void {
    const now = this.now();
    const writers = [...this.watched.values()].map((w) => ({
      provider: w.session.provider,
      id: w.session.id,
      title: w.session.title,
      project: w.session.project,
      running: w.session.running,
      deleted: w.session.deleted,
      writes: w.writes,
    }));
    const found = findCollisions(writers, now);
    const listed = JSON.stringify(found);
    if (listed !== this.listed) {
      this.listed = listed;
      this.list = found;
      this.o.onChange?.(found);
    }
    const fresh: Collision[] = [];
    for (const c of found) {
      const known = this.told.has(c.key);
      this.told.delete(c.key);
      this.told.set(c.key, now);
      if (!known && Date.parse(c.sessions[0]!.wroteAt) >= this.startedAt) fresh.push(c);
    }
    for (const [key, at] of this.told) if (now - at > TOLD_MEMORY_MS) this.told.delete(key);
    while (this.told.size > MAX_TOLD) this.told.delete(this.told.keys().next().value!);
    if (fresh.length > 0) this.o.onNew?.(fresh);
  }

  /** The next session whose calls need reading and may be read now. */
  private due(): Watched | null {
    const now = this.now();
    for (const w of this.watched.values()) if (w.readStamp !== stamp(w.session) && w.dueAt <= now) return w;
    return null;
  }

  /** How long until a session that needs reading may be read; null when none needs it. */
  private nextDue(): number | null {
    const now = this.now();
    let soonest: number | null = null;
    for (const w of this.watched.values())
      if (w.readStamp !== stamp(w.session))
        soonest = Math.min(soonest ?? Infinity, Math.max(0, w.dueAt - now));
    return soonest;
  }

  private pump(): void {
    if (this.reading !== null || this.stopped) return;
    const w = this.due();
    if (w === null) return;
    this.reading = this.read(w).finally(() => {
      this.reading = null;
      if (!this.stopped) this.pass();
    });
  }

  private async read(w: Watched): Promise<void> {
    const s = w.session;
    const readStamp = stamp(s);
    const started = this.now();
    let log: CallLog | null = null;
    try {
      log = await this.o.calls(s);
    } catch {
      // Unreadable now (the reading thread failed, the file went): read again once it writes.
    }
    const now = this.now();
    w.readStamp = readStamp;
    w.dueAt = now + Math.max(REREAD_MIN_MS, (now - started) * REREAD_COST_FACTOR);
    if (log !== null) w.writes = recentWrites(log, s.project, now, this.rootOf);
  }

  /** The next pass in `ms` (replacing any timer): a read coming due, or the clock moving the window. */
  private schedule(ms: number): void {
    if (this.stopped || this.live === null) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pass();
      },
      Math.min(ms, COLLISION_TICK_MS),
    );
    this.timer.unref();
  }
}
