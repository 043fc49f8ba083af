/**
 * The hook events a cctop knows. A long-running cctop (the live table, `cctop serve`) starts a feed:
 * it listens on its socket, then reads the journal, so sessions that were waiting before it started
 * are known, and emits every event (`'event'`), the journal's first, oldest first, then each one a
 * hook hands it. A one-shot command reads the journal alone (`HookFeed.fromJournal`).
 *
 * Two ways in, one event out. The socket is the fast way; the journal is followed too (a watch on
 * the runtime directory), because a hook that met its deadline after journaling its event but
 * before sending it (a machine starved of CPU) reaches running cctops only there. An event that
 * comes both ways is emitted once: the feed remembers the newest events it emitted.
 *
 * Not here: what the events mean for a session (`providers/<name>/hooks.ts` through
 * `agentHooks`, and the live state that applies them).
 */
import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import { type PeerLink, PeerServer, type PeerStats } from '../runtime/peers.js';
import type { RunMessage } from '../runtime/protocol.js';
import { JOURNAL_FILE, type JournalMark, loadJournal, loadJournalIn } from './journal.js';
import type { HookEvent } from './types.js';

/**
 * The most events a feed keeps, newest last. The journal holds at most about 800; a live cctop
 * needs each session's newest, and a thousand covers every session of a busy machine many times
 * over while bounding what a flood of hooks can make it hold.
 */
export const MAX_FEED_EVENTS = 1024;

/**
 * How many of the newest events emitted are remembered, to know one that comes both ways: more
 * than the journal can hold (about 1,300 of the smallest events), so re-reading a compacted
 * journal emits nothing twice.
 */
const REMEMBERED_EVENTS = 4 * MAX_FEED_EVENTS;

interface FeedEvents {
  event: [HookEvent];
  /** A driven run's message (`live/driven.ts` follows the runs), with the connection it came on. */
  run: [RunMessage, PeerLink];
}

/** Why a feed gets no live events, or why its journal could not be read, in words to show; null when all is well. */
export type FeedProblem = string | null;

export class HookFeed extends EventEmitter<FeedEvents> {
  #events: HookEvent[] = [];
  /** The newest events emitted, as their JSON (an event read back has one key order). */
  #seen = new Set<string>();
  #server: PeerServer | null = null;
  #watcher: FSWatcher | null = null;
  #dir: string | null = null;
  #mark: JournalMark | null = null;
  #followScheduled = false;
  #state: 'new' | 'starting' | 'started' | 'stopped' = 'new';
  #problem: FeedProblem = null;

  constructor(private readonly env: Env) {
    super();
  }

  /**
   * Listen for hooks, then emit the journal's events and every event after them, until `stop()`.
   * Never rejects: when the runtime directory is refused or the socket cannot be made, the feed still
   * emits what it can read and `problem` says why the rest does not come.
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') return;
    this.#state = 'starting';
    const early: HookEvent[] = [];
    const listening = await PeerServer.listen(this.env, (m, from) => {
      if (m.kind !== 'hook') {
        this.emit('run', m, from);
        return;
      }
      if (this.#state === 'started') this.#add(m.event);
      else early.push(m.event);
    });
    // `stop()` may have been called while the socket was being made.
    if (this.#stopped()) {
      if (listening.kind === 'listening') await listening.server.close();
      return;
    }
    const problems: string[] = [];
    if (listening.kind === 'listening') this.#server = listening.server;
    else problems.push(`no live hook events: ${listening.path}: ${listening.why}`);
    const dir = runtimeDir(this.env);
    const journal = dir.kind === 'ok' ? loadJournalIn(dir.path) : loadJournal(this.env);
    if (journal.kind === 'refused') problems.push(`hook journal not read: ${journal.path}: ${journal.why}`);
    this.#problem = problems.length > 0 ? problems.join('; ') : null;
    this.#state = 'started';
    if (journal.kind === 'read') {
      this.#mark = journal.mark;
      for (const e of journal.events.slice(-MAX_FEED_EVENTS)) this.#add(e);
    }
    for (const e of early) this.#add(e);
    if (dir.kind === 'ok' && journal.kind === 'read') this.#follow(dir.path);
  }

  /** Stop listening and following, and remove the socket. The events stay readable. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    this.#watcher?.close();
    this.#watcher = null;
    const server = this.#server;
    this.#server = null;
    await server?.close();
  }

  /** The events known, oldest first: the journal's at start, then those received. */
  events(): readonly HookEvent[] {
    return this.#events.length > MAX_FEED_EVENTS ? this.#events.slice(-MAX_FEED_EVENTS) : this.#events;
  }

  get problem(): FeedProblem {
    return this.#problem;
  }

  /** What the socket has read (bad lines, ignored kinds), for `cctop doctor`; null when not listening. */
  get stats(): Readonly<PeerStats> | null {
    return this.#server?.stats ?? null;
  }

  /** The socket this feed listens on, or null. */
  get socket(): string | null {
    return this.#server?.path ?? null;
  }

  /** For a one-shot command: the journal's events, oldest first, and why it could not be read (null when it could). */
  static fromJournal(env: Env): { events: HookEvent[]; problem: FeedProblem } {
    const r = loadJournal(env);
    return r.kind === 'read'
      ? { events: r.events.slice(-MAX_FEED_EVENTS), problem: null }
      : { events: [], problem: `hook journal not read: ${r.path}: ${r.why}` };
  }

  #stopped(): boolean {
    return this.#state === 'stopped';
  }

  /** Read what is appended to the journal as it is. Without a watch (none left), the socket alone. */
  #follow(dir: string): void {
    this.#dir = dir;
    try {
      this.#watcher = watch(dir, (_, name) => {
        if (name === null || name === JOURNAL_FILE) this.#scheduleFollow();
      });
      this.#watcher.on('error', () => {
        this.#watcher?.close();
        this.#watcher = null;
      });
    } catch {
      this.#watcher = null;
    }
  }

  /** One read for a burst of changes. */
  #scheduleFollow(): void {
    if (this.#followScheduled) return;
    this.#followScheduled = true;
    setImmediate(() => {
      this.#followScheduled = false;
      if (this.#stopped() || this.#dir === null) return;
      const r = loadJournalIn(this.#dir, this.#mark);
      if (r.kind !== 'read') return;
      this.#mark = r.mark;
      for (const e of r.events) this.#add(e);
    });
  }

  /** An event from either way in: kept and emitted unless it was already. */
  #add(e: HookEvent): void {
    const key = JSON.stringify(e);
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    if (this.#seen.size > REMEMBERED_EVENTS) {
      const oldest = this.#seen.values().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    this.#events.push(e);
    // Trimmed in batches, so a steady stream does not shift the whole list on every event.
    if (this.#events.length >= 2 * MAX_FEED_EVENTS) this.#events = this.#events.slice(-MAX_FEED_EVENTS);
    this.emit('event', e);
  }
}
