/**
 * A driven run told to every running cctop (docs/protocol.md, "Driven runs"): the announcer keeps a
 * connection to each cctop's socket in the runtime directory, sends the run's snapshot when it
 * connects and whenever the run moves, and hands on the answers a cctop sends back for approvals.
 * It looks for new cctops every `ANNOUNCE_RESCAN_MS`, so one started mid-run finds the run.
 *
 * It also keeps the run's snapshot in a file there (`runtime/run-files.ts`) for the commands that do
 * not stay (`cctop --list`, `cctop --json`): written when a snapshot is sent, touched at each look,
 * removed at the end.
 *
 * It never harms the run: no cctop, a refused runtime directory, a cctop that stops reading or dies
 * mid-line, a file that cannot be written cost the run nothing but what a watcher misses. Whether an answer is taken at all
 * is the run's decision (`approvals: 'remote'`), made in `announced-run.ts`, not here.
 *
 * Not here: what goes in a snapshot (`announce-fold.ts`), the message codec (`runtime/protocol.ts`).
 */
import { connect, type Socket } from 'node:net';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import { LineReader, peerSockets, socketLink } from '../runtime/peers.js';
import { decodeMessage, MAX_MESSAGE_BYTES, PROTOCOL_VERSION } from '../runtime/protocol.js';
import { removeRunFile, touchRunFile, writeRunFile } from '../runtime/run-files.js';
import type { RunAnswer, RunSnapshot } from '../runtime/runs.js';
import { runLine } from './announce-fold.js';

/** How often the runtime directory is looked at for cctops started since the run began. */
export const ANNOUNCE_RESCAN_MS = 1_000;

/**
 * The least time between two snapshots sent for ordinary events (text, tool calls, usage): a run
 * streaming text makes hundreds of events a second, and a watcher needs a few frames a second.
 * Approvals, their answers and the end are sent at once.
 */
export const ANNOUNCE_EVERY_MS = 250;

export class Announcer {
  readonly #dir: string;
  readonly #links = new Map<string, Socket>();
  #snapshot: RunSnapshot;
  #rescan: NodeJS.Timeout | null = null;
  #later: NodeJS.Timeout | null = null;
  #lastSentMs = 0;
  #ended = false;

  private constructor(
    dir: string,
    snapshot: RunSnapshot,
    private readonly onAnswer: (a: RunAnswer) => void,
  ) {
    this.#dir = dir;
    this.#snapshot = snapshot;
  }

  /** Start announcing; null when the runtime directory is refused (the run goes on untold). */
  static start(env: Env, snapshot: RunSnapshot, onAnswer: (a: RunAnswer) => void): Announcer | null {
    const dir = runtimeDir(env);
    if (dir.kind === 'refused') return null;
    const a = new Announcer(dir.path, snapshot, onAnswer);
    a.#keepFile(() => writeRunFile(a.#dir, snapshot));
    a.#look();
    a.#rescan = setInterval(() => a.#look(), ANNOUNCE_RESCAN_MS);
    a.#rescan.unref();
    return a;
  }

  /** The run moved. `urgent`: send now (an approval, an answer); otherwise at most every `ANNOUNCE_EVERY_MS`. */
  update(snapshot: RunSnapshot, urgent: boolean): void {
    if (this.#ended || snapshot === this.#snapshot) return;
    this.#snapshot = snapshot;
    const wait = this.#lastSentMs + ANNOUNCE_EVERY_MS - Date.now();
    if (urgent || wait <= 0) this.#sendNow();
    else
      this.#later ??= setTimeout(() => {
        this.#later = null;
        this.#sendNow();
      }, wait);
  }

  /** The run is over: the last snapshot, then `bye`, and every connection closed. */
  end(snapshot: RunSnapshot): void {
    if (this.#ended) return;
    this.#snapshot = snapshot;
    this.#sendNow();
    this.#ended = true;
    this.#keepFile(() => removeRunFile(this.#dir, snapshot.id));
    if (this.#rescan) clearInterval(this.#rescan);
    if (this.#later) clearTimeout(this.#later);
    for (const s of this.#links.values()) {
      socketLink(s).send({ v: PROTOCOL_VERSION, kind: 'bye', run: snapshot.id });
      s.end();
    }
    this.#links.clear();
  }

  #sendNow(): void {
    if (this.#later) clearTimeout(this.#later);
    this.#later = null;
    this.#lastSentMs = Date.now();
    const line = runLine('run-event', this.#snapshot);
    for (const s of this.#links.values()) writeBounded(s, line);
    if (!this.#ended) this.#keepFile(() => writeRunFile(this.#dir, this.#snapshot));
  }

  /** One change to the run's file; a disk that refuses it costs the one-shots the run, never the run. */
  #keepFile(change: () => void): void {
    try {
      change();
    } catch {
      // A full or read-only runtime directory: the sockets still carry the run to live views.
    }
  }

  /** Connect to every cctop not yet followed. */
  #look(): void {
    if (this.#ended) return;
    // The file is fresh while the run lives (see `RUN_FILE_FRESH_MS`); rewritten if someone removed it.
    this.#keepFile(() => {
      try {
        touchRunFile(this.#dir, this.#snapshot.id);
      } catch {
        // Gone (a cleaner, a reader that misjudged it stale): written again whole.
        writeRunFile(this.#dir, this.#snapshot);
      }
    });
    for (const peer of peerSockets(this.#dir)) {
      if (this.#links.has(peer.path)) continue;
      const s = connect(peer.path);
      this.#links.set(peer.path, s);
      s.on('error', () => s.destroy());
      s.on('close', () => {
        if (this.#links.get(peer.path) === s) this.#links.delete(peer.path);
      });
      s.on('connect', () => writeBounded(s, runLine('announce', this.#snapshot)));
      const lines = new LineReader(MAX_MESSAGE_BYTES, () => {});
      s.on('data', (chunk: Buffer) => {
        for (const line of lines.push(chunk)) this.#read(line);
      });
      // The driving program exits when its work is done, whether or not a cctop still listens.
      s.unref();
    }
  }

  #read(line: string): void {
    const d = decodeMessage(line);
    if (d.kind !== 'message' || d.message.kind !== 'answer') return;
    if (d.message.answer.run !== this.#snapshot.id) return;
    try {
      this.onAnswer(d.message.answer);
    } catch {
      // An answer the run cannot take (already answered, the run over) changes nothing.
    }
  }
}

/** Write a line unless the other side has stopped reading: a slow cctop misses snapshots, never the run. */
function writeBounded(s: Socket, line: string): void {
  if (s.destroyed || !s.writable || s.connecting) return;
  if (s.writableLength > MAX_MESSAGE_BYTES) return;
  s.write(line);
}
