/**
 * Which process runs which session, and what its process tree costs in CPU and memory.
 *
 * Linux reads `/proc`; macOS asks `ps` (and `lsof` for working directories). A session is matched to
 * an agent process by the exact session id on its command line (`claude --resume <id>`,
 * `codex resume <id>`) where that session is still being written, else by working directory: the
 * newest sessions active since a process started are paired with that directory's processes,
 * newest with newest. CPU and memory are summed over the agent's whole process tree (its shells,
 * MCP servers, test runs).
 *
 * Not here: anything about the transcripts, or acting on a process.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { later } from '../later.js';
import type { ProviderId } from '../model/facts.js';
import { PLACE_LIST, placeById } from '../providers/places.js';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process start, ms since the epoch. */
  startMs: number;
  argv: string[];
  /** Its working directory: read for agents only (Linux), and null where it cannot be. */
  cwd: string | null;
  /** CPU seconds used so far (user + system). */
  cpuSeconds: number;
  rssBytes: number;
}

export interface AgentProcess {
  provider: ProviderId;
  /** The agent process itself; `tree` includes it. */
  pid: number;
  tree: number[];
  startMs: number;
  cwd: string | null;
  argv: string[];
  /** A session id named on the command line, if any. */
  sessionArg: string | null;
  /** Percent of one core over the last interval, summed over the tree (null on the first sample). */
  cpu: number | null;
  rssBytes: number;
}

/** `ps` runs only where /proc does not exist (macOS). */
const childProcess = later<typeof import('node:child_process')>('node:child_process');

/** The processes of one machine, sampled; null when this platform cannot be read. */
export type Sampler = () => ProcessInfo[] | null;

const CLK_TCK = 100;

function bootTimeMs(): number {
  const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
  return m ? Number(m[1]) * 1000 : 0;
}

let boot: number | null = null;

/**
 * Every process on a Linux machine, from `/proc`, or none when no agent runs (then nothing is paired
 * or summed, and reading every process's stat would be most of a one-shot's look). Processes we may
 * not look into are skipped.
 */
export function linuxProcesses(): ProcessInfo[] {
  const named: { name: string; argv: string[]; agent: boolean }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a.length > 0);
    } catch {
      // exited while we looked
      continue;
    }
    if (argv.length === 0) continue; // a kernel thread
    named.push({ name, argv, agent: agentOf(argv) !== null });
  }
  if (!named.some((p) => p.agent)) return [];
  boot ??= bootTimeMs();
  const out: ProcessInfo[] = [];
  for (const { name, argv, agent } of named) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may itself contain spaces and parentheses.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(rest[1]);
      const utime = Number(rest[11]);
      const stime = Number(rest[12]);
      const start = Number(rest[19]);
      const rssPages = Number(rest[21]);
      // Only an agent's working directory pairs sessions (`agents`): a readlink for every other
      // process would be a third of the look.
      let cwd: string | null = null;
      if (agent)
        try {
          cwd = readlinkSync(`/proc/${name}/cwd`);
        } catch {
          // another user's process: no cwd, still counted in trees
        }
      out.push({
        pid: Number(name),
        ppid,
        startMs: boot + (start / CLK_TCK) * 1000,
        argv,
        cwd,
        cpuSeconds: (utime + stime) / CLK_TCK,
        rssBytes: rssPages * 4096,
      });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Every process on macOS (and other BSD-likes), from `ps` and `lsof`. */
export function psProcesses(): ProcessInfo[] {
  const text = childProcess().execFileSync('ps', ['-axww', '-o', 'pid=,ppid=,etime=,time=,rss=,command='], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const now = Date.now();
  const seconds = (t: string): number => {
    const [d, rest] = t.includes('-') ? t.split('-') : ['0', t];
    const parts = (rest ?? '').split(':').map(Number);
    let s = 0;
    for (const p of parts) s = s * 60 + p;
    return Number(d) * 86_400 + s;
  };
  const procs: ProcessInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    procs.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      startMs: now - seconds(m[3]!) * 1000,
      argv: m[6]!.split(' '),
      cwd: null,
      cpuSeconds: seconds(m[4]!.replace(/\.\d+$/, '')),
      rssBytes: Number(m[5]) * 1024,
    });
  }
  return procs;
}

export function defaultSampler(): Sampler {
  if (process.platform === 'linux') return linuxProcesses;
  if (process.platform === 'darwin') return psProcesses;
  return () => null;
}

/** Which harness a process is, from its command line (each harness's place says); null for the rest. */
export function agentOf(argv: readonly string[]): ProviderId | null {
  return PLACE_LIST.find((p) => p.processes?.isAgent(argv))?.id ?? null;
}

