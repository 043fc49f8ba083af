/**
 * Which terminal a running agent is in, proven by process ids, so cctop can type into it.
 *
 * An agent is typed into through tmux only when the pane is proven: the agent's process (the pid the
 * process table matched to the session, still the same harness, run by this user) descends from a
 * tmux server, the server is found among this user's tmux sockets by its own pid, and one of that
 * server's panes has a `pane_pid` on the agent's line of ancestors. A pane is never picked by its
 * title, its window name or its working directory: two agents in one directory would be confused.
 *
 * Not here: which pid runs which session (`live/processes.ts`), what the text may hold (`typing.ts`),
 * or the commands (`views/cli/act-terminal.ts`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { agentOf, type ProcessInfo } from '../live/processes.js';
import type { ProviderId } from '../model/facts.js';
import type { Env } from '../providers/types.js';

/** How long one tmux command may take before cctop gives up on that server (it answers in milliseconds). */
export const TMUX_TIMEOUT_MS = 5_000;

/** Ancestors followed up from the agent: deeper than any real shell nesting, short of a loop in bad data. */
const MAX_ANCESTORS = 64;

/** A pane proven to hold the agent: the tmux socket that serves it and the pane's id (`%3`). */
export interface Pane {
  socket: string;
  paneId: string;
  /** The pane's first process (a shell, or the agent itself). */
  panePid: number;
  serverPid: number;
}

export type PaneFound = { kind: 'pane'; pane: Pane } | { kind: 'refused'; why: string; fix: string };

const uid = (): number => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** Who owns a process, or null when it is gone. */
function ownerOf(pid: number): number | null {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    // The process ended (or this is not Linux): nothing to own.
    return null;
  }
}

/** The tmux sockets of this user: `$TMUX`'s own first, then every socket in the user's tmux folder. */
export function tmuxSockets(env: Env): string[] {
  const out: string[] = [];
  const own = env.TMUX?.split(',')[0];
  if (own) out.push(own);
  const dir = join(env.TMUX_TMPDIR || tmpdir(), `tmux-${uid()}`);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // No tmux server has run for this user: no socket to ask.
  }
  for (const n of names) {
    const path = join(dir, n);
    if (!out.includes(path)) out.push(path);
  }
  return out;
}

/**
 * Open files of a tmux server looked at for its listening socket. A server holds its socket, its
 * clients' and a pty per pane: a few dozen. Past this the server is not asked this way, and the
 * sockets are tried in turn as before.
 */
const MAX_SERVER_FDS = 4096;

/** `/proc/net/unix`'s flag for a socket that listens (`__SO_ACCEPTCON`). */
const LISTENING = 0x10000;

/**
 * The paths of the Unix sockets process `pid` listens on, from Linux's /proc: the socket inodes among
 * its open files, named by `/proc/net/unix`. For a tmux server that is the socket it serves, found
 * without asking every socket in the folder (a folder can hold hundreds left by servers that were
 * killed, and each costs a tmux run to ask). Empty when /proc is not there or the process is another
 * user's or gone; the caller then asks the sockets it knows in turn.
 */
export function socketsHeldBy(pid: number): string[] {
  const inodes = new Set<string>();
  try {
    const fds = readdirSync(`/proc/${pid}/fd`);
    if (fds.length > MAX_SERVER_FDS) return [];
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        // Closed between the listing and the look: not the socket it serves.
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]!);
    }
    if (inodes.size === 0) return [];
    const held: string[] = [];
    // Num RefCount Protocol Flags Type St Inode Path: the path (which may hold spaces) is the rest.
    for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n')) {
      const m = /^\S+: \S+ \S+ ([0-9A-Fa-f]+) \S+ \S+ +(\d+) (\/.*)$/.exec(line);
      if (m && inodes.has(m[2]!) && (Number.parseInt(m[1]!, 16) & LISTENING) !== 0) held.push(m[3]!);
    }
    return held;
  } catch {
    // No /proc (not Linux), or the process ended or is not ours: ask the known sockets instead.
    return [];
  }
}

interface PaneRow {
  serverPid: number;
  panePid: number;
  paneId: string;
}

/** Every pane of the server at `socket`, with the server's pid; null when no server answers there. */
export function panesOf(socket: string): PaneRow[] | null {
  const r = spawnSync('tmux', ['-S', socket, 'list-panes', '-a', '-F', '#{pid} #{pane_pid} #{pane_id}'], {
    encoding: 'utf8',
    timeout: TMUX_TIMEOUT_MS,
  });
  if (r.status !== 0 || typeof r.stdout !== 'string') return null;
  const rows: PaneRow[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+) (\d+) (%\d+)$/.exec(line);
    if (m) rows.push({ serverPid: Number(m[1]), panePid: Number(m[2]), paneId: m[3]! });
  }
  return rows;
}

