/**
 * Makes sure no agent outlives the program that started it.
 *
 * Each agent runs in a process group of its own (so a Ctrl-C in the terminal reaches cctop, which
 * decides, rather than reaching the agent behind its back), and every live group is recorded here.
 * When the program exits normally, every recorded group is killed outright. On SIGINT, SIGTERM or
 * SIGHUP every run is cancelled (SIGTERM to its group, SIGKILL after the grace period); if nobody
 * else listens for that signal the program then dies of it as it would have without drive, once the
 * groups are gone or the grace period has passed.
 *
 * What no code can do: clean up after a SIGKILL of the program itself. The agents it started then
 * run on, adopted by init, until they finish. docs/drive.md says so.
 *
 * Handlers are installed only while a run is live, so a program using drive behaves exactly as
 * before whenever no agent is running. On Windows there are no process groups: only the agent
 * process itself is killed.
 */
import type { ChildProcess } from 'node:child_process';
import { KILL_GRACE_MS } from './bounds.js';

const WINDOWS = process.platform === 'win32';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type Caught = (typeof SIGNALS)[number];

interface Tracked {
  child: ChildProcess;
  /** The run's own stop: SIGTERM to the group, SIGKILL after the grace, the outcome `cancelled`. */
  stop: () => void;
}

const live = new Map<number, Tracked>();
let installed = false;
let dying = false;

/** Send `signal` to the whole group led by `pid`. False when nothing was there to receive it. */
export function signalGroup(pid: number, signal: NodeJS.Signals, child?: ChildProcess): boolean {
  try {
    if (WINDOWS) return child?.kill(signal) ?? process.kill(pid, signal);
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of the group led by `pid` still exists. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(WINDOWS ? pid : -pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function onExit(): void {
  // Only synchronous work is possible here, and a grace period is not: kill outright.
  for (const [pid, { child }] of live) signalGroup(pid, 'SIGKILL', child);
}

function onSignal(signal: Caught): void {
  if (dying) {
    // A second signal while waiting: stop waiting.
    onExit();
    return;
  }
  for (const { stop } of live.values()) stop();
  // Someone else handles this signal and decides whether the program ends; the agents are told.
  if (process.listenerCount(signal) > 1) return;
  dying = true;
  const pids = [...live.keys()];
  const deadline = Date.now() + KILL_GRACE_MS;
  const poll = () => {
    if (pids.some(groupAlive) && Date.now() < deadline) {
      setTimeout(poll, 25);
      return;
    }
    for (const pid of pids) signalGroup(pid, 'SIGKILL', live.get(pid)?.child);
    uninstall();
    // Without a listener the signal now does what it would have done had drive never been loaded.
    process.kill(process.pid, signal);
  };
  poll();
}

const handlers = new Map<Caught, () => void>(SIGNALS.map((s) => [s, () => onSignal(s)]));

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  for (const [signal, handler] of handlers) process.on(signal, handler);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  for (const [signal, handler] of handlers) process.off(signal, handler);
}

/** Record a live agent process group, with the way to stop its run. */
export function track(child: ChildProcess, stop: () => void): void {
  if (child.pid === undefined) return;
  live.set(child.pid, { child, stop });
  install();
}

/** The group is gone; once none is left, the program's signals are its own again. */
export function untrack(child: ChildProcess): void {
  if (child.pid === undefined) return;
  live.delete(child.pid);
  if (live.size === 0 && !dying) uninstall();
}