/** A session id named on an agent's command line. */
export function sessionArg(provider: ProviderId, argv: readonly string[]): string | null {
  return placeById(provider).processes?.sessionArg(argv) ?? null;
}

/**
 * The agents running now, each with its process tree. Keeps the last sample to turn CPU seconds
 * into a percentage.
 */
export class ProcessTable {
  private last = new Map<number, { cpu: number; at: number }>();

  constructor(private readonly sample: Sampler = defaultSampler()) {}

  agents(): AgentProcess[] | null {
    let procs: ProcessInfo[] | null;
    try {
      procs = this.sample();
    } catch {
      procs = null;
    }
    if (procs === null) return null;
    const now = Date.now();
    const children = new Map<number, number[]>();
    const byPid = new Map<number, ProcessInfo>();
    for (const p of procs) {
      byPid.set(p.pid, p);
      const list = children.get(p.ppid) ?? [];
      list.push(p.pid);
      children.set(p.ppid, list);
    }
    const agents: AgentProcess[] = [];
    for (const p of procs) {
      const provider = agentOf(p.argv);
      if (provider === null) continue;
      // An agent started by another agent of the same kind (a wrapper re-executing itself) is the same agent.
      const parent = byPid.get(p.ppid);
      if (parent && agentOf(parent.argv) === provider) continue;
      const tree: number[] = [];
      const queue = [p.pid];
      while (queue.length > 0) {
        const pid = queue.shift()!;
        tree.push(pid);
        for (const c of children.get(pid) ?? []) queue.push(c);
      }
      let cpuSeconds = 0;
      let rss = 0;
      for (const pid of tree) {
        const q = byPid.get(pid)!;
        cpuSeconds += q.cpuSeconds;
        rss += q.rssBytes;
      }
      const before = this.last.get(p.pid);
      const cpu =
        before && now > before.at
          ? Math.max(0, ((cpuSeconds - before.cpu) / ((now - before.at) / 1000)) * 100)
          : null;
      this.last.set(p.pid, { cpu: cpuSeconds, at: now });
      agents.push({
        provider,
        pid: p.pid,
        tree,
        startMs: p.startMs,
        cwd: p.cwd,
        argv: p.argv,
        sessionArg: sessionArg(provider, p.argv),
        cpu,
        rssBytes: rss,
      });
    }
    const alive = new Set(agents.map((a) => a.pid));
    for (const pid of this.last.keys()) if (!alive.has(pid)) this.last.delete(pid);
    return agents;
  }
}

export interface Matchable {
  provider: ProviderId;
  id: string;
  project: string | null;
  lastActiveMs: number | null;
}

/** Sessions written this long before their process started still count as started by it. */
export const START_SLACK_MS = 60_000;

/**
 * Pair agents with sessions: the exact id first (when that session was written since the process
 * started: a resumed Claude session may continue in a new file), then by working directory, the
 * newest sessions active since each process started with the newest processes.
 */
export function matchSessions(
  agents: readonly AgentProcess[],
  sessions: readonly Matchable[],
): Map<string, AgentProcess> {
  const out = new Map<string, AgentProcess>();
  const key = (s: Matchable) => `${s.provider}\u0000${s.id}`;
  const byId = new Map(sessions.map((s) => [key(s), s]));
  const unmatched: AgentProcess[] = [];
  for (const a of agents) {
    const s = a.sessionArg ? byId.get(`${a.provider}\u0000${a.sessionArg}`) : undefined;
    if (s && (s.lastActiveMs ?? 0) >= a.startMs - START_SLACK_MS && !out.has(key(s))) out.set(key(s), a);
    else unmatched.push(a);
  }
  const groups = new Map<string, AgentProcess[]>();
  for (const a of unmatched) {
    if (a.cwd === null) continue;
    const g = `${a.provider}\u0000${a.cwd}`;
    groups.set(g, [...(groups.get(g) ?? []), a]);
  }
  for (const [g, procs] of groups) {
    const [provider, cwd] = g.split('\u0000') as [ProviderId, string];
    procs.sort((x, y) => y.startMs - x.startMs || x.pid - y.pid);
    const candidates = sessions
      .filter((s) => s.provider === provider && s.project === cwd && !out.has(key(s)))
      .sort((x, y) => (y.lastActiveMs ?? 0) - (x.lastActiveMs ?? 0));
    for (let i = 0; i < procs.length && i < candidates.length; i++) {
      const s = candidates[i]!;
      const p = procs[i]!;
      if ((s.lastActiveMs ?? 0) < p.startMs - START_SLACK_MS) continue;
      out.set(key(s), p);
    }
  }
  return out;
}