/** The pid and its ancestors, nearest first, as far as the table knows them. */
export function ancestors(pid: number, byPid: ReadonlyMap<number, ProcessInfo>): number[] {
  const line: number[] = [];
  let at: number | undefined = pid;
  while (at !== undefined && at > 1 && line.length < MAX_ANCESTORS && !line.includes(at)) {
    line.push(at);
    at = byPid.get(at)?.ppid;
  }
  return line;
}

const isTmux = (p: ProcessInfo | undefined): boolean =>
  p !== undefined && /^tmux/.test(basename(p.argv[0] ?? ''));

/**
 * The tmux pane that holds agent `pid` of harness `provider`, proven as the opening comment says, or
 * why there is none and what would make one.
 */
export function paneOf(
  provider: ProviderId,
  pid: number,
  procs: readonly ProcessInfo[],
  env: Env,
  sockets: readonly string[] = tmuxSockets(env),
  ask: (socket: string) => PaneRow[] | null = panesOf,
  held: (pid: number) => string[] = socketsHeldBy,
): PaneFound {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const agent = byPid.get(pid);
  if (agent === undefined || agentOf(agent.argv) !== provider)
    return {
      kind: 'refused',
      why: `process ${pid} no longer runs this session's agent`,
      fix: 'look again with cctop --list: the session may have ended',
    };
  const owner = ownerOf(pid);
  if (owner !== uid())
    return {
      kind: 'refused',
      why: `process ${pid} belongs to ${owner === null ? 'no one cctop can see' : `user ${owner}`}, not to you`,
      fix: 'only the user who runs an agent can type into it',
    };
  const line = ancestors(pid, byPid);
  const serverAt = line.findIndex((p) => isTmux(byPid.get(p)));
  if (serverAt <= 0)
    return {
      kind: 'refused',
      why: 'its terminal is not a tmux pane, and cctop did not start it',
      fix: 'start the agent inside tmux, or with cctop run',
    };
  const serverPid = line[serverAt]!;
  const mine = new Set(line.slice(0, serverAt));
  // The socket the server itself holds first: usually the only one asked. It is still proven below
  // like any other, by the server pid tmux reports on it.
  const served = held(serverPid);
  for (const socket of [...served, ...sockets.filter((s) => !served.includes(s))]) {
    const rows = ask(socket);
    if (rows === null || rows.length === 0 || rows[0]!.serverPid !== serverPid) continue;
    const hits = rows.filter((r) => mine.has(r.panePid));
    const hit = hits[0];
    if (hits.length === 1 && hit)
      return { kind: 'pane', pane: { socket, serverPid, panePid: hit.panePid, paneId: hit.paneId } };
    return {
      kind: 'refused',
      why: `tmux server ${serverPid} has ${hits.length} panes on the agent's line of processes`,
      fix: 'type into the pane yourself',
    };
  }
  return {
    kind: 'refused',
    why: `the agent runs under tmux server ${serverPid}, but none of your tmux sockets is served by it`,
    fix: 'set TMUX_TMPDIR as that server had it, or type into the pane yourself',
  };
}

/** tmux on the proven pane. */
export function tmuxOn(pane: Pane, args: readonly string[]): { ok: true } | { ok: false; why: string } {
  const r = spawnSync('tmux', ['-S', pane.socket, ...args], { encoding: 'utf8', timeout: TMUX_TIMEOUT_MS });
  if (r.status === 0) return { ok: true };
  return { ok: false, why: (r.stderr || r.error?.message || `tmux exited ${r.status}`).trim() };
}

/**
 * The most of a pane's screen read back: tmux prints the visible screen, at most a few hundred rows by
 * a few hundred columns with wide characters, well under this; past it the read fails rather than
 * holding a flood in memory.
 */
export const MAX_CAPTURE_BYTES = 1024 * 1024;

/** The text on the proven pane's screen as it is now (`capture-pane -p`: no colours, no controls of its own), or why not. */
export function screenOf(pane: Pane): { ok: true; text: string } | { ok: false; why: string } {
  const r = spawnSync('tmux', ['-S', pane.socket, 'capture-pane', '-p', '-t', pane.paneId], {
    encoding: 'utf8',
    timeout: TMUX_TIMEOUT_MS,
    maxBuffer: MAX_CAPTURE_BYTES,
  });
  if (r.status === 0 && typeof r.stdout === 'string') return { ok: true, text: r.stdout };
  return { ok: false, why: (r.error?.message || r.stderr || `tmux exited ${r.status}`).trim() };
}
