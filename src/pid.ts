/**
 * Whether a process runs, by its pid: the one question every lock, socket and registry of running
 * things asks before it believes a pid it reads from a file. A process of another user counts (the
 * signal is refused, `EPERM`, but the process is there).
 *
 * Not here: telling a reused pid from the process that wrote it (each owner checks what it can: a
 * start time, a heartbeat).
 */
export function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
