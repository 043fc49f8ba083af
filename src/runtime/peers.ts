/**
 * Where running cctops are found and how a message reaches all of them. Each long-running cctop
 * listens on its own unix socket in the runtime directory, `<pid>.sock`; a sender (`cctop hook`)
 * writes one line to every socket there and goes. No broker, no registry: the directory is the list
 * of peers, and a socket file whose cctop is gone is removed by the next cctop that starts.
 *
 * Both ends are written for a hostile or broken other end. The server bounds a line
 * (`MAX_MESSAGE_BYTES`) and its connections (`MAX_PEER_CONNECTIONS`), counts bad lines and goes on.
 * The sender never waits past its deadline and never throws: a peer that accepted and never reads,
 * or one that was stopped (SIGSTOP), costs it the deadline at most.
 *
 * Not here: what a line says (`protocol.ts`), the directory's own checks (`dir.ts`).
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pidRuns } from '../pid.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from './dir.js';
import { decodeMessage, encodeMessage, MAX_MESSAGE_BYTES, type Message } from './protocol.js';

/** A peer's socket: `<pid>.sock`, the pid of the cctop listening on it. */
const PEER_SOCKET = /^([1-9][0-9]{0,9})\.sock$/;

/**
 * The most peers one message is sent to, newest first. One person runs a few cctops at once (a
 * table in each terminal, a dashboard); sixteen is more than anyone keeps open, and bounds what a
 * directory full of sockets can make every hook spend.
 */
export const MAX_PEERS = 16;

/**
 * The most connections a peer keeps open at once. Hooks connect, write a line and close, so only
 * those of one instant are open together (an agent fires a few per tool call; a few agents at once);
 * 64 leaves room for that, and for clients that keep their connection, without letting a runaway
 * client use up the process's file descriptors. Past it, the server refuses the connection.
 */
export const MAX_PEER_CONNECTIONS = 64;

/**
 * How long a starting cctop waits to learn whether a socket it found answers. A live cctop accepts
 * at once (the kernel does, before the process runs); a socket nobody listens on refuses at once.
 * Only a peer whose backlog is full is slow to answer, and such a socket is left alone.
 */
const STALE_PROBE_MS = 200;

/** What a server has read since it started: for `cctop doctor`. */
export interface PeerStats {
  /** Messages handed on. */
  messages: number;
  /** Lines of another version or of a kind this cctop does not know. */
  ignored: number;
  /** Lines that are not messages (not JSON, or a known kind whose content does not read). */
  bad: number;
  /** Lines longer than `MAX_MESSAGE_BYTES`, dropped unread. */
  oversized: number;
  /** Messages whose handler threw. */
  failed: number;
}

/** The sockets this process listens on. */
const listeningHere = new Set<string>();

/**
 * The connection a message came on, for the kinds that talk back (a driven run's `answer`). A hook
 * closes its connection at once; a driver keeps its own open for the run.
 */
export interface PeerLink {
  /** Write a message back; false when the connection is gone or its unsent lines passed the bound. */
  send(m: Message): boolean;
  /** Called once when the connection closes, whichever side closed it. */
  onClose(fn: () => void): void;
  close(): void;
}

/**
 * The most bytes written back on one connection and not yet taken by the other side. An answer is a
 * few hundred bytes; a driver that stops reading its connection loses answers past this rather than
 * growing this cctop's memory.
 */
export const MAX_LINK_BACKLOG_BYTES = 64 * 1024;

export type OnMessage = (m: Message, from: PeerLink) => void;

export type Listening =
  | { kind: 'listening'; server: PeerServer }
  | { kind: 'refused'; path: string; why: string };

/** One cctop's socket in the runtime directory, listening until `close()`. */
export class PeerServer {
  readonly stats: PeerStats = { messages: 0, ignored: 0, bad: 0, oversized: 0, failed: 0 };
  readonly #server: Server;
  readonly #connections = new Set<Socket>();
  readonly #onExit = () => unlinkQuietly(this.path);
  #closed = false;

  private constructor(
    readonly path: string,
    onMessage: OnMessage,
  ) {
    this.#server = createServer((socket) => this.#accept(socket, onMessage));
    this.#server.maxConnections = MAX_PEER_CONNECTIONS;
  }

