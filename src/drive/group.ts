/**
 * One agent's process group, from the spawn to the reaping: the agent leads a group of its own, a
 * stop is polite first (SIGTERM, then SIGKILL once the grace period has passed), and when the agent
 * exits whatever it left running in the group goes too.
 *
 * What happens when the program itself is signalled, or exits with agents still running, is
 * `reaper.ts`'s business; this registers each group there and takes it off once it is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { KILL_GRACE_MS } from './bounds.js';
import * as reaper from './reaper.js';

/** Start `path` as the leader of a new process group (on Windows, which has none, a plain child). */
export function spawnGroup(path: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(path, args, {
    cwd,
    env,
    // Its own process group: the whole tree can be killed, and a terminal's Ctrl-C reaches us first.
    detached: process.platform !== 'win32',
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
}

/** A spawned agent (its pid known) whose group is tracked until {@link ProcessGroup.release}. */
export class ProcessGroup {
  exited = false;
  exitCode: number | null = null;
  exitSignal: string | null = null;
  private killTimer: NodeJS.Timeout | null = null;

  /** `stop` is the run's own stop, which the reaper calls when the program is signalled. */
  constructor(
    readonly child: ChildProcess,
    stop: () => void,
  ) {
    reaper.track(child, stop);
    child.on('exit', (code, signal) => this.onExit(code, signal));
  }

  /** SIGTERM to the group now, SIGKILL after the grace period, unless the agent has already exited. */
  terminate(): void {
    const child = this.child;
    if (this.exited || child.pid === undefined) return;
    reaper.signalGroup(child.pid, 'SIGTERM', child);
    this.killTimer = setTimeout(() => {
      if (child.pid !== undefined) reaper.signalGroup(child.pid, 'SIGKILL', child);
    }, KILL_GRACE_MS);
  }

  /** The run is over: no kill is pending and the reaper no longer answers for this group. */
  release(): void {
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    reaper.untrack(this.child);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    const child = this.child;
    // The agent is gone; whatever it left running in its group (a shell, a server a tool started)
    // goes too, or it would hold the pipes open and outlive the run.
    if (child.pid !== undefined) reaper.signalGroup(child.pid, 'SIGKILL', child);
    reaper.untrack(child);
    if (this.killTimer !== null) clearTimeout(this.killTimer);
  }
}