  /**
   * Listen on `<runtime dir>/<pid>.sock`, after removing the sockets of cctops that are gone. Never
   * rejects: a runtime directory that is refused, or a socket that cannot be made, is a `refused`
   * with the reason to show.
   */
  static async listen(env: Env, onMessage: OnMessage, pid = process.pid): Promise<Listening> {
    const dir = runtimeDir(env);
    if (dir.kind === 'refused') return dir;
    await removeStaleSockets(dir.path, pid);
    const path = join(dir.path, `${pid}.sock`);
    // One socket per process: a second server would take the first one's file from under it.
    if (listeningHere.has(path)) return { kind: 'refused', path, why: 'this process already listens there' };
    // Ours from an earlier life: a process that had this pid before (in another container, before a
    // reboot) and did not close.
    unlinkQuietly(path);
    const peer = new PeerServer(path, onMessage);
    try {
      await new Promise<void>((resolve, reject) => {
        peer.#server.once('error', reject);
        peer.#server.listen(path, () => {
          peer.#server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      return { kind: 'refused', path, why: (err as Error).message };
    }
    listeningHere.add(path);
    // A server error after listening (none is expected) must not take the cctop down.
    peer.#server.on('error', () => {});
    process.once('exit', peer.#onExit);
    return { kind: 'listening', server: peer };
  }

  /** Stop listening, drop every connection and remove the socket. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    process.off('exit', this.#onExit);
    for (const c of this.#connections) c.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    unlinkQuietly(this.path);
    listeningHere.delete(this.path);
  }

  #accept(socket: Socket, onMessage: OnMessage): void {
    this.#connections.add(socket);
    socket.on('close', () => this.#connections.delete(socket));
    socket.on('error', () => socket.destroy());
    const link = socketLink(socket);
    const lines = new LineReader(MAX_MESSAGE_BYTES, () => this.stats.oversized++);
    socket.on('data', (chunk: Buffer) => {
      for (const line of lines.push(chunk)) this.#read(line, onMessage, link);
    });
  }

  #read(line: string, onMessage: OnMessage, link: PeerLink): void {
    if (line.trim().length === 0) return;
    const d = decodeMessage(line);
    switch (d.kind) {
      case 'message':
        this.stats.messages++;
        try {
          onMessage(d.message, link);
        } catch {
          this.stats.failed++;
        }
        return;
      case 'ignored':
        this.stats.ignored++;
        return;
      case 'bad':
        this.stats.bad++;
        return;
    }
  }
}

/** A socket as a `PeerLink`: messages written as lines, bounded by `MAX_LINK_BACKLOG_BYTES`. */
export function socketLink(socket: Socket): PeerLink {
  return {
    send: (m) => {
      if (socket.destroyed || !socket.writable || socket.writableLength > MAX_LINK_BACKLOG_BYTES)
        return false;
      socket.write(encodeMessage(m));
      return true;
    },
    onClose: (fn) => {
      if (socket.destroyed) fn();
      else socket.once('close', fn);
    },
    close: () => {
      socket.end();
      socket.destroySoon?.();
    },
  };
}

/**
 * Newline-framed lines out of a byte stream, none longer than `max`: a longer line is dropped as it
 * arrives (reported once through `onOversized`), and reading resumes after its newline.
 */
export class LineReader {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #skipping = false;

  constructor(
    readonly max: number,
    readonly onOversized: () => void,
  ) {}

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const part = chunk.subarray(start, nl);
      if (this.#skipping) this.#skipping = false;
      else if (this.#heldBytes + part.length > this.max) this.onOversized();
      else lines.push(Buffer.concat([...this.#held, part]).toString('utf8'));
      this.#held = [];
      this.#heldBytes = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (!this.#skipping && rest.length > 0) {
      if (this.#heldBytes + rest.length > this.max) {
        this.onOversized();
        this.#skipping = true;
        this.#held = [];
        this.#heldBytes = 0;
      } else {
        this.#held.push(rest);
        this.#heldBytes += rest.length;
      }
    }
    return lines;
  }
}

/** The peers' sockets in `dir`, newest first, at most `MAX_PEERS`; [] when the directory does not read. */
export function peerSockets(dir: string): { pid: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: { pid: number; path: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const m = PEER_SOCKET.exec(name);
    if (m === null) continue;
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isSocket()) found.push({ pid: Number(m[1]), path, mtimeMs: st.mtimeMs });
    } catch {
      // Removed while we looked: not a peer.
    }
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  return found.slice(0, MAX_PEERS).map(({ pid, path }) => ({ pid, path }));
}

/** How a broadcast went: peers found, lines delivered, peers that failed or were still writing at the deadline. */
export interface Delivery {
  peers: number;
  delivered: number;
  failed: number;
  late: number;
}

/**
 * Send `message` to every running cctop (the newest `MAX_PEERS`), within `deadlineMs`. Resolves when
 * every peer has its line or has failed, or at the deadline, whichever is first; never rejects.
 */
export async function broadcast(env: Env, message: Message, deadlineMs: number): Promise<Delivery> {
  const dir = runtimeDir(env);
  if (dir.kind === 'refused') return { peers: 0, delivered: 0, failed: 0, late: 0 };
  return broadcastIn(dir.path, message, deadlineMs);
}

/** `broadcast` to the sockets of a runtime directory already checked. */
export function broadcastIn(dir: string, message: Message, deadlineMs: number): Promise<Delivery> {
  const peers = peerSockets(dir);
  const result: Delivery = { peers: peers.length, delivered: 0, failed: 0, late: 0 };
  if (peers.length === 0) return Promise.resolve(result);
  const line = encodeMessage(message);
  return new Promise((resolve) => {
    const open = new Set<Socket>();
    let pending = peers.length;
    const settle = () => {
      clearTimeout(timer);
      for (const s of open) s.destroy();
      result.late = open.size;
      open.clear();
      resolve(result);
    };
    const done = (s: Socket, ok: boolean) => {
      if (!open.delete(s)) return;
      s.destroy();
      if (ok) result.delivered++;
      else result.failed++;
      if (--pending === 0) settle();
    };
    const timer = setTimeout(settle, Math.max(0, deadlineMs));
    for (const peer of peers) {
      const s = connect(peer.path);
      open.add(s);
      s.on('error', () => done(s, false));
      // Once the line is in the kernel's buffer the peer has it: a unix socket delivers what was
      // written before the close, whether or not the peer has read it yet.
      s.on('connect', () => s.end(line, (...err: unknown[]) => done(s, err[0] == null)));
    }
  });
}

/**
 * Remove the sockets in `dir` whose cctop is gone: a socket that refuses a connection (nobody
 * listens on it, whoever has its pid now), or whose process no longer exists and that does not
 * answer in time. A socket that accepts is a live peer, whatever `kill` says: a cctop in another pid
 * namespace that shares the directory.
 */
export async function removeStaleSockets(dir: string, ownPid = process.pid): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const checks = names.flatMap((name) => {
    const m = PEER_SOCKET.exec(name);
    if (m === null || Number(m[1]) === ownPid) return [];
    const path = join(dir, name);
    return [
      probe(path).then((answer): number => {
        if (answer === 'accepts' || (answer === 'silent' && pidRuns(Number(m[1])))) return 0;
        return unlinkQuietly(path) ? 1 : 0;
      }),
    ];
  });
  return (await Promise.all(checks)).reduce((a, b) => a + b, 0);
}

/** Whether a socket accepts a connection, refuses it, or says nothing within `STALE_PROBE_MS`. */
function probe(path: string): Promise<'accepts' | 'refuses' | 'silent'> {
  return new Promise((resolve) => {
    const s = connect(path);
    const finish = (answer: 'accepts' | 'refuses' | 'silent') => {
      clearTimeout(timer);
      s.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish('silent'), STALE_PROBE_MS);
    s.once('connect', () => finish('accepts'));
    // Only a refusal says nobody listens: a full backlog (EAGAIN) is a live peer that is busy.
    s.once('error', (err: NodeJS.ErrnoException) =>
      finish(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'refuses' : 'silent'),
    );
  });
}

function unlinkQuietly(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}
